"""A private PostgreSQL server killed and restarted under a real worker in mid-game.

Everything runs in processes of their own against a server of this test's
own (so it can be killed): migrate, the setup, a Celery worker. The server
dies (``pg_ctl stop -m immediate``: as a crash) while a match is played and
comes back seconds later. Nothing is lost, nothing stays stuck, nothing is
rated twice: the attempt that lost its database is failed and the match
played again, finished once, rated once.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from .conftest import ThrowawayPostgres
from .worker import (
    REDIS_URL,
    REPO_DIR,
    CeleryWorker,
    needs_redis,
    process_env,
    protocol_bot,
    purge_queue,
    unique_queue,
    wait_for,
)

pytestmark = [pytest.mark.slow, needs_redis]

THINKER = protocol_bot(prelude="import time", before="time.sleep(0.2)")
SETUP = f"""
from arena.bots.models import VersionStatus
from arena.bots.services import bot_create, bot_version_transition, bot_version_upload
from arena.ladders.flows import ladder_create
from arena.ladders.tasks import publish_runs
from arena.matches.services import match_create
from arena.players.services import player_create

ladder = ladder_create(slug="classic-2", name="Classic 2", rules="classic", seats=2,
                       time_bank_ms=60_000)
versions = []
for name in ("alice", "bob"):
    bot = bot_create(owner=player_create(username=name), name=f"thinker-{{name}}")
    version = bot_version_upload(bot=bot, filename="main.py", content={THINKER!r})
    version = bot_version_transition(version=version, to=VersionStatus.VALIDATING)
    versions.append(bot_version_transition(version=version, to=VersionStatus.ACTIVE))
match = match_create(ladder_id=ladder.pk, game=ladder.game, versions=versions)
publish_runs([match.pk])
print("match", match.pk)
"""


class RestartablePostgres(ThrowawayPostgres):
    """The tests' throwaway server, with a crash and a restart of the same data.

    Durable as a real server (fsync and synchronous commits on): without them a
    crash may lose a commit the worker already saw, such as its match's start.
    """

    durability = ""

    def crash(self) -> None:
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")

    def restart(self) -> None:
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1"
        log = str(self.root / "server.log")
        self._run(
            str(self.bindir / "pg_ctl"), "-D", str(self.data), "-o", options, "-l", log, "-w",
            "start",
        )  # fmt: skip

    def create_database(self) -> None:
        self._run(
            str(self.bindir / "createdb"), "-h", "127.0.0.1", "-p", str(self.port),
            "-U", "postgres", "arena",
        )  # fmt: skip


@pytest.fixture
def postgres() -> Iterator[RestartablePostgres]:
    found = ThrowawayPostgres.find()
    if found is None:
        pytest.fail("no PostgreSQL binaries in /usr/lib/postgresql: apt-get install postgresql")
    server = RestartablePostgres(found.bindir)
    server.start()
    server.create_database()
    yield server
    server.stop()


def manage(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(REPO_DIR / "manage.py"), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def row(url: str, sql: str) -> tuple[Any, ...] | None:
    """One row, or None while the server is down."""
    try:
        with psycopg.connect(url, connect_timeout=2) as db:
            return db.execute(sql).fetchone()
    except psycopg.OperationalError:
        return None


def test_a_postgres_crash_mid_game_loses_nothing_and_rates_once(
    postgres: RestartablePostgres, tmp_path: Path
) -> None:
    queue = unique_queue()
    env = process_env(
        tmp_path,
        DATABASE_URL=postgres.url,
        DATABASE_CONN_MAX_AGE="0",
        CELERY_BROKER_URL=REDIS_URL,
        CELERY_TASK_DEFAULT_QUEUE=queue,
        ARENA_MATCH_RETRY_BASE_SECONDS="1",
        MEDIA_ROOT=str(tmp_path / "media"),
        SECRET_KEY="tests-only-secret-key",
    )
    url = postgres.url.replace("postgres://", "postgresql://", 1)
    manage(env, "migrate", "-v0")
    match_id = int(manage(env, "shell", "-c", SETUP).split()[-1])
    status = (
        f"SELECT status, attempts, rated_at IS NOT NULL FROM matches_match WHERE id = {match_id}"
    )
    worker = CeleryWorker(env, tmp_path / "worker.log").start()
    try:
        worker.wait_ready()
        wait_for(
            lambda: (found := row(url, status)) is not None and found[0] == "running",
            timeout=60,
            what="the worker to start the match",
        )
        postgres.crash()
        time.sleep(3)  # the worker meets a dead database: its game ends unrecorded
        postgres.restart()

        def rated() -> tuple[Any, ...] | None:
            found = row(url, status)
            if found is not None and found[0] in ("failed_infra", "cancelled"):
                raise AssertionError(f"the match was lost: {found}\n{worker.log()[-3000:]}")
            return found if found is not None and found[0] == "finished" and found[2] else None

        final = wait_for(rated, timeout=180, what="the match to be played again and rated")
    finally:
        worker.stop()
        purge_queue(queue)
    assert final[1] >= 2, worker.log()[-3000:]  # the attempt that lost its database did not count
    changes = row(url, f"SELECT count(*) FROM ladders_ratingchange WHERE match_id = {match_id}")
    assert changes == (2,)  # once: one change per rating
    ranks = row(url, f"SELECT count(rank) FROM matches_participant WHERE match_id = {match_id}")
    assert ranks == (2,)
