"""End to end on real processes: migrate, upload, and a Celery worker validating the bot.

Once with nothing configured (SQLite, the filesystem broker), once with the
Redis broker when a Redis server answers on 127.0.0.1:6379.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

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
from arena.ladders.entries import bot_submit
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
    env = _env(tmp_path, **broker)
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


def test_the_services_script_runs_web_worker_and_beat(tmp_path: Path) -> None:
    """`make run`: migrate, house bots, then gunicorn + worker + beat on the embedded defaults."""
    port = _free_port()
    env = _env(tmp_path, PORT=str(port), ARENA_RUN_SECONDS="120", WEB_WORKERS="1")
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
        deadline = time.monotonic() + 90
        answer = None
        while time.monotonic() < deadline:
            time.sleep(1)
            assert script.poll() is None, "services.sh stopped early:\n" + log_path.read_text()
            output = log_path.read_text()
            if answer is None:
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/ladders/") as reply:
                        answer = json.load(reply)
                except OSError:
                    continue
            if "celery@" in output and "beat: Starting" in output:
                break
        assert answer is not None, "the web server never answered:\n" + log_path.read_text()
        slugs = {ladder["slug"] for ladder in answer["results"]}
        assert slugs >= {"classic-4", "boulevard-4", "classic-2"}
        output = log_path.read_text()
        assert "celery@" in output and "beat: Starting" in output, output
    finally:
        os.killpg(script.pid, signal.SIGTERM)
        try:
            script.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(script.pid, signal.SIGKILL)
            script.wait()
