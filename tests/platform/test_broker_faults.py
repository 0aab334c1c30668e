"""A private Redis broker that the test kills and restarts, under a real worker.

Redis without persistence loses every message it held when it restarts. The
matches whose messages were lost stay queued until the republish sweep sends
them again; then the worker plays each once, and each is rated once. With its
append-only file (as docs/deploy.md asks of a deployment) it keeps them: the
worker plays them at once, no sweep needed.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.bots.models import BotVersion
from arena.ladders.flows import ladder_create
from arena.ladders.models import Ladder, Rating, RatingChange
from arena.ladders.services import ratings_apply
from arena.ladders.tasks import matches_republish_queued
from arena.matches.models import Match, MatchStatus
from arena.matches.services import match_create
from tests.platform.ladders.test_match_pipeline import house_bot
from tests.platform.scenes import publish_match

from . import worker as processes
from .scenes import enter, on_ladder
from .worker import (
    CeleryWorker,
    needs_shared_database,
    process_env,
    publishing_to,
    unique_queue,
    wait_for,
)

pytestmark = [pytest.mark.slow, needs_shared_database, pytest.mark.django_db(transaction=True)]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class PrivateRedis:
    """A redis-server of this test's own: nothing on disk (Redis's default), or every
    write in its append-only file (written before Redis answers, synced each second)."""

    def __init__(self, tmp: Path, *, appendonly: bool = False) -> None:
        self.port = _free_port()
        self.dir = tmp
        self.appendonly = appendonly
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.fail("redis-server is not installed: apt-get install redis-server")
        self.process = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "yes" if self.appendonly else "no",
             # As docs/deploy.md runs it: with everysec a slow sync postpones the
             # writes, and a kill then loses the last messages though Redis answered.
             "--appendfsync", "always", "--dir", str(self.dir)],
            stdout=subprocess.DEVNULL,
        )  # fmt: skip
        wait_for(self._answers, timeout=10, what=f"redis on port {self.port}")

    def kill(self) -> None:
        assert self.process is not None
        self.process.kill()
        self.process.wait()

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                return True
        except OSError:
            return False


@pytest.fixture
def redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    server = PrivateRedis(tmp_path)
    server.start()
    yield server
    if server.process is not None and server.process.poll() is None:
        server.kill()


@pytest.fixture
def persistent_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    server = PrivateRedis(tmp_path, appendonly=True)
    server.start()
    yield server
    if server.process is not None and server.process.poll() is None:
        server.kill()


def _worker_env(tmp_path: Path, media_root: Path, broker_url: str, queue: str) -> dict[str, str]:
    return process_env(
        tmp_path,
        DATABASE_URL=processes.test_database_url(),  # not imported: pytest would collect it
        DATABASE_CONN_MAX_AGE="0",
        CELERY_BROKER_URL=broker_url,
        CELERY_TASK_DEFAULT_QUEUE=queue,
        CELERY_TASK_ALWAYS_EAGER="0",
        MEDIA_ROOT=str(media_root),
        SECRET_KEY="tests-only-secret-key",
    )


def house_pair(house: Any) -> tuple[Ladder, BotVersion, BotVersion]:
    """A 2-seat ladder with the house bots greedy and random entered and qualified."""
    ladder = ladder_create(slug="classic-2", name="Classic 2", rules="classic", seats=2)
    greedy, rand = (house_bot(house, name) for name in ("greedy", "random"))
    for version in (greedy, rand):
        enter(version, ladder)
    return ladder, greedy, rand


def test_messages_lost_with_the_broker_are_played_once_after_the_sweep(
    house: Any, settings: Any, media_root: Path, tmp_path: Path, redis: PrivateRedis
) -> None:
    ladder, greedy, rand = house_pair(house)
    queue = unique_queue()
    env = _worker_env(tmp_path, media_root, redis.url, queue)
    with publishing_to(redis.url, queue):
        # Queued while no worker runs: their messages wait in Redis...
        matches = [
            publish_match(match_create(**on_ladder(ladder), versions=[greedy, rand]))
            for _ in range(3)
        ]
        # ... which restarts empty: every message is gone, the matches stay queued.
        redis.kill()
        redis.start()
        worker = CeleryWorker(env, tmp_path / "worker.log").start()
        try:
            worker.wait_ready()
            time.sleep(2)  # a worker that had a message would have started it by now
            statuses = set(Match.objects.values_list("status", flat=True))
            assert statuses == {MatchStatus.QUEUED}

            settings.ARENA_MATCH_REPUBLISH_SECONDS = 0  # due at once, for the test
            assert matches_republish_queued() == 3

            def played() -> bool:
                done = Match.objects.filter(pk__in=[m.pk for m in matches])
                if any(m.status in (MatchStatus.FAILED_INFRA, MatchStatus.CANCELLED) for m in done):
                    raise AssertionError([(m.pk, m.error) for m in done])
                return all(m.status == MatchStatus.FINISHED and m.rated_at for m in done)

            wait_for(played, timeout=90, what="the worker to play the re-published matches")
            assert matches_republish_queued() == 0  # nothing is queued any more
        finally:
            worker.stop()
    # Each played once (one attempt) and rated once.
    assert [m.attempts for m in Match.objects.order_by("pk")] == [1, 1, 1]
    assert RatingChange.objects.count() == 2 * 3
    assert all(ratings_apply(match=m) == [] for m in matches)
    assert sorted(Rating.objects.values_list("rated_matches", flat=True)) == [3, 3]


def test_redis_with_its_append_only_file_keeps_the_messages_through_a_crash(
    house: Any, media_root: Path, tmp_path: Path, persistent_redis: PrivateRedis
) -> None:
    ladder, greedy, rand = house_pair(house)
    queue = unique_queue()
    env = _worker_env(tmp_path, media_root, persistent_redis.url, queue)
    with publishing_to(persistent_redis.url, queue):
        matches = [
            publish_match(match_create(**on_ladder(ladder), versions=[greedy, rand]))
            for _ in range(3)
        ]
        # SIGKILL: no shutdown save; only what the append-only file holds comes back.
        persistent_redis.kill()
        persistent_redis.start()
        worker = CeleryWorker(env, tmp_path / "worker.log").start()
        try:
            worker.wait_ready()

            # No republish sweep runs: the kept messages alone get the matches played.
            def played() -> bool:
                done = Match.objects.filter(pk__in=[m.pk for m in matches])
                if any(m.status in (MatchStatus.FAILED_INFRA, MatchStatus.CANCELLED) for m in done):
                    raise AssertionError([(m.pk, m.error) for m in done])
                return all(m.status == MatchStatus.FINISHED and m.rated_at for m in done)

            wait_for(played, timeout=90, what="the worker to play the kept messages' matches")
        finally:
            worker.stop()
    assert [m.attempts for m in Match.objects.order_by("pk")] == [1, 1, 1]
    assert RatingChange.objects.count() == 2 * 3
