"""End to end on real processes: migrate, upload, and a Celery worker validating the bot.

Once with nothing configured (SQLite, the embedded Redis broker on a socket of the
data dir), once with the Redis server on 127.0.0.1:6379 when it answers. Then
`make run`'s scripts/services.sh: the broker, web, workers and beat under
supervisord, the house bots validated through that broker, and a worker or the
broker killed with SIGKILL that comes back.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager, suppress
from pathlib import Path
from typing import Any

import pytest

from tests.platform.worker import embedded_broker

pytestmark = pytest.mark.slow

REPO_DIR = Path(__file__).resolve().parents[2]

# A real bot: validation plays a pre-flight game with it in the sandbox.
BOT = b"""\
from bots_sdk import Bot, run


class First(Bot):
    def act(self, observation):
        return observation["legal_actions"][0]


run(First)
"""
UPLOAD = f"""
from arena.players.services import player_create
from arena.ladders.flows import bot_submit
alice = player_create(username="alice")
version = bot_submit(owner=alice, name="shark", filename="shark.py", content={BOT!r})
print(version.status)
"""


def _redis_up() -> bool:
    try:
        with socket.create_connection(("127.0.0.1", 6379), timeout=0.5):
            return True
    except OSError:
        return False


def _env(data_dir: Path, **extra: str) -> dict[str, str]:
    cleared = ("DATABASE_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "SECRET_KEY")
    env = {k: v for k, v in os.environ.items() if k not in cleared}
    env.update(
        ARENA_DATA_DIR=str(data_dir),
        DJANGO_SETTINGS_MODULE="arena.settings",
        PYTHONPATH=os.pathsep.join([str(REPO_DIR), str(REPO_DIR / "platform")]),
        CELERY_TASK_ALWAYS_EAGER="0",
        **extra,
    )
    return env


def _manage(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(REPO_DIR / "manage.py"), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""


@pytest.mark.parametrize(
    "broker",
    [
        pytest.param({}, id="embedded"),
        pytest.param(
            {"CELERY_BROKER_URL": "redis://127.0.0.1:6379/15"},
            id="redis",
            marks=pytest.mark.skipif(not _redis_up(), reason="no Redis on 127.0.0.1:6379"),
        ),
    ],
)
def test_a_worker_validates_an_uploaded_bot(tmp_path: Path, broker: dict[str, str]) -> None:
    with ExitStack() as stack:
        if not broker:
            stack.enter_context(embedded_broker(tmp_path))
        _validate_an_upload(_env(tmp_path, **broker), tmp_path)


def _validate_an_upload(env: dict[str, str], tmp_path: Path) -> None:
    _manage(env, "migrate", "-v0")
    assert _manage(env, "shell", "-c", UPLOAD) == "pending"

    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "arena", "worker", "--pool=solo", "-l", "warning"],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        status = "pending"
        while status != "active" and time.monotonic() < deadline:
            time.sleep(0.5)
            # Read the SQLite file directly: much faster than a Django process per poll.
            with sqlite3.connect(tmp_path / "arena.sqlite3") as db:
                (status,) = db.execute("SELECT status FROM bots_botversion").fetchone()
        assert status == "active"
    finally:
        worker.send_signal(signal.SIGTERM)
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def _services(tmp_path: Path, **extra: str) -> Iterator[tuple[subprocess.Popen[bytes], int, Path]]:
    """scripts/services.sh (`make run`) on the embedded defaults in tmp_path: the
    process, its web port and its output file; stopped, whole, on the way out."""
    port = _free_port()
    env = _env(tmp_path, PORT=str(port), ARENA_RUN_SECONDS="240", WEB_WORKERS="1", **extra)
    env["PYTHON"] = sys.executable
    log_path = tmp_path / "services.log"
    with log_path.open("w") as log:
        script = subprocess.Popen(
            ["bash", str(REPO_DIR / "scripts" / "services.sh")],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, stopped as a whole below
        )
    try:
        yield script, port, log_path
    finally:
        os.killpg(script.pid, signal.SIGTERM)
        # supervisord gives each program stopwaitsecs (20 s) before it kills its
        # group: wait past that, or a slow program outlives a killed supervisord.
        with suppress(subprocess.TimeoutExpired):
            script.wait(timeout=60)
        # Whatever is left of the group (a killed worker's orphans included).
        with suppress(ProcessLookupError):
            os.killpg(script.pid, signal.SIGKILL)
        script.wait()
        # Each program runs in a process group of its own (supervisord's doing), out of
        # reach of the kill above: end any group the log says was spawned and is alive.
        for pid in map(int, SPAWNED.findall(log_path.read_text(errors="replace"))):
            if _ours(pid, tmp_path):
                with suppress(ProcessLookupError):
                    os.killpg(pid, signal.SIGKILL)


#: supervisord's line for a program it started: its process is its group's leader.
SPAWNED = re.compile(r"spawned: '\w+' with pid (\d+)")


def _ours(pid: int, data_dir: Path) -> bool:
    """Whether ``pid`` is still a program this test's services.sh started (not a reused
    pid): it runs with this test's data dir in its environment, or, for the broker
    (Redis writes its title over its command line and environment), its command line."""
    try:
        environ = Path(f"/proc/{pid}/environ").read_bytes()
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return f"ARENA_DATA_DIR={data_dir}".encode() in environ.split(b"\0") or (
        f"{data_dir}/".encode() in command
    )


def _healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as reply:
            return bool(reply.status == 200)
    except OSError:
        return False


def _wait_for(
    what: str,
    check: Callable[[], bool],
    script: subprocess.Popen[bytes],
    log: Path,
    seconds: float = 90,
) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert script.poll() is None, "services.sh stopped early:\n" + log.read_text()
        assert time.monotonic() < deadline, f"never {what}:\n" + log.read_text()
        time.sleep(0.5)


def _read(path: Path) -> str:
    return path.read_text(errors="replace") if path.exists() else ""


def test_the_services_script_runs_web_worker_and_beat(tmp_path: Path) -> None:
    """`make run`: migrate, house bots, then gunicorn + worker + beat on the embedded defaults."""
    with _services(tmp_path) as (script, port, log_path):
        answer: dict[str, Any] = {}

        def ladders() -> bool:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/ladders/") as reply:
                    answer.update(json.load(reply))
            except OSError:
                return False
            return True

        _wait_for("web answered", ladders, script, log_path)
        slugs = {ladder["slug"] for ladder in answer["results"]}
        assert slugs >= {"classic-4", "boulevard-4", "classic-2"}
        logs = tmp_path / "log"
        _wait_for(
            "worker, ratings, tables and builds workers and beat started",
            lambda: (
                "celery@" in _read(logs / "worker.log")
                and "beat: Starting" in _read(logs / "beat.log")
                # The ratings, tables and builds workers read their own queue alone.
                and all(
                    f"{lane}@" in _read(logs / f"{lane}.log")
                    and f".> celery.{lane} " in _read(logs / f"{lane}.log")
                    for lane in ("ratings", "tables", "builds")
                )
            ),
            script,
            log_path,
        )
        # The match worker reads matches and ratings, never the tables' or builds' queue.
        worker_log = _read(logs / "worker.log")
        assert ".> celery " in worker_log and ".> celery.ratings " in worker_log
        assert ".> celery.sweeps " in worker_log  # beat's sweeps, beside the ratings worker
        assert ".> celery.tables " not in worker_log and ".> celery.builds " not in worker_log
        # Said once `supervisorctl start all` returned, which may be after the workers
        # wrote their first lines.
        _wait_for(
            "the script to say where the logs are",
            lambda: f"logs in {logs}" in log_path.read_text(),
            script,
            log_path,
        )
        # On the embedded broker (Redis on the data dir's socket), which carried the house
        # bots' pre-flights from the set-up to the builds worker.
        broker = f"redis+socket://{tmp_path / 'run' / 'redis.sock'}"
        assert f"transport:   {broker}" in worker_log

        def a_house_bot_validated() -> bool:
            with sqlite3.connect(tmp_path / "arena.sqlite3") as db:
                statuses = {
                    status for (status,) in db.execute("SELECT status FROM bots_botversion")
                }
            return "active" in statuses

        _wait_for("a house bot validated", a_house_bot_validated, script, log_path, seconds=180)


def test_a_killed_worker_comes_back(tmp_path: Path) -> None:
    """supervisord restarts a worker killed with SIGKILL; the web keeps answering."""
    spawned = re.compile(r"spawned: 'worker' with pid (\d+)")
    worker_log = tmp_path / "log" / "worker.log"
    with _services(tmp_path, WORKER_CONCURRENCY="1") as (script, port, log_path):

        def worker_pids() -> list[int]:
            return [int(pid) for pid in spawned.findall(log_path.read_text())]

        _wait_for(
            "worker ready",
            lambda: bool(worker_pids()) and _read(worker_log).count(" ready.") == 1,
            script,
            log_path,
        )
        _wait_for("web healthy", lambda: _healthy(port), script, log_path)
        (first,) = worker_pids()
        os.kill(first, signal.SIGKILL)

        _wait_for(
            "a new worker ready",
            lambda: len(worker_pids()) == 2 and _read(worker_log).count(" ready.") == 2,
            script,
            log_path,
        )
        second = worker_pids()[1]
        assert second != first
        os.kill(second, 0)  # alive
        assert _healthy(port)

        # The broker too: killed mid-write, it reloads its queue as it is and needs no repair.
        brokers = re.compile(r"spawned: 'broker' with pid (\d+)")
        (broker,) = map(int, brokers.findall(log_path.read_text()))
        os.kill(broker, signal.SIGKILL)
        _wait_for(
            "the broker back",
            lambda: (
                len(brokers.findall(log_path.read_text())) == 2
                and "ready to accept connections at"
                in _read(tmp_path / "log" / "broker.log").split("Redis is starting")[-1]
            ),
            script,
            log_path,
        )
        # And the worker reconnects to it, with no restart of its own.
        _wait_for(
            "the worker reconnected",
            lambda: _read(worker_log).count("Connected to redis+socket://") >= 2,
            script,
            log_path,
        )
        assert len(worker_pids()) == 2
