"""Bot code a killed worker left on its disk is swept; a live process's never is.

A real process writes a bot's code the way a match does
(``arena.bots.scratch.run_folder``) and is SIGKILLed, as the OOM killer would:
its folder stays behind until a sweep, in this process or in a real worker
(when it starts, and on its timer).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.bots import scratch
from tests.platform.worker import (
    REPO_DIR,
    needs_redis,
    needs_shared_database,
    redis_worker,
    wait_for,
)

pytestmark = pytest.mark.slow

# Writes a bot's code as a run does, says where, then waits to be killed.
MAKER = """
import time
from arena.bots import scratch

folder = scratch.run_folder("b", None)
(folder / "main.py").write_text("print('a secret strategy')")
(folder / "main.py").chmod(0o640)
print(folder, flush=True)
time.sleep(600)
"""


class Makers:
    """Processes that wrote bot code under ``temp``; every one is killed at the end."""

    def __init__(self, temp: Path) -> None:
        self.temp = temp
        self.processes: list[subprocess.Popen[str]] = []

    def start(self) -> tuple[subprocess.Popen[str], Path]:
        env = {
            **os.environ,
            "TMPDIR": str(self.temp),
            "PYTHONPATH": os.pathsep.join([str(REPO_DIR), str(REPO_DIR / "platform")]),
        }
        process = subprocess.Popen(
            [sys.executable, "-c", MAKER], env=env, stdout=subprocess.PIPE, text=True
        )
        self.processes.append(process)
        assert process.stdout is not None
        folder = Path(process.stdout.readline().strip())
        assert (folder / "main.py").exists(), folder
        return process, folder

    def killed(self) -> Path:
        """The folder of a maker SIGKILLed after writing its code."""
        process, folder = self.start()
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
        return folder

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.kill()
            process.wait(timeout=10)
            if process.stdout is not None:
                process.stdout.close()


@pytest.fixture
def temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This process's TMPDIR for the test (and a fresh folder of its own in it)."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    monkeypatch.setattr(scratch, "_folder", None)
    return folder


@pytest.fixture
def makers(temp: Path) -> Iterator[Makers]:
    started = Makers(temp)
    try:
        yield started
    finally:
        started.stop()


def test_the_code_of_a_killed_process_is_swept_and_a_live_one_s_stays(
    temp: Path, makers: Makers
) -> None:
    stale = makers.killed()
    _live_process, live = makers.start()
    mine = scratch.run_folder("b", None)

    assert scratch.sweep() == 1

    assert not stale.exists() and not stale.parent.exists()
    assert (live / "main.py").exists()
    assert mine.exists()
    assert scratch.sweep() == 0  # nothing more to do


def test_a_folder_whose_owner_cannot_be_checked_here_stays(temp: Path) -> None:
    root = scratch.scratch_root()
    root.mkdir(mode=0o711)
    elsewhere = root / "other-host"
    elsewhere.mkdir()
    # A process of another host (or pid namespace) sharing this temp folder.
    (elsewhere / scratch.OWNER_FILE).write_text("another-host:4026531836:123:456")
    unowned_young = root / "half-made"
    unowned_young.mkdir()
    unowned_old = root / "half-made-long-ago"
    unowned_old.mkdir()
    long_ago = time.time() - scratch.UNOWNED_GRACE_SECONDS - 60
    os.utime(unowned_old, (long_ago, long_ago))

    assert scratch.sweep() == 1

    assert elsewhere.exists() and unowned_young.exists() and not unowned_old.exists()


def test_a_root_another_user_planted_is_refused(temp: Path) -> None:
    os.symlink(temp / "elsewhere", scratch.scratch_root())
    with pytest.raises(PermissionError, match="not a folder of this user"):
        scratch.run_folder("b", None)


@needs_shared_database
@needs_redis
@pytest.mark.django_db(transaction=True)
def test_a_worker_sweeps_when_it_starts_and_on_its_timer(
    temp: Path, makers: Makers, media_root: Path, tmp_path: Path
) -> None:
    before = makers.killed()
    _live_process, live = makers.start()
    extra: dict[str, Any] = {"TMPDIR": str(temp), "ARENA_BOT_FILES_SWEEP_SECONDS": "1"}
    with redis_worker(tmp_path, media_root, **extra) as (worker, _):
        assert not before.exists(), worker.log()[-3000:]  # swept as it started
        later = makers.killed()
        wait_for(lambda: not later.exists(), timeout=60, what="the worker's timer to sweep")
        assert (live / "main.py").exists()
        assert "removed the bot code folders of 1 dead worker processes" in worker.log()
