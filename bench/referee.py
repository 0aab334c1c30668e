"""Referee benchmarks: per-decision overhead, bot start-up, games per second.

    python3 bench/referee.py [--quick]

Everything is measured side by side in the same run:

* a **bare pipe echo**: a Python process that reads a request-sized line and
  writes a reply line, driven with ``poll``/``os.read``: the floor any
  referee pays per decision (two pipe hops, two process wake-ups);
* the **referee's I/O path** (non-blocking write, poll on stdout and pidfd,
  limits) with the same echo process, bare and sandboxed: the target compares
  the sandboxed one with the bare echo;
* the **referee's per-decision time** (what it charges a bot: request written
  → reply read) for a protocol bot, bare and sandboxed, minus the bot's own
  time (measured inside the bot): the overhead beyond the bot;
* **start-up** to ``ready`` of an SDK bot, bare and sandboxed, next to a bare
  interpreter (``python3 -I -c pass``), all with the same ``/usr/bin/python3``;
* **each runtime** (Python, JavaScript, C, C++, Java, Rust, Go): a tiny
  echo-like protocol bot of its language (``tests/bots_sdk/runtimes/``) built
  with :mod:`bots_sdk.build` in the sandbox, then its start-up (launch to
  ``ready``) and its per-decision round trip through the referee's I/O path,
  sandboxed, each also as a ratio to the bare pipe echo's;
* **4-seat classic games per CPU-second** (the referee and its bots take
  turns, so the CPU time they use is the cost), side by side:

  - the **JSON pipe-echo floor**: the engine plays, each request is encoded
    as the referee encodes it and answered by a bare ``python3 -I`` process
    that parses it and replies with its first legal action; four such
    processes, kept across games, no limits, no sandbox;
  - the **platform's mode** as ``arena.matches.play.MatchTable`` runs it:
    the house random bot's code sandboxed at every seat (as an upload runs),
    a ladder's default limits, the platform's referee options
    (``seed_once_per_process``), seats rotating, each game's log serialised;
    one game per table (how the platform played before: a process per bot
    per match) and a series of the platform's size per table (a ladder's
    ``series_games``), and a series of duplicate deals played lane by lane;
  - bare (trusted) random bots in one long series, for reference.

  Each row is also given as a multiple of the floor's CPU per game; the
  target is the platform's series at <= 3x the floor (>= 30 games per
  CPU-second).

It prints ratios against the targets; it never fails on a number.
"""

from __future__ import annotations

import sys
from pathlib import Path

# bench/platform.py is named by the issue: while this folder leads sys.path,
# `import platform` would find it instead of the standard library. Move the
# folder to the end, where the standard library wins.
_BENCH = str(Path(__file__).resolve().parent)
sys.path[:] = [p for p in sys.path if str(Path(p or ".").resolve()) != _BENCH] + [_BENCH]

import argparse
import os
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots_sdk import protocol, sandbox
from bots_sdk.build import build, unpack_program
from bots_sdk.launcher import BotSpec, house_bot, launch_bot, sandbox_problem
from bots_sdk.protocol import Limits
from bots_sdk.referee import Match, rotations
from bots_sdk.runtimes import RUNTIMES
from vegas_engine import describe, new_game, observe
from vegas_engine import log as game_logs

PYTHON = "/usr/bin/python3"  # the sandbox's interpreter: the same one bare, for fairness
#: One tiny protocol bot per runtime: answers each request with its first legal action.
RUNTIME_BOTS = Path(__file__).resolve().parent.parent / "tests" / "bots_sdk" / "runtimes"

ECHO = """\
import os, sys
reply = b'{"type":"action","id":1,"action":"place 1"}\\n'
for line in sys.stdin.buffer:
    os.write(1, reply)
"""

# The floor's bot: parses each request and answers its first legal action, nothing else.
JSON_ECHO = """\
import json, os, sys
for line in sys.stdin.buffer:
    message = json.loads(line)
    reply = {"type": "action", "id": message["id"],
             "action": message["observation"]["legal_actions"][0]}
    os.write(1, (json.dumps(reply) + "\\n").encode())
"""

#: The platform's series on a ladder that keeps the default (``Ladder.series_games``).
PLATFORM_SERIES_GAMES = 12
#: A ladder's default limits (``ladders.Ladder``), as ``MatchGame.limits`` gives them.
LADDER_LIMITS = Limits(decision_ms=1000, bank_ms=10_000, memory_bytes=256 * 1024 * 1024)

# An echo-like bot that speaks the protocol and times itself: from the moment it
# has the request line to the moment its reply is written.
TIMED_BOT = """\
import json, os, sys, time
own = []
for line in sys.stdin.buffer:
    start = time.perf_counter()
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        reply = {"type": "ready", "protocol": 1}
    elif kind == "request":
        reply = {"type": "action", "id": message["id"],
                 "action": message["observation"]["legal_actions"][0]}
    elif kind == "shutdown":
        break
    else:
        continue
    os.write(1, (json.dumps(reply) + "\\n").encode())
    if kind == "request":
        own.append(time.perf_counter() - start)
own.sort()
print(f"own_ms {own[len(own) // 2] * 1000:.4f} {own[int(len(own) * 0.99)] * 1000:.4f}",
      file=sys.stderr)
"""


def percentiles(samples: Sequence[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def request_line() -> bytes:
    """A real request of a 4-seat classic game, as the referee sends it."""
    state = new_game(describe("classic", 4), 7)
    seat = state.to_move()[0]
    return protocol.encode(protocol.request(1, 1, observe(state, seat), 1000, 20_000))


def bare_echo(rounds: int) -> list[float]:
    """Round trips (ms) of a request-sized line through a bare echo process."""
    line = request_line()
    child = subprocess.Popen(
        [PYTHON, "-I", "-c", ECHO], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert child.stdin is not None and child.stdout is not None
    in_fd, out_fd = child.stdin.fileno(), child.stdout.fileno()
    poller = select.poll()
    poller.register(out_fd, select.POLLIN)
    samples = []
    for index in range(rounds + 50):
        start = time.perf_counter()
        os.write(in_fd, line)
        buffer = b""
        while not buffer.endswith(b"\n"):
            poller.poll(1000)
            buffer += os.read(out_fd, 65536)
        if index >= 50:  # warm-up
            samples.append((time.perf_counter() - start) * 1000)
    child.stdin.close()
    child.wait()
    return samples


def referee_echo(folder: Path, trusted: bool, rounds: int) -> list[float]:
    """Round trips (ms) of the same line through the referee's own I/O path
    (non-blocking write, poll on stdout and pidfd, line and output limits)."""
    from bots_sdk.faults import FaultKind
    from bots_sdk.referee import _Clock, _Connection

    (folder / "echo.py").write_text(ECHO)
    (folder / "echo.py").chmod(0o644)
    command = [PYTHON, "-I", f"{sandbox.BOT_MOUNT}/echo.py"]
    limits = sandbox.SandboxLimits()
    if trusted:
        process = sandbox.launch(command, bot_dir=folder, limits=limits, trusted=True)
    else:
        process = sandbox.launch(command, bot_dir=folder, limits=limits, config=_config())
    connection = _Connection(
        process,
        Limits(max_output_bytes=2**40),
        time.monotonic(),
        sandbox.own_wait(),
        sandbox.cpu_steal(),
    )
    line = request_line()
    samples = []
    for index in range(rounds + 50):
        # The referee's clock, as a decision has it: its CPU readings are on the path.
        clock = _Clock(process, 1.0, time.monotonic())
        start = clock.started
        connection.send_line(line, start + 1)
        reply = connection.await_line(clock, FaultKind.TIMEOUT)
        assert isinstance(reply, tuple), reply
        if index >= 50:
            samples.append((reply[1] - start) * 1000)
    connection.close()
    return samples


def public_dir() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="vegas-bench-"))
    folder.chmod(0o755)
    return folder


def decision_times(spec: BotSpec, games: int) -> tuple[list[float], tuple[float, float]]:
    """Per-decision times the referee charged the timed bot, and its own (median, p99)."""
    times: list[float] = []
    with Match([spec, house_bot("random"), house_bot("random"), house_bot("random")]) as match:
        for game in range(games):
            record = match.play(describe("classic", 4), game, [0, 1, 2, 3])
            assert not record.faults, record.faults
            times += record.seats[0].decision_ms
    tail = match.outcomes[0][-1].stderr_tail.decode()
    words = tail.split("own_ms", 1)[1].split()
    return times, (float(words[0]), float(words[1]))


def startup(command: list[str], bot_dir: Path, trusted: bool, runs: int) -> list[float]:
    """ms from launch to the ``ready`` line (or to exit, for a command that exits)."""
    samples = []
    config = None if trusted else _config()
    limits = sandbox.SandboxLimits()
    for _ in range(runs):
        start = time.perf_counter()
        if config is None:
            bot = sandbox.launch(command, bot_dir=bot_dir, limits=limits, trusted=True)
        else:
            bot = sandbox.launch(command, bot_dir=bot_dir, limits=limits, config=config)
        bot.stdin.write(protocol.encode(protocol.hello(Limits())))
        bot.stdout.readline()
        samples.append((time.perf_counter() - start) * 1000)
        bot.close(timeout=1.0)
    return samples


def built_bot(folder: Path, runtime_id: str) -> tuple[BotSpec, float]:
    """The runtime's tiny bot copied to ``folder``, built in the sandbox as the
    platform builds an upload; and the build's seconds."""
    runtime = RUNTIMES[runtime_id]
    bot_dir, program_dir = folder / runtime_id, folder / f"{runtime_id}-program"
    for path in (bot_dir, program_dir):
        path.mkdir()
        path.chmod(0o755)
    for source in (RUNTIME_BOTS / runtime_id).iterdir():
        shutil.copyfile(source, bot_dir / source.name)
        (bot_dir / source.name).chmod(0o644)
    start = time.perf_counter()
    result = build(bot_dir, runtime, trusted=False)
    took = time.perf_counter() - start
    assert result.ok, result.output
    if runtime.builds_program:
        unpack_program(result.program, program_dir)
    spec = BotSpec(
        name=runtime_id,
        bot_dir=bot_dir,
        main=runtime.main,
        runtime=runtime_id,
        program_dir=program_dir if runtime.builds_program else None,
    )
    return spec, took


def runtime_startup(spec: BotSpec, runs: int) -> list[float]:
    """ms from launch (sandboxed, as the referee starts it) to the ``ready`` line."""
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        bot = launch_bot(spec, Limits())
        os.write(bot.stdin.fileno(), protocol.encode(protocol.hello(Limits())))
        line = b""
        while not line.endswith(b"\n") and (chunk := os.read(bot.stdout.fileno(), 4096)):
            line += chunk
        samples.append((time.perf_counter() - start) * 1000)
        assert b'"ready"' in line, (line, bot.close(timeout=1.0).stderr_tail)
        bot.close(timeout=1.0)
    return samples


def runtime_decisions(spec: BotSpec, rounds: int) -> list[float]:
    """Round trips (ms) of a real request through the referee's I/O path to the
    sandboxed bot and back (its action), like :func:`referee_echo`."""
    from bots_sdk.faults import FaultKind
    from bots_sdk.referee import _Clock, _Connection

    limits = Limits(max_output_bytes=2**40)
    process = launch_bot(spec, limits)
    connection = _Connection(
        process, limits, time.monotonic(), sandbox.own_wait(), sandbox.cpu_steal()
    )
    connection.send_line(protocol.encode(protocol.hello(limits)), time.monotonic() + 10)
    assert isinstance(connection.await_line(connection.clock, FaultKind.STARTUP_TIMEOUT), tuple)
    line = request_line()
    samples = []
    for index in range(rounds + 50):
        # The referee's clock, as a decision has it: its CPU readings are on the path.
        clock = _Clock(process, 1.0, time.monotonic())
        start = clock.started
        connection.send_line(line, start + 1)
        reply = connection.await_line(clock, FaultKind.TIMEOUT)
        assert isinstance(reply, tuple), reply
        if index >= 50:  # warm-up (the JVM compiles the loop)
            samples.append((reply[1] - start) * 1000)
    connection.close()
    return samples


def runtimes_table(folder: Path, echo: float, echo_startup: float, scale: float) -> None:
    """Each runtime's tiny bot, sandboxed: build, start-up, per-decision, vs the bare echo."""
    runs, rounds = max(5, int(20 * scale)), int(2000 * scale)
    print(
        f"\nper runtime, sandboxed (tiny bots of tests/bots_sdk/runtimes/; medians of {runs} "
        f"starts, {rounds} decisions)"
    )
    print("  runtime   build s   start-up ms  (x echo)   decision ms  (x echo)")
    for runtime in RUNTIMES.values():
        missing = runtime.missing_toolchain()
        if missing is not None:
            print(f"  {runtime.id:<8} skipped: {missing}")
            continue
        spec, took = built_bot(folder, runtime.id)
        started = statistics.median(runtime_startup(spec, runs))
        decision = statistics.median(runtime_decisions(spec, rounds))
        print(
            f"  {runtime.id:<8} {took:7.2f}   {started:11.1f}  {started / echo_startup:7.1f}x"
            f"   {decision:11.4f}  {decision / echo:7.2f}x"
        )


def _config() -> sandbox.SandboxConfig:
    from bots_sdk.launcher import sandbox_config

    return sandbox_config()


def _cpu_now() -> tuple[float, float]:
    """CPU seconds of this process, and of its children that ended and were waited for."""
    times = os.times()
    return times.user + times.system, times.children_user + times.children_system


def floor_games(games: int) -> float:
    """The JSON pipe-echo floor: CPU seconds per 4-seat classic game (see the docstring)."""
    children = [
        subprocess.Popen(
            [PYTHON, "-I", "-c", JSON_ECHO], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        for _ in range(4)
    ]
    pipes = [(c.stdin.fileno(), c.stdout.fileno()) for c in children]  # type: ignore[union-attr]
    own_before = start_children = 0.0
    request_id = 0
    for seed in range(games + 2):
        if seed == 2:  # warm-up: the children's interpreters are up, caches warm
            own_before = _cpu_now()[0]
            start_children = sum(_child_cpu(c.pid) for c in children)
        state = new_game(describe("classic", 4), seed)
        while movers := state.to_move():
            for seat in movers:
                request_id += 1
                message = protocol.request(request_id, 1, observe(state, seat), 1000, 10_000)
                in_fd, out_fd = pipes[seat]
                os.write(in_fd, protocol.encode(message))
                reply = b""
                while not reply.endswith(b"\n"):
                    reply += os.read(out_fd, 65536)
                state.apply_action(protocol.parse_action(reply[:-1], request_id), seat)
    own = _cpu_now()[0] - own_before
    bots = sum(_child_cpu(c.pid) for c in children) - start_children
    for child in children:
        child.stdin.close()  # type: ignore[union-attr]
        child.wait()
    return (own + bots) / games


def _child_cpu(pid: int) -> float:
    """CPU seconds of a running child so far, from /proc."""
    with open(f"/proc/{pid}/stat", "rb") as handle:
        fields = handle.read().rsplit(b")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def sandboxed_random() -> BotSpec:
    """The house random bot's code as an upload runs: in the sandbox, not trusted."""
    return BotSpec(name="random", bot_dir=house_bot("random").bot_dir, main="random_bot.py")


def platform_games(
    games: int, per_table: int, *, deals: bool = False, sandboxed: bool = True
) -> tuple[float, float]:
    """4-seat classic as the platform plays it: (games/s, CPU seconds per game).

    Tables of ``per_table`` games each (a series; 1: a table per match, as
    before), each with ``arena.matches.play.MatchTable``'s referee options.
    ``deals``: the series holds duplicate deals of 4 games, played lane by
    lane (game 1 of every deal, then game 2...), so each process plays
    ``per_table // 4`` games. Each game's log is serialised, as the platform
    stores it.
    """
    players = [sandboxed_random() if sandboxed else house_bot("random") for _ in range(4)]
    cpu = 0.0
    wall = 0.0
    played = 0
    seed = 0
    while played < games:
        if deals:
            count = per_table // 4
            seeds = list(range(seed, seed + count))
            seatings = list(rotations(4, 4))
            table = [(s, seatings[lane]) for lane in range(4) for s in seeds]
        else:
            table = list(zip(range(seed, seed + per_table), rotations(4, per_table), strict=True))
        seed += len(table)
        own_before, children_before = _cpu_now()
        start = time.perf_counter()
        with Match(
            players, LADDER_LIMITS, launcher=launch_bot, seed_once_per_process=True
        ) as match:
            for game_seed, seating in table:
                record = match.play(describe("classic", 4), game_seed, seating)
                assert not record.faults, record.faults
                game_logs.dumps(record.moves_log)  # what the platform stores
        wall += time.perf_counter() - start
        own_after, children_after = _cpu_now()
        cpu += own_after - own_before  # the referee
        if sandboxed:
            # Each sandboxed bot's cgroup counts all its processes (bubblewrap included).
            cpu += sum(o.cpu_seconds or 0.0 for outcomes in match.outcomes for o in outcomes)
        else:
            cpu += children_after - children_before
        played += len(table)
    return played / wall, cpu / played


def games_table(scale: float, sandboxed: bool) -> None:
    """4-seat classic games per CPU-second: the floor, the platform before and now."""
    games = max(1, round(4 * scale)) * PLATFORM_SERIES_GAMES
    floor = floor_games(max(20, int(200 * scale)))
    print(
        f"\n4-seat classic, games per CPU-second (the referee's CPU and its bots'; "
        f"{games} games per row)"
    )
    print("                                                games/s   per CPU-s   CPU ms/game")
    print(
        f"  JSON pipe-echo floor (4 bare echo processes)      -       {1 / floor:7.1f}   "
        f"{floor * 1000:9.1f}   (1.0x floor)"
    )
    rows: list[tuple[str, int, bool, bool]] = [
        ("bare random bots, one series of {n}", games, False, False)
    ]
    if sandboxed:
        rows += [
            ("platform before: a table per game", 1, False, True),
            ("platform now: a series of {n} per table", PLATFORM_SERIES_GAMES, False, True),
            ("platform now: {d} duplicate deals per table", PLATFORM_SERIES_GAMES, True, True),
        ]
    results: dict[str, float] = {}
    for label, per_table, deals, boxed in rows:
        rate, cost = platform_games(games, per_table, deals=deals, sandboxed=boxed)
        shown = label.format(n=per_table, d=per_table // 4)
        results[label] = cost
        print(
            f"  {shown:<46} {rate:7.1f}   {1 / cost:7.1f}   {cost * 1000:9.1f}   "
            f"({cost / floor:.1f}x floor)"
        )
    if sandboxed:
        before = results["platform before: a table per game"]
        now = results["platform now: a series of {n} per table"]
        verdict = "ok" if 1 / now >= 30 else "MISSED"
        print(
            f"  target: the platform's series >= 30 games per CPU-second (<= 3x the floor): "
            f"{1 / now:.1f} ({now / floor:.1f}x floor) {verdict}; "
            f"{before / now:.1f}x the games per CPU-second of a table per game"
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer samples (a smoke run)")
    parser.add_argument(
        "--games-only", action="store_true", help="only the games per CPU-second table"
    )
    args = parser.parse_args(argv)
    scale = 0.2 if args.quick else 1.0
    problem = sandbox_problem()
    sandboxed = problem is None
    print(f"machine: {os.cpu_count()} cores; sandbox: {'yes' if sandboxed else problem}")
    if args.games_only:
        games_table(scale, sandboxed)
        return 0

    echo = bare_echo(int(3000 * scale))
    echo_median, echo_p99 = percentiles(echo)
    print("\nper decision (ms)                     median      p99")
    print(f"  bare pipe echo                    {echo_median:8.4f} {echo_p99:8.4f}")

    folder = public_dir()
    try:
        for label, trusted in [("bare", True)] + ([("sandboxed", False)] if sandboxed else []):
            median, p99 = percentiles(referee_echo(folder, trusted, int(3000 * scale)))
            print(
                f"  referee I/O path, {label:<9} echo {median:8.4f} {p99:8.4f}   "
                f"({median / echo_median:.2f}x echo)"
            )
            if not trusted:
                verdict = "ok" if median <= 1.5 * echo_median else "MISSED"
                print(
                    f"  target: sandboxed <= 1.5x bare echo: {median / echo_median:.2f}x {verdict}"
                )
        (folder / "timed.py").write_text(TIMED_BOT)
        (folder / "timed.py").chmod(0o644)
        modes = [("bare", True)] + ([("sandboxed", False)] if sandboxed else [])
        overheads: dict[str, float] = {}
        for label, trusted in modes:
            spec = BotSpec(name="timed", bot_dir=folder, main="timed.py", trusted=trusted)
            times, (own_median, own_p99) = decision_times(spec, max(3, int(40 * scale)))
            median, p99 = percentiles(times)
            overheads[label] = median - own_median
            print(f"  referee, {label:<9} bot (charged)  {median:8.4f} {p99:8.4f}")
            print(f"    of which the bot's own time     {own_median:8.4f} {own_p99:8.4f}")
            print(
                f"    overhead beyond the bot         {median - own_median:8.4f} "
                f"{p99 - own_p99:8.4f}   ({(median - own_median) / echo_median:.2f}x echo)"
            )
        if "sandboxed" in overheads:
            ratio = overheads["sandboxed"] / overheads["bare"]
            print(f"  the sandbox's share: sandboxed / bare overhead = {ratio:.2f}x")

        runs = max(5, int(20 * scale))
        if sandboxed:
            # The bare echo answers hello with a line: its start-up is launch to that line.
            echo_command = [PYTHON, "-I", f"{sandbox.BOT_MOUNT}/echo.py"]
            echo_startup = statistics.median(startup(echo_command, folder, True, runs))
            print(f"\nstart-up of the bare pipe echo (python3 -I, ms): {echo_startup:.1f}")
            runtimes_table(folder, echo_median, echo_startup, scale)
        print(f"\nstart-up to ready (ms, median of {runs})")
        interpreter = statistics.median(
            startup([PYTHON, "-I", "-c", "print()"], folder, True, runs)
        )
        print(f"  bare interpreter (python3 -I)     {interpreter:8.1f}")
        (folder / "main.py").write_text((house_bot("random").bot_dir / "random_bot.py").read_text())
        (folder / "main.py").chmod(0o644)
        env_python = [PYTHON, f"{sandbox.BOT_MOUNT}/main.py"]
        bare_bot = statistics.median(_bare_sdk_startup(env_python, folder, runs))
        print(f"  SDK random bot, bare              {bare_bot:8.1f}")
        if sandboxed:
            boxed = statistics.median(
                startup(_config().runtime.python_command("main.py"), folder, False, runs)
            )
            boxed_bare = statistics.median(
                startup([PYTHON, "-I", "-c", "print()"], folder, False, runs)
            )
            print(f"  SDK random bot, sandboxed         {boxed:8.1f}")
            print(f"  sandboxed interpreter (-I)        {boxed_bare:8.1f}")
            extra = boxed_bare - interpreter
            verdict = "ok" if extra < 30 else "MISSED"
            print(f"  target: sandbox adds < 30 ms to an interpreter: +{extra:.1f} ms {verdict}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)

    games_table(scale, sandboxed)
    return 0


def _bare_sdk_startup(command: list[str], folder: Path, runs: int) -> list[float]:
    """Like :func:`startup`, bare, with the SDK importable (PYTHONPATH)."""
    root = str(Path(__file__).resolve().parent.parent)
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        bot = sandbox.launch(
            command,
            bot_dir=folder,
            limits=sandbox.SandboxLimits(),
            trusted=True,
            env={"PYTHONPATH": root},
        )
        bot.stdin.write(protocol.encode(protocol.hello(Limits())))
        bot.stdout.readline()
        samples.append((time.perf_counter() - start) * 1000)
        bot.close(timeout=1.0)
    return samples


if __name__ == "__main__":
    sys.exit(main())
