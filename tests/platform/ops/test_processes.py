"""The heartbeats of real processes: a Celery worker touches its file while it consumes,
and beat after each tick; `manage.py probe` (compose's healthchecks) reads them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.platform.test_broker_faults import PrivateRedis
from tests.platform.worker import (
    REDIS_URL,
    REPO_DIR,
    CeleryWorker,
    needs_redis,
    needs_shared_database,
    purge_queue,
    redis_worker,
    unique_queue,
    wait_for,
    worker_env,
)

pytestmark = [
    needs_redis,
    needs_shared_database,
    pytest.mark.django_db(transaction=True),
]


def probe(role: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(REPO_DIR / "manage.py"), "probe", role],
        env=env,
        cwd=env["ARENA_DATA_DIR"],
        capture_output=True,
        text=True,
        timeout=120,
    )


def failing(role: str, env: dict[str, str]) -> subprocess.CompletedProcess[str] | None:
    done = probe(role, env)
    return done if done.returncode else None


def test_probe_worker_passes_while_a_worker_consumes_and_fails_once_it_is_gone(
    tmp_path: Path, media_root: Path
) -> None:
    with redis_worker(tmp_path, media_root, ARENA_HEARTBEAT_SECONDS="1") as (worker, _):
        env = worker.env
        ready = probe("worker", env)
        assert ready.returncode == 0, ready.stderr
        assert ready.stdout.startswith("worker ready: heartbeat: worker-test-")
        worker.kill()
        # Killed: its file stays behind, and goes stale after four beats.
        stale = wait_for(
            lambda: failing("worker", env),
            timeout=120,
            what="the probe to fail after the worker was killed",
        )
    assert "worker not ready: heartbeat: worker-test-" in stale.stderr
    assert "s old (at most 4)" in stale.stderr


def test_a_worker_stopped_cleanly_removes_its_heartbeat(tmp_path: Path, media_root: Path) -> None:
    with redis_worker(tmp_path, media_root, ARENA_HEARTBEAT_SECONDS="1") as (worker, _):
        env = worker.env
        assert probe("worker", env).returncode == 0
        worker.stop()
    gone = probe("worker", env)
    assert gone.returncode == 1
    assert "no heartbeat file of any worker" in gone.stderr


def test_a_worker_that_loses_its_broker_fails_the_probe_until_the_broker_is_back(
    tmp_path: Path, media_root: Path
) -> None:
    broker = PrivateRedis(tmp_path)
    broker.start()
    env = worker_env(
        tmp_path, media_root, broker_url=broker.url, queue=unique_queue(),
        ARENA_HEARTBEAT_SECONDS="1",
    )  # fmt: skip
    worker = CeleryWorker(env, tmp_path / "worker.log").start()
    try:
        worker.wait_ready()
        assert probe("worker", env).returncode == 0
        broker.kill()
        lost = wait_for(
            lambda: failing("worker", env), timeout=120, what="the probe to fail without Redis"
        )
        assert "no heartbeat file of any worker" in lost.stderr
        broker.start()  # on the same port: the worker reconnects
        back = wait_for(
            lambda: (done := probe("worker", env)).returncode == 0 and done,
            timeout=120,
            what="the probe to pass once Redis is back",
        )
        assert back.stdout.startswith("worker ready: ")
    finally:
        worker.stop()
        if broker.process is not None and broker.process.poll() is None:
            broker.kill()


def test_probe_beat_passes_while_beat_ticks(tmp_path: Path, media_root: Path) -> None:
    queue = unique_queue()
    env = worker_env(
        tmp_path, media_root, broker_url=REDIS_URL, queue=queue, ARENA_HEARTBEAT_SECONDS="1"
    )
    assert "no heartbeat file of any beat" in probe("beat", env).stderr
    log = (tmp_path / "beat.log").open("wb")
    beat = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "arena",
            "beat",
            "-l",
            "info",
            "-s",
            str(tmp_path / "celerybeat-schedule"),
        ],
        env=env,
        cwd=tmp_path,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:

        def ticking() -> Any:
            assert beat.poll() is None, (tmp_path / "beat.log").read_text()
            done = probe("beat", env)
            return None if done.returncode else done

        ready = wait_for(ticking, timeout=120, what="beat's heartbeat")
        assert ready.stdout.startswith("beat ready: heartbeat: beat-")
    finally:
        os.killpg(beat.pid, signal.SIGTERM)
        beat.wait(timeout=30)
        log.close()
        purge_queue(queue)
    stopped = wait_for(
        lambda: failing("beat", env),
        timeout=120,
        what="the probe to fail after beat stopped",
    )
    assert "s old (at most 4)" in stopped.stderr
