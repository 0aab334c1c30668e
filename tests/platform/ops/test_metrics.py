"""GET /metrics: the figures an operator watches, read from the database and the broker
at scrape time, for a scraper with the token or from an allowed address only."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from kombu import Connection, Exchange, Producer, Queue
from prometheus_client.parser import text_string_to_metric_families

from arena.bots.models import BotVersion, VersionStatus
from arena.ladders.models import Ladder, Qualification
from arena.matches.models import (
    AttemptFault,
    AttemptOutcome,
    ForfeitCause,
    Match,
    MatchAttempt,
    MatchStatus,
    WorkerPresence,
)
from arena.matches.outcomes import SeatOutcome
from arena.matches.services import match_create, match_finish, match_start
from tests.platform.factories import BotVersionFactory, LadderFactory, MatchFactory
from tests.platform.scenes import engine_log
from tests.platform.worker import (
    REDIS_URL,
    REPO_DIR,
    needs_rabbitmq,
    needs_redis,
    process_env,
    purge_queue,
    rabbitmq_vhost,
    unique_queue,
)
from vegas_engine.log import dumps

pytestmark = pytest.mark.django_db
TOKEN = "scrape-me-" + "x" * 20


def scrape(client: Client, **headers: Any) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """GET /metrics with the token; every sample by (name, sorted labels)."""
    response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}", **headers)
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain; version=")
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.content.decode())
        for sample in family.samples
    }


@pytest.fixture
def metrics_on(settings: Any) -> Any:
    settings.ARENA_METRICS_TOKEN = TOKEN
    return settings


def timed(attempt: MatchAttempt, start: datetime, seconds: float, **fields: Any) -> None:
    MatchAttempt.objects.filter(pk=attempt.pk).update(
        started_at=start, ended_at=start + timedelta(seconds=seconds), **fields
    )


def finish(
    ladder: Ladder, versions: list[BotVersion], seed: int, runner: str, forfeit: Any
) -> Match:
    """A match played through the services by ``runner``, its seat 1 lost by ``forfeit``;
    finished, its rating not applied yet (a ratings worker does that)."""
    log = engine_log(ladder, seed)
    result = log["events"][-1]["result"]
    outcomes = [
        SeatOutcome(
            seat=r["seat"], money=r["money"], rank=r["rank"], forfeit=forfeit if r["seat"] else None
        )
        for r in result
    ]
    with transaction.atomic():
        match = match_create(ladder_id=ladder.pk, game=ladder.game, versions=versions, seed=seed)
        match = match_start(match=match, runner=runner)
        return match_finish(match=match, outcomes=outcomes, game_log=dumps(log).encode())


def test_metrics_count_matches_forfeits_busy_time_rating_lag_and_preflights(
    metrics_on: Any, client: Client
) -> None:
    classic = LadderFactory(slug="classic-2")
    other = LadderFactory(slug="other-2")
    versions = [BotVersionFactory(), BotVersionFactory()]
    first = finish(classic, versions, 1, "hostA:ns:10:1", ForfeitCause.TIMEOUT)
    finish(classic, versions, 2, "hostA:ns:10:1", ForfeitCause.CRASHED)
    finish(other, versions, 3, "hostB:ns:11:1", ForfeitCause.TIMEOUT)
    MatchFactory(ladder=classic, status=MatchStatus.QUEUED)
    MatchFactory(ladder=other, status=MatchStatus.CANCELLED)
    # A match playing now on hostB.
    with transaction.atomic():
        playing = match_create(ladder_id=other.pk, game=other.game, versions=versions, seed=4)
        match_start(match=playing, runner="hostB:ns:12:1")

    # Busy time from the attempts' own times: 30 s and 20 s on hostA (two processes);
    # on hostB 30 s, and a series of two games started together by one process (its
    # last game ended 50 s after the start: 50 s busy, not 20 + 50); an attempt ended
    # by the lost-worker sweep is left out (its end is when the sweep noticed).
    start = timezone.now() - timedelta(hours=2)
    hour_ago = timezone.now() - timedelta(hours=1)
    Match.objects.filter(pk=first.pk).update(finished_at=hour_ago)
    a, b, c = MatchAttempt.objects.filter(outcome=AttemptOutcome.FINISHED).order_by("match_id")
    timed(a, start, 30)
    timed(b, start, 20, runner="hostA:ns:13:1")
    timed(c, start, 30)
    for seconds in (20, 50):
        game = MatchFactory(ladder=other, status=MatchStatus.FINISHED, rated=False)
        attempt = MatchAttempt.objects.create(match=game, number=1, started_at=start)
        timed(attempt, start, seconds, runner="hostB:ns:15:1", outcome=AttemptOutcome.FINISHED)
    lost = MatchFactory(ladder=other, status=MatchStatus.FAILED_INFRA, rated=False)
    attempt = MatchAttempt.objects.create(match=lost, number=1, started_at=start)
    timed(
        attempt,
        start,
        900,
        runner="hostB:ns:14:1",
        outcome=AttemptOutcome.FAILED,
        fault=AttemptFault.WORKER_LOST,
    )
    # Workers up (as they say every ARENA_WORKER_PRESENCE_SECONDS), and one gone silent.
    WorkerPresence.objects.create(
        hostname="celery@hostB",
        queues=["celery.sweeps", "celery"],
        concurrency=4,
        started_at=start,
        seen_at=timezone.now(),
    )
    WorkerPresence.objects.create(
        hostname="celery@gone", queues=["celery"], concurrency=2, started_at=start, seen_at=start
    )
    # Pre-flights: one pending game, one version waiting for validation.
    waiting = BotVersionFactory(status=VersionStatus.PENDING)
    Qualification.objects.create(ladder=classic, bot_version=waiting)

    samples = scrape(client)

    def value(name: str, **labels: str) -> float:
        return samples[name, tuple(sorted(labels.items()))]

    assert value("arena_matches_ended_total", ladder="classic-2", status="finished") == 2
    assert value("arena_matches_ended_total", ladder="other-2", status="finished") == 3
    assert value("arena_matches_ended_total", ladder="other-2", status="cancelled") == 1
    assert value("arena_matches_ended_total", ladder="other-2", status="failed_infra") == 1
    assert value("arena_matches_ended_total", ladder="classic-2", status="cancelled") == 0
    assert value("arena_matches", ladder="classic-2", status="queued") == 1
    assert value("arena_matches", ladder="classic-2", status="running") == 0
    assert value("arena_matches", ladder="other-2", status="running") == 1
    assert value("arena_forfeits_total", kind="timeout") == 2
    assert value("arena_forfeits_total", kind="crashed") == 1
    assert ("arena_forfeits_total", (("kind", "garbage"),)) not in samples
    assert value("arena_worker_busy_seconds_total", host="hostA") == pytest.approx(50, abs=1e-3)
    # hostB: 30 s (the ladder "other"'s match) + the series' 50 s; the lost attempt not.
    assert value("arena_worker_busy_seconds_total", host="hostB") == pytest.approx(80, abs=1e-3)
    assert value("arena_worker_games_running", host="hostB") == 1
    assert value("arena_worker_processes_busy", host="hostB") == 1
    assert ("arena_worker_games_running", (("host", "hostA"),)) not in samples
    assert (
        value(
            "arena_worker_processes",
            worker="celery@hostB",
            host="hostB",
            queues="celery,celery.sweeps",
        )
        == 4
    )
    assert not any(labels and labels[0] == ("host", "gone") for _name, labels in samples)
    # Three finished rated matches wait for their ratings; the oldest finished an hour ago.
    assert value("arena_ratings_pending") == 3
    assert value("arena_rating_lag_seconds") >= 3600
    assert value("arena_preflights_pending") == 1
    assert value("arena_versions_unvalidated", status="pending") == 1
    # The answering process's own, and the (test's in-memory) broker's.
    assert value("process_resident_memory_bytes") > 0
    assert value("arena_broker_up") == 1


def test_totals_read_once_then_grow_with_what_ended_since(
    metrics_on: Any, client: Client, fresh_totals: Any
) -> None:
    """The first scrape reads the whole history; later ones only recent rows, and the
    counters go on from the totals kept (a series of two games is one process's run)."""
    ladder = LadderFactory(slug="grows")
    versions = [BotVersionFactory(), BotVersionFactory()]
    old = finish(ladder, versions, 1, "hostA:ns:1:1", ForfeitCause.TIMEOUT)
    long_ago = timezone.now() - timedelta(days=2)
    Match.objects.filter(pk=old.pk).update(finished_at=long_ago)
    timed(MatchAttempt.objects.get(match=old), long_ago, 40)
    finished = ("arena_matches_ended_total", (("ladder", "grows"), ("status", "finished")))
    timeouts = ("arena_forfeits_total", (("kind", "timeout"),))
    busy = ("arena_worker_busy_seconds_total", (("host", "hostA"),))

    first = scrape(client)
    assert (first[finished], first[timeouts], first[busy]) == (1, 1, pytest.approx(40))
    # Settled: kept, and never read again.
    assert fresh_totals.finished_after is not None
    assert fresh_totals.runs_after_id == MatchAttempt.objects.get(match=old).pk

    recent = finish(ladder, versions, 2, "hostA:ns:1:1", ForfeitCause.TIMEOUT)
    now = timezone.now()
    timed(MatchAttempt.objects.get(match=recent), now - timedelta(seconds=15), 15)
    second = scrape(client)
    assert (second[finished], second[timeouts], second[busy]) == (2, 2, pytest.approx(55))
    # Read again (not settled yet), not counted twice.
    assert scrape(client)[finished] == 2
    assert scrape(client)[busy] == pytest.approx(55)


def test_rating_lag_is_zero_once_every_match_is_rated(metrics_on: Any, client: Client) -> None:
    ladder = LadderFactory()
    match = finish(ladder, [BotVersionFactory(), BotVersionFactory()], 5, "h:n:1:1", None)
    assert scrape(client)["arena_ratings_pending", ()] == 1
    Match.objects.filter(pk=match.pk).update(rated_at=timezone.now())
    samples = scrape(client)
    assert samples["arena_ratings_pending", ()] == 0
    assert samples["arena_rating_lag_seconds", ()] == 0


def test_a_scrape_takes_the_same_few_queries_however_much_there_is(
    metrics_on: Any, client: Client
) -> None:
    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            scrape(client)
        return len(captured)

    # The first scrape of a process reads the whole history, and later ones only
    # what ended since: the same queries.
    ladder = LadderFactory()
    versions = [BotVersionFactory(), BotVersionFactory()]
    finish(ladder, versions, 1, "h1:n:1:1", ForfeitCause.TIMEOUT)
    small = queries()
    for seed in range(2, 8):
        other = LadderFactory()
        finish(other, versions, seed, f"h{seed}:n:1:1", ForfeitCause.CRASHED)
        MatchFactory(ladder=other, status=MatchStatus.QUEUED)
    assert queries() == small
    assert small <= 12


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_an_unreachable_broker_is_reported_down_and_the_rest_still_answers(
    metrics_on: Any, client: Client
) -> None:
    metrics_on.CELERY_BROKER_URL = f"redis://127.0.0.1:{_closed_port()}/0"
    metrics_on.CELERY_BROKER_TRANSPORT_OPTIONS = {}
    LadderFactory(slug="still-counted")
    samples = scrape(client)
    assert samples["arena_broker_up", ()] == 0
    assert not any(name == "arena_queue_messages" for name, _labels in samples)
    assert (
        samples["arena_matches_ended_total", (("ladder", "still-counted"), ("status", "finished"))]
        == 0
    )


def publish(broker_url: str, queue: str, count: int) -> None:
    with Connection(broker_url) as broker:
        producer = Producer(broker.default_channel)
        target = Queue(queue, Exchange(queue, type="direct"), routing_key=queue)
        for n in range(count):
            producer.publish(
                {"n": n}, exchange=target.exchange, routing_key=queue, declare=[target]
            )


@needs_redis
def test_queue_depth_on_redis_counts_each_queues_waiting_messages(
    metrics_on: Any, client: Client
) -> None:
    queue = unique_queue()
    metrics_on.CELERY_BROKER_URL = REDIS_URL
    metrics_on.CELERY_TASK_QUEUES = (Queue(queue), Queue(f"{queue}.ratings"))
    try:
        publish(REDIS_URL, queue, 3)
        samples = scrape(client)
    finally:
        purge_queue(queue)
    assert samples["arena_broker_up", ()] == 1
    assert samples["arena_queue_messages", (("queue", queue),)] == 3
    # Never declared (Redis keeps no empty list): nothing waits there.
    assert samples["arena_queue_messages", (("queue", f"{queue}.ratings"),)] == 0


@needs_rabbitmq
def test_queue_depth_on_rabbitmq(metrics_on: Any, client: Client) -> None:
    queue = unique_queue()
    with rabbitmq_vhost() as broker_url:
        metrics_on.CELERY_BROKER_URL = broker_url
        metrics_on.CELERY_BROKER_TRANSPORT_OPTIONS = {"confirm_publish": True}
        metrics_on.CELERY_TASK_QUEUES = (Queue(queue), Queue(f"{queue}.missing"))
        try:
            publish(broker_url, queue, 2)
            samples = scrape(client)
        finally:
            with Connection(broker_url) as broker:
                broker.default_channel.queue_delete(queue)
    assert samples["arena_queue_messages", (("queue", queue),)] == 2
    assert samples["arena_queue_messages", (("queue", f"{queue}.missing"),)] == 0


# --------------------------------------------------------------------------- access


def test_metrics_answer_nobody_until_a_token_or_addresses_are_set(
    settings: Any, client: Client
) -> None:
    settings.ARENA_METRICS_TOKEN = ""
    settings.ARENA_METRICS_ALLOWED_IPS = []
    response = client.get("/metrics", HTTP_AUTHORIZATION="Bearer anything")
    assert response.status_code == 403
    assert b"set ARENA_METRICS_TOKEN" in response.content


def test_metrics_need_the_exact_bearer_token(metrics_on: Any, client: Client) -> None:
    for header in ({}, {"HTTP_AUTHORIZATION": "Bearer wrong"}, {"HTTP_AUTHORIZATION": TOKEN}):
        response = client.get("/metrics", **header)
        assert response.status_code == 403, header
        assert b"Authorization: Bearer <ARENA_METRICS_TOKEN>" in response.content
        assert TOKEN.encode() not in response.content
    assert client.get("/metrics", HTTP_AUTHORIZATION=f"bearer {TOKEN}").status_code == 200


def test_metrics_answer_allowed_addresses_without_a_token(settings: Any, client: Client) -> None:
    settings.ARENA_METRICS_TOKEN = ""
    settings.ARENA_METRICS_ALLOWED_IPS = ["10.0.0.0/8", "192.0.2.7"]
    assert client.get("/metrics", REMOTE_ADDR="10.20.30.40").status_code == 200
    assert client.get("/metrics", REMOTE_ADDR="192.0.2.7").status_code == 200
    refused = client.get("/metrics", REMOTE_ADDR="192.0.2.8")
    assert refused.status_code == 403
    assert b"ARENA_METRICS_ALLOWED_IPS" in refused.content
    # X-Forwarded-For is the client's to write while no proxy is trusted.
    forged = client.get("/metrics", REMOTE_ADDR="192.0.2.8", HTTP_X_FORWARDED_FOR="10.0.0.1")
    assert forged.status_code == 403


SCRAPE_WITHOUT_DATABASE = """
import json
from django.test import Client
client = Client(raise_request_exception=False)
response = client.get("/metrics", HTTP_AUTHORIZATION="Bearer " + TOKEN)
print(json.dumps([response.status_code, response.content.decode()]))
"""


def test_with_the_database_down_the_scrape_says_so_and_still_answers(tmp_path: Path) -> None:
    env = process_env(
        tmp_path,
        DATABASE_URL=f"postgres://postgres@127.0.0.1:{_closed_port()}/arena",
        SECRET_KEY="tests-only-secret-key",
        ALLOWED_HOSTS="testserver",
        ARENA_METRICS_TOKEN=TOKEN,
        CELERY_BROKER_URL=REDIS_URL,
    )
    done = subprocess.run(
        [sys.executable, str(REPO_DIR / "manage.py"), "shell", "-c",
         f"TOKEN = {TOKEN!r}\n" + SCRAPE_WITHOUT_DATABASE],
        env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    status, exposition = json.loads(done.stdout.strip().splitlines()[-1])
    assert status == 200, exposition
    samples = {
        sample.name: sample.value
        for family in text_string_to_metric_families(exposition)
        for sample in family.samples
        if not sample.labels
    }
    assert samples["arena_database_up"] == 0
    assert samples["process_resident_memory_bytes"] > 0
    assert "arena_matches_ended_total" not in exposition
