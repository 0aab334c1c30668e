"""Matchmaking follows the workers: queues sized for the worker processes that report
themselves, the per-bot cap raised to fill them, nothing more on a ladder whose queue
is already too old (the driven-clock figures are in test_fair_share.py)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from arena.ladders.flows import ladder_create
from arena.ladders.models import Ladder
from arena.ladders.services import ladder_fill_queue, ladders_fill_queues
from arena.ladders.services.queues import match_slots
from arena.matches.models import Match, MatchStatus, WorkerPresence
from arena.matches.services import worker_presence_beat, worker_presence_leave
from tests.platform.factories import BotFactory, BotVersionFactory
from tests.platform.scenes import enter, never_run
from tests.platform.worker import needs_redis, needs_shared_database, redis_worker, wait_for

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """Matches are queued, never played: these tests count the queue."""
    from arena.ladders import tasks

    never_run(monkeypatch, tasks.match_run)


def _ladder(slug: str, seats: int) -> Ladder:
    return ladder_create(
        slug=slug, name=slug, rules="classic", seats=seats, series_games=1, duplicate_deals=False
    )


def _bots(count: int, *ladders: Ladder) -> None:
    for i in range(count):
        version = BotVersionFactory(bot=BotFactory(name=f"bot{i:03d}"))
        for ladder in ladders:
            enter(version, ladder)


def _queued(ladder: Ladder) -> int:
    return Match.objects.filter(ladder=ladder, status=MatchStatus.QUEUED).count()


def test_the_workers_up_on_the_matches_queue_count_their_processes(settings: Any) -> None:
    now = timezone.now()
    worker_presence_beat(hostname="celery@a", queues=["celery", "celery.ratings"], concurrency=8)
    worker_presence_beat(hostname="celery@b", queues=["celery"], concurrency=4)
    worker_presence_beat(hostname="celery@tables", queues=["celery.tables"], concurrency=4)
    # Gone quiet three beats ago: killed, not counted.
    worker_presence_beat(
        hostname="celery@dead", queues=["celery"], concurrency=50, now=now - timedelta(minutes=2)
    )
    assert match_slots(now=now) == 12

    worker_presence_beat(hostname="celery@b", queues=["celery"], concurrency=6)  # a resize
    assert match_slots(now=now) == 14
    worker_presence_leave(hostname="celery@a")
    assert match_slots(now=now) == 6
    settings.ARENA_MATCH_WORKER_SLOTS = 40  # configured, for workers that cannot report
    assert match_slots(now=now) == 40


def test_two_processes_queue_the_fixed_target_two_hundred_queue_for_all(settings: Any) -> None:
    settings.ARENA_LADDER_QUEUE_TARGET = 6
    settings.ARENA_BOT_MAX_QUEUED = 2
    two, four = _ladder("classic-2", 2), _ladder("classic-4", 4)
    _bots(60, two, four)

    worker_presence_beat(hostname="celery@small", queues=["celery"], concurrency=2)
    ladders_fill_queues()
    assert _queued(two) == _queued(four) == 6  # the floor: as without the workers' reports

    Match.objects.all().delete()
    worker_presence_beat(hostname="celery@big", queues=["celery"], concurrency=198)
    ladders_fill_queues()
    # 2 runs (single games here) per process over both ladders: 400 queued, shared out
    # by the least-served ladder first; the bots' cap rose to seat them all.
    total = _queued(two) + _queued(four)
    assert total == 400
    assert _queued(two) > 6 and _queued(four) > 6
    assert ladders_fill_queues() == []  # full: nothing more until the workers take some


def test_a_ladder_whose_queue_is_too_old_gets_nothing_more(settings: Any) -> None:
    settings.ARENA_LADDER_QUEUE_TARGET = 4
    settings.ARENA_QUEUE_MAX_AGE_SECONDS = 600
    ladder = _ladder("classic-2", 2)
    _bots(10, ladder)
    ladder_fill_queue(ladder=ladder)
    assert _queued(ladder) == 4
    Match.objects.update(status=MatchStatus.FINISHED)  # the workers took most of it...
    (left,) = ladder_fill_queue(ladder=ladder)[:1]
    Match.objects.exclude(pk=left.pk).filter(status=MatchStatus.QUEUED).delete()
    # ... but one match has waited 11 minutes: the workers are behind on this ladder.
    Match.objects.filter(pk=left.pk).update(queued_at=timezone.now() - timedelta(minutes=11))
    assert ladder_fill_queue(ladder=ladder) == []
    Match.objects.filter(pk=left.pk).update(status=MatchStatus.FINISHED)
    assert len(ladder_fill_queue(ladder=ladder)) == 4  # caught up


@needs_shared_database
@needs_redis
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_reports_itself_while_up_and_leaves_when_stopped(
    media_root: Path, tmp_path: Path
) -> None:
    with redis_worker(tmp_path, media_root, ARENA_WORKER_PRESENCE_SECONDS="1") as (worker, _):
        presence = wait_for(
            lambda: WorkerPresence.objects.first(), timeout=60, what="the worker's presence"
        )
        # Prefork with one process, reading every queue of the test's own (no -Q).
        queue = worker.env["CELERY_TASK_DEFAULT_QUEUE"]
        assert presence.hostname.startswith("test-") and presence.concurrency == 1
        lanes = ("ratings", "tables", "builds", "sweeps")
        assert set(presence.queues) == {queue, *(f"{queue}.{lane}" for lane in lanes)}
        first_seen = presence.seen_at
        wait_for(
            lambda: WorkerPresence.objects.filter(seen_at__gt=first_seen).first(),
            timeout=60,
            what="the worker's next beat",
        )
        worker.stop()
    assert not WorkerPresence.objects.exists()
