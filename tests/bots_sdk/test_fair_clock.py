"""A bot is charged the time it could run, not the host's (bots_sdk.referee._Clock).

The host's cores are saturated by other processes, each in its own cgroup (other
bots, sandboxed) or its own session (anything else on the machine), several per
core. A sandboxed bot that burns 80% of its decision limit in CPU at every
decision never forfeits; the same bot at 120% forfeits at its first decision. What
is checked is what the bot did (its CPU, the time charged), never the host's pace.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from bots_sdk import referee, sandbox
from bots_sdk.faults import FaultKind
from bots_sdk.launcher import BotSpec, house_bot, sandbox_config
from bots_sdk.protocol import Limits
from bots_sdk.referee import STALL_FLOOR_S, GameRecord, HostStalledError, Match, _Clock
from bots_sdk.sandbox import CpuTimes, SandboxUnavailableError, check_host, cpu_steal, most_stolen
from vegas_engine import describe

pytestmark = pytest.mark.slow

#: A raw bot that spins its own thread's CPU clock for a share of each decision's limit.
SPINNER = """\
import json, sys, time

SHARE = {share}
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({{"type": "ready", "protocol": 1, "name": "spinner"}}), flush=True)
    elif message["type"] == "request":
        spend = SHARE * message["time_left_ms"] / 1000
        start = time.thread_time()
        while time.thread_time() - start < spend:
            pass
        action = message["observation"]["legal_actions"][0]
        print(json.dumps({{"type": "action", "id": message["id"], "action": action}}), flush=True)
    elif message["type"] == "shutdown":
        break
"""
HOG = "while True:\n    pass\n"
LIMITS = Limits(startup_ms=5_000, decision_ms=100, bank_ms=1_000_000)
DECISIONS = 100


@pytest.fixture(scope="module")
def bots_root() -> Iterator[Path]:
    try:
        check_host(sandbox_config())
    except SandboxUnavailableError as error:
        pytest.fail(str(error), pytrace=False)
    root = Path(tempfile.mkdtemp(prefix="vegas-fair-clock-"))
    root.chmod(0o711)
    yield root
    shutil.rmtree(root, ignore_errors=True)


def bot_dir(root: Path, name: str, source: str) -> Path:
    folder = root / name
    folder.mkdir(mode=0o755)
    (folder / "main.py").write_text(source)
    (folder / "main.py").chmod(0o644)
    return folder


@pytest.fixture(scope="module")
def saturated(bots_root: Path) -> Iterator[int]:
    """Three busy processes per core, half as sandboxed bots (a cgroup each), half in
    their own sessions; all killed at the end, whatever happened."""
    folder = bot_dir(bots_root, "hog", HOG)
    bare = [sys.executable, "-I", f"{sandbox.BOT_MOUNT}/main.py"]
    hogs: list[sandbox.BotProcess] = []
    try:
        for index in range(3 * (os.cpu_count() or 1)):
            trusted = bool(index % 2)
            hogs.append(
                sandbox.launch(
                    bare if trusted else sandbox.runtime_python_command("main.py"),
                    bot_dir=folder,
                    limits=sandbox.SandboxLimits(),
                    trusted=trusted,
                    config=sandbox_config(),
                )
            )
        yield len(hogs)
    finally:
        for hog in hogs:
            hog.close()


def spinner(root: Path, share: float) -> BotSpec:
    folder = bot_dir(root, f"spinner-{share}", SPINNER.format(share=share))
    return BotSpec(name=f"spinner-{share}", bot_dir=folder, main="main.py", trusted=False)


def play_until(spec: BotSpec, decisions: int) -> list[GameRecord]:
    """Games of classic for two, the spinner at seat 0, until it made ``decisions``
    decisions or forfeited."""
    records: list[GameRecord] = []
    made = 0
    with Match([spec, house_bot("random")], LIMITS, seed_once_per_process=True) as match:
        seed = 1
        while made < decisions:
            record = match.play(describe("classic", 2), seed, [0, 1])
            records.append(record)
            made += len(record.seats[0].decision_ms)
            if record.seats[0].fault is not None:
                break
            seed += 1
    return records


def test_a_bot_using_80_percent_of_its_limit_never_forfeits_on_a_saturated_host(
    bots_root: Path, saturated: int
) -> None:
    records = play_until(spinner(bots_root, 0.8), DECISIONS)
    seats = [record.seats[0] for record in records]
    assert [seat.fault for seat in seats] == [None] * len(seats)
    charged = [ms for seat in seats for ms in seat.decision_ms]
    assert len(charged) >= DECISIONS
    # Charged what it ran: at least the CPU it spun, never its whole limit.
    assert all(0.8 * LIMITS.decision_ms <= ms < LIMITS.decision_ms for ms in charged)
    for record, seat in zip(records, seats, strict=True):
        logged = record.log["referee"]["seats"][0]["resources"]
        assert logged == seat.resources
        # Every game's own CPU (the process plays several): its decisions' spins and more.
        assert logged["cpu_seconds"] >= 0.8 * sum(seat.decision_ms) / 1000
        assert logged["memory_peak_bytes"] > 0 and logged["pids_peak"] >= 1
        assert logged["charged_ms"] >= sum(seat.decision_ms) - 0.01  # rounded to µs
    # The host did make it wait, and that wait was not charged.
    assert sum(seat.resources["cpu_wait_ms"] for seat in seats) > 0


def test_the_same_bot_at_120_percent_forfeits(bots_root: Path, saturated: int) -> None:
    (record,) = play_until(spinner(bots_root, 1.2), DECISIONS)
    fault = record.seats[0].fault
    assert fault is not None and fault.kind is FaultKind.TIMEOUT
    assert fault.request is not None and fault.request["id"] == 1
    assert fault.elapsed_ms is not None and fault.elapsed_ms >= LIMITS.decision_ms
    assert record.seats[0].resources["cpu_seconds"] >= LIMITS.decision_ms / 1000


class _Host:
    """The hypervisor as the clock reads it: seconds stolen from each of two CPUs."""

    def __init__(self) -> None:
        self.stolen = [0.0, 0.0]

    def cpu_steal(self) -> tuple[float, ...]:
        return tuple(self.stolen)


@pytest.fixture
def host(monkeypatch: pytest.MonkeyPatch) -> _Host:
    """The clocks below read this host's steal, not the real one's (which moves on a VM)."""
    fake = _Host()
    monkeypatch.setattr(referee, "cpu_steal", fake.cpu_steal)
    return fake


class _Starved:
    """A process as the clock reads it: ``cpu`` seconds used, ``wait`` waited. (The
    clocks below leave the referee's own wait out: ``referee_wait`` infinite.)"""

    def __init__(self) -> None:
        self.cpu = 0.0
        self.wait = 0.0

    def cpu_times(self) -> CpuTimes:
        return CpuTimes(self.cpu, self.wait)


def test_the_deadline_moves_on_by_what_the_limit_has_left(host: _Host) -> None:
    process = _Starved()
    clock = _Clock(process, 0.1, 1000.0, referee_wait=float("inf"))  # type: ignore[arg-type]
    # 0.1 s later it waited 0.06 s for a CPU: charged 0.04, 0.06 left.
    process.wait = 0.06
    assert not clock.expired(1000.1)
    assert clock.deadline == pytest.approx(1000.16)
    # It ran the rest: its limit is used up.
    process.cpu = 0.1
    assert clock.expired(1000.16)


def test_cpu_used_is_charged_even_when_the_cgroup_was_waiting(host: _Host) -> None:
    # Threads beyond its quota keep a cgroup "waiting" while it burns CPU: charged the CPU.
    process = _Starved()
    clock = _Clock(process, 0.1, 1000.0, referee_wait=float("inf"))  # type: ignore[arg-type]
    process.cpu, process.wait = 0.12, 0.2
    assert clock.charged(1000.2)[0] == pytest.approx(0.12)
    assert clock.expired(1000.2)


def test_a_host_that_stalls_for_long_ends_the_game_as_its_own_failure(host: _Host) -> None:
    process = _Starved()
    clock = _Clock(process, 0.1, 1000.0, referee_wait=float("inf"))  # type: ignore[arg-type]
    process.wait = STALL_FLOOR_S + 1  # waited all along, ran nothing
    with pytest.raises(HostStalledError, match="too loaded to play fairly"):
        clock.expired(1000.0 + STALL_FLOOR_S + 1)


def test_time_the_hypervisor_stole_is_not_charged(host: _Host) -> None:
    # A spinning bot's CPU was stolen 0.03 s while it ran: seen by neither its CPU time
    # nor its wait, only by the host's steal. The CPU that lost the most counts.
    process = _Starved()
    clock = _Clock(process, 0.1, 1000.0, referee_wait=float("inf"))  # type: ignore[arg-type]
    process.cpu = 0.08
    host.stolen = [0.01, 0.03]
    charged, waited, _ = clock.charged(1000.11)
    assert charged == pytest.approx(0.08) and waited == pytest.approx(0.03)
    assert not clock.expired(1000.11)
    # Steal never brings the charge below the CPU the bot used.
    process.cpu = 0.1
    assert clock.charged(1000.11)[0] == pytest.approx(0.1)
    assert clock.expired(clock.deadline)


def test_steal_is_read_per_cpu_and_compared_only_between_like_readings() -> None:
    assert len(cpu_steal()) == os.cpu_count()
    assert all(seconds >= 0 for seconds in cpu_steal())
    assert most_stolen((1.0, 2.0), (1.5, 2.25)) == pytest.approx(0.5)
    assert most_stolen((1.0,), (1.5, 2.0)) == 0.0  # a CPU came online: no reading
    assert most_stolen((), ()) == 0.0
