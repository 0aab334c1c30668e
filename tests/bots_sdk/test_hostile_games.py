"""Hostile bots as seats in real games: sandboxed, through the referee, against house bots.

Every case is a real bot file, ``hostile/game_<case>.py`` (SDK bots that
misbehave inside ``act()``, or raw scripts where the SDK would stand in the
way), copied to its own directory and run in the real sandbox (bubblewrap,
cgroups, seccomp; ``trusted=False``) in a 2-seat classic game against the house
``random`` bot (the ``signals`` case adds a second, sandboxed neighbour).

For every case: the game completes with a result for every seat (a whole game
replayed from the log, money matching the payouts), the hostile seat forfeits
with the exact fault (kind, message, the request it failed on, what it sent,
exit status or signal, stderr tail) or, for behaviours that keep to the
protocol, plays to the end without a fault and reports on stderr what it was
denied. And afterwards: no process of the bot user and no bot cgroup of this
worker is left, the worker's fds and children are as before, the TCP port and
the abstract unix socket the worker listens on got no connection, and the
worker's secret (an environment variable, files) appears nowhere a bot could
print it.
"""

from __future__ import annotations

import dataclasses
import errno
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sized
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bots_sdk.faults import FaultKind
from bots_sdk.launcher import HOUSE_BOTS, HOUSE_DIR, BotSpec, house_bot, sandbox_config
from bots_sdk.protocol import Limits
from bots_sdk.referee import GameRecord, Match
from bots_sdk.sandbox import ProcessOutcome, SandboxLimits, SandboxUnavailableError, check_host
from bots_sdk.sandbox._cgroups import worker_prefix
from vegas_engine import describe
from vegas_engine.log import check
from vegas_engine.replay import final_result, replay

pytestmark = pytest.mark.slow

HOSTILE = Path(__file__).parent / "hostile"
REPO = Path(__file__).resolve().parents[2]
MiB = 2**20
LIMITS = Limits(startup_ms=5000, decision_ms=1000, bank_ms=20_000, memory_bytes=128 * MiB)
SANDBOX = SandboxLimits()  # what the launcher gives besides memory and CPU
SECRET_PREFIX = "vegas-hostile-secret"
KILLED = signal.SIGKILL


# ------------------------------------------------------------------ the world


@dataclass
class World:
    """What the worker (this test process) has that a bot must not reach."""

    uid: int
    gid: int
    cgroup_parents: tuple[str, ...]
    bots_root: Path
    port: int
    socket_name: str
    listeners: tuple[socket.socket, socket.socket]
    secret: str = ""
    targets: dict[str, str] = field(default_factory=dict)


@pytest.fixture(scope="module")
def world() -> Iterator[World]:
    try:
        host = check_host(sandbox_config())
    except SandboxUnavailableError as error:
        pytest.fail(str(error), pytrace=False)
    bots_root = Path(tempfile.mkdtemp(prefix="vegas-hostile-games-"))
    bots_root.chmod(0o711)  # the bot user may traverse it, not list it
    name = f"vegas-hostile-{uuid.uuid4().hex}"
    with (
        socket.create_server(("127.0.0.1", 0)) as tcp,
        socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as unix,
    ):
        unix.bind("\0" + name)
        unix.listen()
        for server in (tcp, unix):
            server.setblocking(False)
        yield World(
            uid=host.uid,
            gid=host.gid,
            cgroup_parents=host.cgroups.parent_paths(),
            bots_root=bots_root,
            port=tcp.getsockname()[1],
            socket_name=name,
            listeners=(tcp, unix),
        )
    shutil.rmtree(bots_root, ignore_errors=True)


@pytest.fixture
def secrets(world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    """A secret in the worker's environment, in the test's tmp directory and in
    another bot's directory (readable by the bot user on the host)."""
    world.secret = f"{SECRET_PREFIX}-{uuid.uuid4().hex}"
    monkeypatch.setenv("VEGAS_HOSTILE_SECRET", world.secret)
    (tmp_path / "worker-private.txt").write_text(f"{world.secret}-tmp\n")
    other = make_bot_dir(world, files={"main.py": f"# {world.secret}-other-bot\n"})
    world.targets = {
        "tmp_dir": str(tmp_path),
        "tmp_file": str(tmp_path / "worker-private.txt"),
        "other_bot_dir": str(other),
        "other_bot_file": str(other / "main.py"),
        "bots_root": str(world.bots_root),
        "worker_dir": str(REPO),
        "worker_file": str(REPO / "pyproject.toml"),
    }
    return world


def make_bot_dir(world: World, files: dict[str, str]) -> Path:
    bot_dir = Path(tempfile.mkdtemp(dir=world.bots_root, prefix="bot-"))
    bot_dir.chmod(0o755)
    for name, text in files.items():
        (bot_dir / name).write_text(text)
        (bot_dir / name).chmod(0o644)
    return bot_dir


# ------------------------------------------------------------------ the cases


@dataclass(frozen=True)
class Case:
    """One hostile behaviour: ``hostile/game_<bot>.py`` and what must come of it."""

    bot: str
    #: None: the bot keeps to the protocol and plays the whole game without a fault
    kind: FaultKind | None = None
    #: the fault's exact message; "{legal}" stands for the request's legal actions
    message: str = ""
    #: id of the request it failed on (None: during start-up)
    request: int | None = 2
    #: decisions the referee timed (a bad reply that came in time counts)
    answered: int | None = None
    #: regular expression that what it sent must match (None: it sent nothing)
    sent: str | None = None
    exit_code: int | None = None
    signal: int | None = KILLED
    #: lines its stderr must hold (regular expressions; "{port}", "{socket}", ...)
    stderr: tuple[str, ...] = ()
    limits: Limits = LIMITS
    seat: int = 0
    check: Callable[[Played], None] | None = None

    @property
    def timed(self) -> int:
        """How many of its decisions the referee timed before the fault."""
        if self.request is None:
            return 0
        return self.request - 1 if self.answered is None else self.answered


@dataclass
class Played:
    case: Case
    world: World
    record: GameRecord
    seat: int
    outcomes: list[list[ProcessOutcome]]
    #: the host processes of the hostile bot when the game ended (before shutdown)
    during: list[int]
    bot_dir: Path

    @property
    def outcome(self) -> ProcessOutcome:
        (outcome,) = self.outcomes[0]
        return outcome

    @property
    def stderr(self) -> str:
        return self.outcome.stderr_tail.decode("utf-8", errors="replace")


def no_reply(ms: int = LIMITS.decision_ms) -> str:
    return f"no reply within {ms} ms"


def check_memory(played: Played) -> None:
    resources = played.record.seats[played.seat].resources
    assert resources["oom_killed"] is True
    assert resources["memory_peak_bytes"] <= LIMITS.memory_bytes
    assert "hostile: survived" not in played.stderr


def check_threads(played: Played) -> None:
    # 8 threads hashing in parallel would use both cores; the cgroup holds them to half of one
    cores = played.case.limits.cpu_cores
    used = played.outcome.cpu_seconds
    assert used is not None
    assert used <= cores * played.outcome.wall_seconds + 0.3, (used, played.outcome.wall_seconds)
    assert played.outcome.pids_peak is not None and played.outcome.pids_peak >= 3 + 8


def check_fork_bomb(played: Played) -> None:
    assert played.outcome.pids_peak == SANDBOX.pids
    assert len(played.during) >= SANDBOX.pids - 4  # the bomb was still there at the end


def check_daemon(played: Played) -> None:
    # bwrap's monitor and reaper, the bot and its daemon, all still there at the end
    assert len(played.during) >= 4
    assert played.outcome.pids_peak is not None and played.outcome.pids_peak >= 4


def check_stderr_flood(played: Played) -> None:
    assert played.outcome.stderr_truncated
    assert len(played.outcome.stderr_tail) == 4096
    assert re.fullmatch(r"[flod \n]+", played.stderr)


def check_huge_file(played: Played) -> None:
    tmp = re.search(
        r"hostile: /tmp/huge: wrote (\d+) bytes, then OSError errno (\d+)", played.stderr
    )
    assert tmp is not None
    assert 0 < int(tmp[1]) <= SANDBOX.tmp_bytes and int(tmp[2]) in (errno.EFBIG, errno.ENOSPC)
    shm = re.search(
        r"hostile: /dev/shm/huge: wrote (\d+) bytes, then OSError errno 28", played.stderr
    )
    assert shm is not None and int(shm[1]) <= SANDBOX.shm_bytes
    assert [path.name for path in played.bot_dir.iterdir() if "huge_file" not in path.name] == []


def check_open_files(played: Played) -> None:
    opened = re.search(r"hostile: opened (\d+) files, then OSError errno 24", played.stderr)
    assert opened is not None and 32 < int(opened[1]) < SANDBOX.open_files


def check_syscalls(played: Played) -> None:
    line = re.search(r"hostile: syscalls: (.*)", played.stderr)
    assert line is not None
    results = dict(item.split(" ", 1) for item in line[1].split(", "))
    assert results.pop("clone3") == f"-1 {errno.ENOSYS}"  # libc falls back to clone
    assert results.pop("cachestat") == f"-1 {errno.ENOSYS}"  # newer than the filter knows
    assert len(results) == 25
    assert {"memfd_secret", "landlock_create_ruleset", "pidfd_open", "clone_pidfd"} <= set(results)
    assert {name: r for name, r in results.items() if r != f"-1 {errno.EPERM}"} == {}


def check_early_flood(played: Played) -> None:
    # The referee read the first chunk of the flood with the reply, then one small piece.
    fault = played.record.seats[played.seat].fault
    assert fault is not None and fault.sent is not None
    clipped = re.search(r"\.\.\. \((\d+) bytes\)$", fault.sent)
    seen = int(clipped[1]) if clipped else len(fault.sent)
    assert seen <= 64 * 1024 + 1024, seen


def check_environ(played: Played) -> None:
    keys = re.search(r"hostile: environ keys: (.*)", played.stderr)
    assert keys is not None
    runtime = ["HOME", "LANG", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "PATH", "PWD"]
    given = ["HOSTILE_PORT", "HOSTILE_SOCKET", "HOSTILE_TARGETS", "HOSTILE_WORKER_PID"]
    assert keys[1].split() == sorted(runtime + given)  # nothing of the worker's


CASES = [
    # ---- resources
    Case(
        "memory",
        FaultKind.OUT_OF_MEMORY,
        "killed by the sandbox for going over its memory limit",
        stderr=("hostile: allocating 2 GiB", "allocated 32 MiB"),
        check=check_memory,
    ),
    Case("busy_loop", FaultKind.TIMEOUT, no_reply(), stderr=("hostile: spinning",)),
    Case("sleep", FaultKind.TIMEOUT, no_reply(), stderr=("hostile: sleeping forever",)),
    Case(
        "ignore_sigxcpu",
        FaultKind.TIMEOUT,
        no_reply(),
        stderr=(r"hostile: ignoring SIGXCPU, RLIMIT_CPU soft \d+ s, spinning",),
    ),
    Case(
        "threads",
        FaultKind.TIMEOUT,
        no_reply(),
        stderr=("hostile: burning CPU in 8 threads",),
        limits=Limits(startup_ms=5000, decision_ms=1000, memory_bytes=128 * MiB, cpu_cores=0.5),
        check=check_threads,
    ),
    Case(
        "fork_bomb",
        stderr=(rf"hostile: fork bomb: \d+ forks, then errno {errno.EAGAIN}",),
        check=check_fork_bomb,
    ),
    Case("daemon", stderr=("hostile: left a setsid daemon behind",), check=check_daemon),
    Case("flood_stderr", check=check_stderr_flood),
    Case(
        "huge_file",
        stderr=(
            f"hostile: /bot/huge: wrote 0 bytes, then OSError errno {errno.EROFS}",
            f"hostile: /huge: wrote 0 bytes, then OSError errno {errno.EROFS}",
        ),
        check=check_huge_file,
    ),
    Case("open_files", check=check_open_files),
    # ---- escapes: the game goes on, the bot reports what it was denied
    Case(
        "connect_tcp",
        stderr=(rf"hostile: tcp 127\.0\.0\.1:{{port}}: OSError errno {errno.EAFNOSUPPORT}",),
    ),
    Case(
        "sockets",
        stderr=(
            "hostile: sockets: "
            + ", ".join(
                f"{family} errno {errno.EAFNOSUPPORT}"
                for family in ("AF_VSOCK", "AF_INET", "AF_INET6", "AF_NETLINK", "AF_PACKET")
            )
            + r", AF_UNIX ok fd \d+",
        ),
    ),
    Case(
        "connect_unix",
        stderr=(rf"hostile: unix @{{socket}}: ConnectionRefusedError errno {errno.ECONNREFUSED}",),
    ),
    Case(
        "read_files",
        stderr=tuple(
            f"hostile: {label}: FileNotFoundError errno {errno.ENOENT}"
            for label in (
                "passwd",
                "tmp_dir",
                "tmp_file",
                "other_bot_dir",
                "other_bot_file",
                "bots_root",
                "worker_dir",
                "worker_file",
            )
        ),
    ),
    Case(
        "read_environ",
        stderr=(
            r"hostile: /proc pids: \[1, 2\]",
            r"hostile: /proc/1/environ: \d+ bytes",
            r"hostile: /proc/2/environ: \d+ bytes",
            r"hostile: worker /proc/{worker}/environ: "
            rf"b'<FileNotFoundError errno {errno.ENOENT}>'",
            "hostile: found 0",
        ),
        check=check_environ,
    ),
    Case(
        "signals",
        stderr=(
            r"hostile: kill\(1\) \[parent\]: sent",  # bwrap's reaper, which ignores it
            r"hostile: kill\(1\) \[init\]: sent",
            rf"hostile: kill\({{worker}}\) \[worker\]: errno {errno.ESRCH}",
            rf"hostile: kill\({{outsider}}\) \[outsider\]: errno {errno.ESRCH}",
            rf"hostile: kill\(-1\) \[everyone\]: errno {errno.ESRCH}",
            "hostile: still alive",
        ),
        seat=1,
    ),
    Case("syscalls", check=check_syscalls),
    Case("seed_recovery", stderr=("hostile: bot_seed matches no game seed in 0..1999",)),
    # ---- the protocol broken
    Case(
        "flood_stdout",
        FaultKind.GARBAGE,
        "not JSON (Expecting value at column 1)",
        answered=2,
        sent="(flood ){170}",
        stderr=("hostile: flooding stdout",),
    ),
    Case(
        "endless_line",
        FaultKind.LINE_TOO_LONG,
        f"a line longer than {LIMITS.max_line_bytes} bytes",
        sent=r"x{1024}\.\.\. \(\d+ bytes\)",
        stderr=("hostile: one endless line",),
    ),
    Case(
        "chatty",
        FaultKind.OUTPUT_LIMIT,
        "wrote more than 65536 bytes to stdout in one game",
        request=6,  # 5 replies of 12 kB fit in 64 KiB, the 6th does not
        sent=r"(?s).*y{512}.*",
        stderr=("hostile: padding every reply with 12 kB",),
        limits=Limits(
            startup_ms=5000, decision_ms=1000, memory_bytes=128 * MiB, max_output_bytes=65536
        ),
    ),
    Case(
        "garbage",
        FaultKind.GARBAGE,
        "not JSON (Expecting value at column 1)",
        answered=2,
        sent="i would like to place 3 please",
        stderr=("hostile: answering garbage",),
    ),
    Case(
        "not_a_string",
        FaultKind.GARBAGE,
        '"action" must be a string, got 3',
        answered=2,
        sent=re.escape('{"type":"action","id":2,"action":3}'),
        stderr=("hostile: answering a number",),
    ),
    Case(
        "illegal",
        FaultKind.ILLEGAL_ACTION,
        "'place 9' is not legal; legal: {legal}",
        answered=2,
        sent=re.escape('{"type":"action","id":2,"action":"place 9"}'),
        stderr=("hostile: answering place 9",),
    ),
    Case(
        "deep_json",
        FaultKind.GARBAGE,
        "arrays or objects nested more than 32 deep",
        answered=2,
        sent=r"\[{1024}\.\.\. \(15000 bytes\)",
        stderr=("hostile: answering 15000 \\[",),
    ),
    Case(
        "long_int",
        FaultKind.GARBAGE,
        "not JSON this parser can read (an integer of more than 4300 digits)",
        answered=2,
        sent=r'\{"type": "action", "id": 2, "action": "[^"]+", "n": 9+\.\.\. \(\d+ bytes\)',
        stderr=("hostile: answering with a 5000-digit number",),
    ),
    Case(
        "deep_ready",
        FaultKind.BAD_HANDSHAKE,
        "arrays or objects nested more than 32 deep",
        request=None,
        sent=r"\[{1024}\.\.\. \(15000 bytes\)",
        stderr=("hostile: ready as 15000 \\[",),
    ),
    Case(
        "long_int_ready",
        FaultKind.BAD_HANDSHAKE,
        "not JSON this parser can read (an integer of more than 4300 digits)",
        request=None,
        sent=r'\{"type": "ready", "protocol": 1, "n": 9+\.\.\. \(5039 bytes\)',
        stderr=("hostile: ready with a 5000-digit number",),
    ),
    Case(
        "early_answer",
        FaultKind.GARBAGE,
        "wrote to stdout before request 3 was sent",
        request=3,
        sent=r'\{"type": "action", "id": 3, "action": "place \d"\}\n',
        stderr=("hostile: answering request 3 early",),
    ),
    Case(
        "early_flood",
        FaultKind.GARBAGE,
        "wrote to stdout before request 2 was sent",
        sent=r'(?s)(\{"type": "action", "id": 2, "action": "place \d"\}\n)+.*',
        stderr=("hostile: flooding early answers",),
        check=check_early_flood,
    ),
    Case(
        "early_ready",
        FaultKind.GARBAGE,
        "wrote to stdout before request 1 was sent",
        request=1,
        sent=re.escape('{"type": "action", "id": 1, "action": "place 1"}\n'),
        stderr=("hostile: answering request 1 with ready",),
    ),
    Case("silent", FaultKind.TIMEOUT, no_reply(), stderr=("hostile: ignoring request 2",)),
    Case(
        "close_stdout",
        FaultKind.CLOSED_STDOUT,
        "closed its stdout but kept running",
        stderr=("hostile: closing stdout",),
    ),
    Case(
        "close_stdin",
        FaultKind.CLOSED_STDIN,
        "closed its stdin but kept running",
        request=3,  # it answered the 2nd request, then closed stdin
        stderr=("hostile: closing stdin",),
    ),
    # ---- the process ends
    Case(
        "exit",
        FaultKind.EXITED,
        "the process exited (status 0) in the middle of the game",
        request=3,
        exit_code=0,
        signal=None,
        stderr=("hostile: exiting mid-game",),
    ),
    Case(
        "exception",
        FaultKind.CRASHED,
        "the process exited with status 1",
        exit_code=1,
        signal=None,
        stderr=("RuntimeError: hostile: deliberate crash in act",),
    ),
    Case(
        "segfault",
        FaultKind.CRASHED,
        "the process was killed by signal 11 (SIGSEGV)",
        signal=signal.SIGSEGV,
        stderr=("hostile: reading address 0",),
    ),
    Case(
        "slow_start",
        FaultKind.STARTUP_TIMEOUT,
        "no ready line within 1500 ms",
        request=None,
        stderr=("hostile: loading tables",),
        limits=Limits(startup_ms=1500, decision_ms=1000, memory_bytes=128 * MiB),
    ),
]
# Half of the cases put the hostile bot in the second seat.
CASES = [
    case if case.seat or index % 2 == 0 else dataclasses.replace(case, seat=1)
    for index, case in enumerate(CASES)
]


# ------------------------------------------------------------------ playing


def play(
    case: Case, world: World, *, trusted: bool = False, env: dict[str, str] | None = None
) -> Played:
    """One classic game: the hostile bot against house ``random`` (and, for
    ``signals``, a sandboxed neighbour and a process of the bot user outside)."""
    token = uuid.uuid4().hex
    main = f"{case.bot}_{token}.py"
    bot_dir = make_bot_dir(world, files={})
    shutil.copyfile(HOSTILE / f"game_{case.bot}.py", bot_dir / main)
    (bot_dir / main).chmod(0o644)
    bot_env = {
        "HOSTILE_PORT": str(world.port),
        "HOSTILE_SOCKET": world.socket_name,
        "HOSTILE_TARGETS": json.dumps(world.targets),
        "HOSTILE_WORKER_PID": str(os.getpid()),
        **(env or {}),
    }
    outsider = None
    if case.bot == "signals":
        outsider = subprocess.Popen(
            ["sleep", "120"], user=world.uid, group=world.gid, extra_groups=[], env={}
        )
        bot_env["HOSTILE_OUTSIDER_PID"] = str(outsider.pid)
    players = [
        BotSpec(name=case.bot, bot_dir=bot_dir, main=main, env=bot_env, trusted=trusted),
        house_bot("random"),
    ]
    if case.bot == "signals":
        neighbour = make_bot_dir(
            world, files={"main.py": (HOUSE_DIR / HOUSE_BOTS["random"]).read_text()}
        )
        players.append(BotSpec(name="neighbour", bot_dir=neighbour, main="main.py"))
    seating = list(range(1, len(players)))
    seating.insert(case.seat, 0)
    try:
        with Match(players, case.limits) as match:
            record = match.play(describe("classic", len(players)), 5, seating)
            during = processes_with(token)
        if outsider is not None:
            assert outsider.poll() is None, "kill(-1) in the sandbox reached the bot user's process"
    finally:
        if outsider is not None:
            outsider.kill()
            outsider.wait()
    assert left_after(lambda: processes_with(token)) == []
    return Played(case, world, record, case.seat, match.outcomes, during, bot_dir)


# ------------------------------------------------------------------ checks


def check_game(played: Played) -> None:
    """A whole game with a sane result for every seat."""
    record, seats = played.record, len(played.record.seats)
    log = check(json.loads(json.dumps(record.log)))
    state = replay(log)  # every event, as the engine produces it
    end = log["events"][-1]
    assert end["type"] == "game_end"
    assert [r.money for r in final_result(state)] == [r["money"] for r in end["result"]]
    assert len([e for e in log["events"] if e["type"] == "round_end"]) == 4
    assert [r["seat"] for r in record.result] == list(range(seats))
    for seat, result in enumerate(record.result):
        awards = [
            award["note"]
            for event in log["events"]
            if event["type"] == "payout"
            for award in event["awards"]
            if award["owner"] == seat
        ]
        assert result["money"] == end["result"][seat]["money"] == sum(awards)
        assert result["notes"] == end["result"][seat]["notes"] == len(awards)
        decisions = sum(
            1
            for event in log["events"]
            if event["type"] == "decision" and event["seat"] == seat and not event["forced"]
        )
        timed = len(record.seats[seat].decision_ms)
        if seat != played.seat or played.case.kind is None:
            assert timed == decisions > 0, f"seat {seat} did not play every decision itself"
        else:
            assert timed == played.case.timed < decisions
    assert log["referee"]["seats"] == [seat.to_json() for seat in record.seats]
    assert log["referee"]["result"] == record.result


def check_fault(played: Played) -> None:
    case, record, seat = played.case, played.record, played.seat
    result = record.result[seat]
    others = [r for r in record.result if r["seat"] != seat]
    assert not any(r["forfeited"] for r in others)
    assert all(record.seats[r["seat"]].fault is None for r in others)
    playing = [(r["money"], r["notes"]) for r in record.result if not r["forfeited"]]
    for entry in record.result:  # ranked by money, then notes, among those who did not forfeit
        if not entry["forfeited"]:
            better = sum(other > (entry["money"], entry["notes"]) for other in playing)
            assert entry["rank"] == 1 + better
    fault = record.seats[seat].fault
    if case.kind is None:
        assert fault is None, fault.describe() if fault else ""
        assert not result["forfeited"]
        assert played.outcome.exit_code == 0 and not played.outcome.killed, played.outcome
        return
    assert fault is not None, f"expected {case.kind.value}, the bot played the whole game"
    assert result["forfeited"] and result["rank"] == len(others) + 1
    assert fault.kind is case.kind, fault.describe()
    assert fault.game_id == 1
    if case.request is None:  # during start-up
        assert fault.request is None
        # a bad ready line came in time: only then was the start-up timed
        timed = record.seats[seat].startup_ms is not None
        assert timed is (case.kind is FaultKind.BAD_HANDSHAKE)
        assert fault.message == case.message, fault.describe()
    else:
        assert fault.request is not None and fault.request["type"] == "request"
        assert fault.request["id"] == case.request
        legal = ", ".join(fault.request["observation"]["legal_actions"])
        assert fault.message == case.message.format(legal=legal), fault.describe()
    if case.sent is None:
        assert fault.sent is None, fault.sent
    else:
        assert fault.sent is not None and re.fullmatch(case.sent, fault.sent), fault.sent
    assert (fault.exit_code, fault.signal) == (case.exit_code, case.signal), fault.describe()
    if case.kind is FaultKind.TIMEOUT:
        assert fault.elapsed_ms is not None and fault.elapsed_ms >= case.limits.decision_ms
    assert fault.stderr_tail == played.stderr
    # The process's life (the fault's) is its first game (the seat's), which adds its clocks.
    assert fault.resources.items() <= record.seats[seat].resources.items()
    assert fault.resources["oom_killed"] is (case.kind is FaultKind.OUT_OF_MEMORY)
    assert fault.resources["memory_peak_bytes"] > 0
    assert (played.outcome.exit_code, played.outcome.signal) == (case.exit_code, case.signal)


def check_stderr(played: Played) -> None:
    world = played.world
    for pattern in played.case.stderr:
        expanded = pattern.format(
            port=world.port,
            socket=re.escape(world.socket_name),
            worker=os.getpid(),
            outsider=r"\d+",
        )
        assert re.search(rf"^{expanded}$", played.stderr, re.M), (pattern, played.stderr)
    assert "FOUND" not in played.stderr, played.stderr


def check_others(played: Played) -> None:
    """The other bots played on and ended cleanly at the end of the match."""
    for outcomes in played.outcomes[1:]:
        (outcome,) = outcomes
        assert outcome.exit_code == 0 and not outcome.killed, outcome


def check_nothing_left(played: Played, before: Snapshot) -> None:
    world = played.world
    assert left_after(lambda: bot_user_processes(world.uid)) == {}
    after = snapshot(world)
    assert after.cgroups == before.cgroups, "a bot cgroup was left behind"
    assert after.fds == before.fds, "the worker's file descriptors changed"
    assert after.children == before.children, "the worker has children left"
    assert after.threads == before.threads
    for server in world.listeners:
        with pytest.raises(BlockingIOError):
            server.accept()
    dumps = [json.dumps(played.record.log)] + [
        outcome.stderr_tail.decode("utf-8", errors="replace")
        for outcomes in played.outcomes
        for outcome in outcomes
    ]
    assert world.secret and not any(world.secret in text for text in dumps)


@dataclass
class Snapshot:
    cgroups: set[str]
    fds: dict[int, str]
    children: list[int]
    threads: int


def snapshot(world: World) -> Snapshot:
    mine = worker_prefix()
    cgroups = {
        f"{parent}/{name}"
        for parent in world.cgroup_parents
        for name in os.listdir(parent)
        if name.startswith(mine)
    }
    fds = {}
    for fd in os.listdir("/proc/self/fd"):
        try:
            fds[int(fd)] = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # the listing's own fd
            continue
    children = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and parent_of(int(entry)) == os.getpid():
            children.append(int(entry))
    return Snapshot(cgroups, fds, children, threading.active_count())


def parent_of(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    return int(stat[stat.rfind(b")") + 2 :].split()[1])


def bot_user_processes(uid: int) -> dict[int, str]:
    """Live processes of the bot user this worker answers for: in one of its
    bot cgroups, or in no arena cgroup at all (bots of other workers running
    at the same time are left out)."""
    found = {}
    mine = str(os.getpid())
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            status = Path(f"/proc/{entry}/status").read_text()
            cgroups = Path(f"/proc/{entry}/cgroup").read_text()
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        uids = next(line.split()[1:] for line in status.splitlines() if line.startswith("Uid:"))
        if str(uid) not in uids:
            continue
        owners = re.findall(r"/vegas-arena/bot-(\d+)-\d+", cgroups)
        if owners and mine not in owners:
            continue
        state = next(line.split()[1] for line in status.splitlines() if line.startswith("State:"))
        if state == "Z" and parent_of(int(entry)) != os.getpid():
            # Dead: bwrap's reaper, orphaned when the cgroup was killed, waits
            # for the host's init to collect its status. It holds no memory,
            # no files; the worker's own zombies are checked with its children.
            continue
        command = cmdline.replace(b"\0", b" ").decode(errors="replace")
        found[int(entry)] = f"{state} ppid {parent_of(int(entry))}: {command or '(exiting)'}"
    return found


def left_after(probe: Callable[[], Sized], grace: float = 5.0) -> Sized:
    """What ``probe`` still finds after at most ``grace`` seconds. On a loaded
    host the last process of a killed sandbox may still be on its way out:
    bwrap's reaper leaves the cgroup (which is then removed) before its pid
    namespace's last task is reaped. A process that survives stays."""
    deadline = time.monotonic() + grace
    while (left := probe()) and time.monotonic() < deadline:
        time.sleep(0.02)
    return left


def processes_with(token: str) -> list[int]:
    """Host pids of every process (zombies too) whose command line holds ``token``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if token.encode() in Path(f"/proc/{entry}/cmdline").read_bytes():
                    found.append(int(entry))
            except OSError:
                continue
    return found


# ------------------------------------------------------------------ tests


@pytest.mark.parametrize("case", CASES, ids=[case.bot for case in CASES])
def test_hostile_seat_in_a_sandboxed_game(case: Case, secrets: World) -> None:
    before = snapshot(secrets)
    played = play(case, secrets)
    check_game(played)
    check_fault(played)
    check_stderr(played)
    check_others(played)
    if case.check is not None:
        case.check(played)
    check_nothing_left(played, before)


def test_the_spies_do_find_secrets_outside_the_sandbox(secrets: World) -> None:
    """Control: the same spying bots, trusted (no sandbox), find the secrets, so
    the sandboxed runs' silence means they were denied, not that they looked badly."""
    files = play(Case("read_files"), secrets, trusted=True)
    assert re.search(
        rf"^hostile: other_bot_file: read \d+ bytes FOUND {secrets.secret}-other-bot$",
        files.stderr,
        re.M,
    ), files.stderr
    assert f"FOUND {secrets.secret}-tmp" in files.stderr
    leaked = play(Case("read_environ"), secrets, trusted=True, env={"LEAKED": secrets.secret})
    assert f"hostile: FOUND in os.environ: LEAKED={secrets.secret}" in leaked.stderr
    for played in (files, leaked):
        check_game(played)
        assert played.record.seats[played.seat].fault is None
