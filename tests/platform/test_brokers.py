"""The platform on each broker it supports, Redis and RabbitMQ, end to end.

Real processes: a Celery worker (prefork) on the test PostgreSQL database and a
queue of its own on the broker (on RabbitMQ, a virtual host of its own too),
playing a sandboxed match to a finished, rated result; then RabbitMQ's own
redelivery: a worker killed mid-match gets its message back to the queue at
once, and the match is played to the end and rated exactly once.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from kombu import Connection

from arena.ladders.flows import ladder_create
from arena.ladders.models import Rating, RatingChange
from arena.ladders.services import ratings_apply
from arena.matches.models import Match, MatchStatus
from arena.matches.services import match_create
from tests.platform.ladders.test_match_pipeline import (
    classic_2,
    house_bot,
    player_bot,
    replay,
    stored_log,
)
from tests.platform.matches.test_worker_kill import SLOW_BOT
from tests.platform.scenes import publish_match

from .scenes import on_ladder
from .worker import (
    REDIS_URL,
    SANDBOXED_BOT,
    amqp_delete_queue,
    amqp_ready_messages,
    broker_worker,
    needs_rabbitmq,
    needs_shared_database,
    purge_queue,
    rabbitmq_up,
    rabbitmq_vhost,
    redis_up,
    unique_queue,
    wait_for,
)

pytestmark = [pytest.mark.slow, needs_shared_database, pytest.mark.django_db(transaction=True)]


@dataclass(frozen=True)
class Broker:
    url: str
    queue: str


@pytest.fixture(params=["redis", "rabbitmq"])
def broker(request: pytest.FixtureRequest) -> Iterator[Broker]:
    """A queue of this test's own on a running Redis or RabbitMQ, removed at the end."""
    queue = unique_queue()
    if request.param == "redis":
        if not redis_up():
            pytest.skip("no Redis on 127.0.0.1:6379 (start it: redis-server --daemonize yes)")
        try:
            yield Broker(REDIS_URL, queue)
        finally:
            purge_queue(queue)
        return
    if not rabbitmq_up():
        pytest.skip("no RabbitMQ on 127.0.0.1:5672 (start it: rabbitmq-server -detached)")
    with rabbitmq_vhost() as url:
        try:
            yield Broker(url, queue)
        finally:
            amqp_delete_queue(url, queue)


def _rated(match: Match) -> Match | None:
    current = Match.objects.get(pk=match.pk)
    if current.status in (MatchStatus.FAILED_INFRA, MatchStatus.CANCELLED):
        raise AssertionError(f"match {current.pk} ended {current.status}: {current.error}")
    return current if current.rated_at is not None else None


def test_a_sandboxed_match_is_played_through_the_broker_and_rated(
    broker: Broker, alice: Any, house: Any, media_root: Path, tmp_path: Path
) -> None:
    ladder = classic_2()
    # shark crashes unless it runs in the sandbox: its clean seat proves the sandbox.
    shark, greedy = player_bot(alice, "shark", SANDBOXED_BOT), house_bot(house, "greedy")

    with broker_worker(tmp_path, media_root, broker_url=broker.url, queue=broker.queue) as (
        worker,
        _,
    ):
        # The worker took this broker, not a default (its password masked in the log).
        assert f"Connected to {Connection(broker.url).as_uri()}" in worker.log()
        assert "bot sandbox self-test passed" in worker.log()
        match = publish_match(match_create(**on_ladder(ladder), versions=[shark, greedy]))
        done = wait_for(lambda: _rated(match), timeout=90, what="the match played and rated")

    assert (done.status, done.attempts, done.error) == (MatchStatus.FINISHED, 1, "")
    log = stored_log(done)
    assert [seat["forfeited"] for seat in json.loads(log)["referee"]["seats"]] == [False, False]
    assert "replay ok" in replay(log, tmp_path)
    assert RatingChange.objects.filter(match=done).count() == 2
    assert sorted(Rating.objects.values_list("rated_matches", flat=True)) == [1, 1]


@needs_rabbitmq
def test_rabbitmq_returns_a_killed_worker_s_match_at_once_and_it_is_rated_once(
    alice: Any, house: Any, media_root: Path, tmp_path: Path
) -> None:
    ladder = ladder_create(
        slug="slow-2", name="Slow", rules="classic", seats=2, time_bank_ms=60_000
    )
    sloth, greedy = player_bot(alice, "sloth", SLOW_BOT), house_bot(house, "greedy")
    queue = unique_queue()

    with rabbitmq_vhost() as url:
        try:
            with broker_worker(tmp_path, media_root, broker_url=url, queue=queue) as (
                first,
                restart,
            ):
                match = publish_match(match_create(**on_ladder(ladder), versions=[sloth, greedy]))

                def running() -> Match | None:
                    current = Match.objects.get(pk=match.pk)
                    return current if current.status == MatchStatus.RUNNING else None

                runner = wait_for(running, timeout=30, what="the worker to start the match").runner
                assert amqp_ready_messages(url, queue) == 0  # held, unacknowledged, by the worker
                time.sleep(2)  # well into the game
                first.kill()

                # Its connection closed, RabbitMQ puts the message back in the queue
                # at once (Redis waits out its visibility timeout).
                wait_for(
                    lambda: amqp_ready_messages(url, queue) == 1,
                    timeout=10,
                    what="RabbitMQ to requeue the killed worker's message",
                )
                lost = Match.objects.get(pk=match.pk)
                assert (lost.status, lost.attempts, lost.runner) == (MatchStatus.RUNNING, 1, runner)
                assert not RatingChange.objects.exists()

                second = restart()
                done = wait_for(
                    lambda: _rated(match), timeout=90, what="the match replayed and rated"
                )
                # Both messages ran: the one RabbitMQ gave back and the one the
                # recovery of the lost attempt published.
                wait_for(
                    lambda: len(re.findall(r"match_run\[[\w-]+\] succeeded", second.log())) >= 2,
                    timeout=30,
                    what="the redelivered message and the retry's to run",
                )
                assert amqp_ready_messages(url, queue) == 0
        finally:
            amqp_delete_queue(url, queue)

    current = Match.objects.get(pk=match.pk)
    assert (current.status, current.attempts) == (MatchStatus.FINISHED, 2)
    assert current.finished_at == done.finished_at and current.runner != runner
    assert RatingChange.objects.filter(match=current).count() == 2
    assert {r.rated_matches for r in Rating.objects.all()} == {1}
    assert ratings_apply(match=current) == []
