"""The referee with sandboxed bots (skipped where the sandbox cannot run)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from bots_sdk import sandbox
from bots_sdk.faults import FaultKind
from bots_sdk.kits import kit_text
from bots_sdk.launcher import BotSpec, house_bot, launch_bot, resolve_bot, sandbox_problem
from bots_sdk.protocol import Limits
from bots_sdk.referee import GameRecord, Match
from tests.bots_sdk.botkit import RAW_BOT, gone, processes_with
from vegas_engine import describe

pytestmark = pytest.mark.skipif(
    sandbox_problem() is not None, reason=f"sandbox unavailable: {sandbox_problem()}"
)

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = Limits()


@pytest.fixture
def public_dir() -> Iterator[Path]:
    """A folder the bot user can read (pytest's tmp_path is private to root)."""
    folder = Path(tempfile.mkdtemp(prefix="vegas-referee-test-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def write(folder: Path, name: str, source: str) -> BotSpec:
    (folder / name).write_text(source)
    (folder / name).chmod(0o644)
    spec = resolve_bot(str(folder / name))
    assert not spec.trusted
    return spec


def play(spec: BotSpec, limits: Limits = DEFAULT) -> tuple[GameRecord, Match, list[int]]:
    pids: list[int] = []

    def recording(spec: BotSpec, limits: Limits) -> sandbox.BotProcess:
        process = launch_bot(spec, limits)
        pids.append(process.pid)
        return process

    with Match([spec, house_bot("random")], limits, launcher=recording) as match:
        record = match.play(describe("classic", 2), 3, [0, 1])
    return record, match, pids


def test_sdk_bot_plays_in_the_sandbox(public_dir: Path) -> None:
    spec = write(public_dir, "starter.py", kit_text("python", "main.py", name="starter"))
    record, match, pids = play(spec)
    assert not record.faults
    assert record.seats[0].startup_ms is not None and record.seats[0].decision_ms
    (outcome,) = match.outcomes[0]
    assert not outcome.trusted and outcome.exit_code == 0
    assert outcome.memory_peak_bytes and outcome.pids_peak
    assert all(gone(pid) for pid in pids)


@pytest.mark.parametrize(
    ("mode", "kind"),
    [
        ("crash", FaultKind.CRASHED),
        ("timeout", FaultKind.TIMEOUT),
        ("illegal", FaultKind.ILLEGAL_ACTION),
        ("child_crash", FaultKind.CRASHED),
    ],
)
def test_faults_in_the_sandbox(public_dir: Path, mode: str, kind: FaultKind) -> None:
    marker = str(public_dir / "bot.py")
    spec = write(public_dir, "bot.py", RAW_BOT.format(mode=mode, at=2, marker=marker))
    record, _, pids = play(spec, Limits(decision_ms=500))
    fault = record.seats[0].fault
    assert fault is not None and fault.kind is kind, fault
    assert fault.request is not None and fault.request["id"] == 2
    assert f"fault now: {mode}" in fault.stderr_tail
    assert fault.resources["memory_peak_bytes"]
    assert record.result[0]["forfeited"] and record.result[1]["rank"] == 1
    assert all(gone(pid) for pid in pids)
    assert processes_with(marker) == []


MEMORY_HOG = """
from bots_sdk import Bot, run


class Hog(Bot):
    def act(self, observation):
        hoard = []
        while True:
            hoard.append(bytearray(16 * 2**20))
        return observation["legal_actions"][0]


if __name__ == "__main__":
    run(Hog)
"""


def test_memory_limit_is_an_out_of_memory_fault(public_dir: Path) -> None:
    spec = write(public_dir, "hog.py", MEMORY_HOG)
    record, _, _ = play(spec, Limits(memory_bytes=64 * 2**20, decision_ms=3000))
    fault = record.seats[0].fault
    assert fault is not None and fault.kind is FaultKind.OUT_OF_MEMORY, fault
    assert fault.resources["oom_killed"]


def test_validate_runs_in_the_sandbox(public_dir: Path) -> None:
    write(public_dir, "main.py", kit_text("python", "main.py", name="starter"))
    run = subprocess.run(
        [sys.executable, "-m", "bots_sdk", "validate", str(public_dir), "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert '"ok": true' in run.stdout
