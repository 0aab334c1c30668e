"""Engine benchmark: random playouts per second for every rule system and seat count.

Run with ``make bench`` or ``python3 bench/engine.py``. Options:

``--quick``          a short run (a few seconds; for smoke tests, noisier)
``--json``           print one JSON document instead of the table
``--reps N``         interleaved repetitions (default 5; 3 with --quick)
``--slice S``        seconds per workload per repetition (default: 0.4, less when needed to
                     keep all the timed play within 40 s; 0.08 and 5 s with --quick)
``--profile [N]``    only profile N games of classic, 4 seats, no log, with cProfile
                     and print the top 15 functions by own time

Everything runs on one core (the process is pinned to one CPU where the OS
allows it). Each repetition runs every workload for a time slice, one after
the other, and the table reports the median over repetitions, so a noisy
shared machine slows every workload alike. The engine is measured side by side
with ``bench/bare_classic.py`` (a bare-bones classic 4-seat loop: how fast
plain Python can go) and, when it is installed, with the public PyPI package
``lasvegas`` (never a project dependency). The issue's targets are printed
next to the measurements; nothing is asserted and the exit code is 0 whatever
the numbers.
"""

from __future__ import annotations

import sys
from pathlib import Path

# bench/platform.py is named by the issue: while this folder leads sys.path, a
# library's `import platform` would find it instead of the standard library.
# Move the folder to the end, where the standard library wins.
_BENCH = str(Path(__file__).resolve().parent)
sys.path[:] = [p for p in sys.path if str(Path(p or ".").resolve()) != _BENCH] + [_BENCH]

import argparse
import cProfile
import gc
import io
import json
import os
import pstats
import random
import statistics
import sys
import time
import types
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import bare_classic

import vegas_engine
from vegas_engine import LogMode, describe, new_game
from vegas_engine.log import expand, game_log

#: The issue's targets for classic with 4 seats, in games per second.
TARGETS: dict[bool, int] = {False: 1_600, True: 600}
TARGET_RULES, TARGET_SEATS = "classic", 4

#: Goal 4 of issue 14, all ratios measured side by side in this run: engine over the
#: bare loop and over lasvegas (classic, 4 seats, no log), full log over no log, and
#: how many times faster clone() is than a clone copying the random generator.
GOALS: dict[str, float] = {
    "engine_over_bare": 0.5,
    "engine_over_lasvegas": 3.0,
    "full_log_over_no_log": 0.5,
    "clone_speedup": 2.0,
}

#: Seconds of timed play in all (by --quick), shared by the workloads, and the
#: longest slice one workload gets per repetition.
BUDGET: dict[bool, float] = {False: 40.0, True: 5.0}
MAX_SLICE: dict[bool, float] = {False: 0.4, True: 0.08}

#: The clock of every timing. By default the CPU time of this process: on a shared
#: machine the time spent waiting for the pinned CPU is not the engine's, and wall
#: time counts it (``--wall`` measures wall time instead).
CLOCKS: dict[str, Callable[[], float]] = {"cpu": time.process_time, "wall": time.perf_counter}
clock = CLOCKS["cpu"]

#: A game's play function: play the game with this seed, return its decisions.
Play = Callable[[int], int]


# ---------------------------------------------------------------- workloads


def simultaneous(state: Any, choice: Callable[[Any], Any]) -> int:
    """Several seats decide at once: each picks a random legal action of its own."""
    movers = state.to_move()
    for seat in movers:
        state.apply_action(choice(state.legal_actions(seat)), seat)
    return len(movers)


def step(state: Any, choice: Callable[[Any], Any]) -> int:
    """One random decision (or one per seat when several decide at once)."""
    legal = state.legal_actions()
    if legal:
        state.apply_action(choice(legal))
        return 1
    return simultaneous(state, choice)


def engine_play(rules: str, seats: int, log: LogMode, choice: Callable[[Any], Any]) -> Play:
    """A random playout of the engine, from describe() to the end of the game.

    With a ``log`` the state keeps it and the game's log document is built and
    serialised once at the end: what a logged game costs end to end.
    """
    if log is not LogMode.NONE:

        def play_logged(seed: int) -> int:
            state = new_game(describe(rules, seats), seed, log=log)
            decisions = 0
            while not state.is_terminal():
                legal = state.legal_actions()
                if legal:
                    state.apply_action(choice(legal))
                    decisions += 1
                else:
                    decisions += simultaneous(state, choice)
            json.dumps(game_log(state))
            return decisions

        return play_logged

    def play(seed: int) -> int:
        state = new_game(describe(rules, seats), seed, log=False)
        decisions = 0
        while not state.is_terminal():
            legal = state.legal_actions()
            if legal:
                state.apply_action(choice(legal))
                decisions += 1
            else:
                decisions += simultaneous(state, choice)
        return decisions

    return play


def bare_play(choice: Callable[[Any], Any]) -> Play:
    def play(seed: int) -> int:
        _, decisions = bare_classic.play_game(seed, choice)
        return decisions

    return play


@dataclass
class Lasvegas:
    """The optional PyPI package ``lasvegas``, set up as classic with 4 seats."""

    version: str
    game: Any

    @classmethod
    def load(cls) -> Lasvegas | str:
        """The package ready to play, or why it cannot be measured."""
        try:
            from importlib.metadata import version

            import lasvegas
        except ImportError:
            return "not installed (optional: `pip install lasvegas`; not a project dependency)"
        except Exception as error:  # a broken install must not stop the benchmark
            return f"cannot be imported: {type(error).__name__}: {error}"
        # Same game as the bare loop: 4 seats, no neutral ("extra") dice, the
        # 54 classic notes (the package's default pile has 52), $50k minimum.
        game = lasvegas.Game(num_players=4, num_xtr_players=0, bills_pool=list(bare_classic.NOTES))
        return cls(version(lasvegas.__name__), game)

    def play(self, seed: int) -> int:
        random.seed(seed)  # the package draws from the global generator
        self.game.run()  # its own loop: random rolls, uniform random plays
        return 0  # it does not tell real choices from forced ones

    def money(self) -> int:
        return int(self.game.env.scores[:, 0].sum())


@dataclass
class Workload:
    key: str
    play: Play
    counts_decisions: bool = True
    next_seed: int = 0
    rates: list[float] = field(default_factory=list)
    decision_rates: list[float] = field(default_factory=list)

    def run(self, seconds: float) -> None:
        """Play whole games for about ``seconds`` and record the rates."""
        play = self.play
        seed = self.next_seed
        games = decisions = 0
        began = clock()
        deadline = began + seconds
        while True:
            decisions += play(seed + games)
            games += 1
            now = clock()
            if now >= deadline:
                break
        self.next_seed = seed + games
        elapsed = now - began
        self.rates.append(games / elapsed)
        self.decision_rates.append(decisions / elapsed)

    @property
    def median(self) -> float:
        return statistics.median(self.rates)

    @property
    def median_decisions(self) -> float | None:
        return statistics.median(self.decision_rates) if self.counts_decisions else None


# ------------------------------------------------------ clone size and time

_OPAQUE = (
    type,
    types.ModuleType,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    types.CodeType,
)
_ATOMS = (str, bytes, int, float, complex, bool, type(None))


def _slot_names(cls: type) -> list[str]:
    slots = cls.__dict__.get("__slots__", ())
    if isinstance(slots, str):
        slots = (slots,)
    names = []
    for name in slots:
        if name in ("__dict__", "__weakref__"):
            continue
        if name.startswith("__") and not name.endswith("__"):
            name = f"_{cls.__name__.lstrip('_')}{name}"  # name mangling
        names.append(name)
    return names


def reachable(root: object) -> dict[int, object]:
    """Every object reachable from ``root`` by id, each once.

    Follows __slots__, __dict__ and the items of lists, tuples, sets, deques
    and dicts (keys and values); classes, modules and functions are not
    followed nor counted.
    """
    seen: dict[int, object] = {}
    stack = [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, _OPAQUE):
            continue
        seen[id(obj)] = obj
        if isinstance(obj, _ATOMS):
            continue
        if isinstance(obj, dict):
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif isinstance(obj, list | tuple | set | frozenset | deque):
            stack.extend(obj)
        else:
            instance_dict = getattr(obj, "__dict__", None)
            if isinstance(instance_dict, dict):
                stack.append(instance_dict)
            for cls in type(obj).__mro__:
                for name in _slot_names(cls):
                    if hasattr(obj, name):
                        stack.append(getattr(obj, name))
    return seen


def deep_size(objects: dict[int, object], exclude: dict[int, object] | None = None) -> int:
    return sum(
        sys.getsizeof(obj) for key, obj in objects.items() if not exclude or key not in exclude
    )


def mid_game(rules: str, seats: int, seed: int = 12345) -> Any:
    """A no-log state halfway (in decisions) through a random game."""

    def replay(stop: int | None) -> tuple[Any, int]:
        choice = random.Random(seed).choice
        state = new_game(describe(rules, seats), seed, log=False)
        done = 0
        while not state.is_terminal() and (stop is None or done < stop):
            done += step(state, choice)
        return state, done

    total = replay(None)[1]
    return replay(total // 2)[0]


@dataclass
class CloneCost:
    bytes_added: int  # what a clone adds next to its original
    bytes_whole: int  # the clone alone, everything it reaches
    microseconds: float
    #: The same clone copying the random generator at once, as clone() did before it
    #: shared it copy on write, and how many times slower that is (paired).
    copying_microseconds: float
    speedup: float


def clone_copying_generator(state: Any) -> Any:
    """clone() as it was before copy on write: the Mersenne Twister state copied at once.

    The clone() of today plus the copy it now defers until a state draws.
    """
    other = state.clone()
    rng = random.Random(0)
    rng.setstate(state._rng.getstate())
    other._rng, other._rng_shared = rng, False
    return other


def expand_cost(quick: bool) -> float:
    """Microseconds to make the events form of a stored (moves) log: the cost of a read.

    The median over logs of random classic 4-seat games, parsed from JSON text and
    expanded, as the platform does when a page or a download asks for the events.
    """
    texts = []
    for seed in range(20_000, 20_000 + (10 if quick else 40)):
        choice = random.Random(seed).choice
        state = new_game(describe(TARGET_RULES, TARGET_SEATS), seed, log=LogMode.MOVES)
        while not state.is_terminal():
            step(state, choice)
        texts.append(json.dumps(game_log(state)))
    times = []
    for text in texts:
        start = clock()
        expand(json.loads(text))
        times.append(clock() - start)
    return statistics.median(times) * 1e6


def clone_cost(rules: str, seats: int, quick: bool) -> CloneCost:
    state = mid_game(rules, seats)
    copy = state.clone()
    original_objects = reachable(state)
    copy_objects = reachable(copy)
    added = deep_size(copy_objects, exclude=original_objects)
    whole = deep_size(copy_objects)
    del original_objects, copy_objects, copy
    number = 200 if quick else 1000

    def timed(clone: Callable[[], Any]) -> float:
        began = clock()
        for _ in range(number):
            clone()
        return (clock() - began) / number

    def copying() -> Any:
        return clone_copying_generator(state)

    now, before = [], []
    for _ in range(3 if quick else 5):  # side by side, each repetition
        now.append(timed(state.clone))
        before.append(timed(copying))
    return CloneCost(
        added,
        whole,
        statistics.median(now) * 1e6,
        statistics.median(before) * 1e6,
        statistics.median(b / a for a, b in zip(now, before, strict=True)),
    )


# ------------------------------------------------------------ sanity checks


@dataclass
class Sample:
    """Untimed: what a few hundred random games look like (the same-game check)."""

    money_per_game: float
    decisions_per_game: float | None
    #: Each game's money by seat, to compare game by game.
    games: list[tuple[int, ...]] = field(default_factory=list, repr=False)

    def summary(self) -> dict[str, float | None]:
        return {
            "money_per_game": self.money_per_game,
            "decisions_per_game": self.decisions_per_game,
        }


def sample_engine(rules: str, seats: int, games: int) -> tuple[Sample, float, float]:
    """Money and decisions of games with seeds 10000.., and mean log sizes in bytes
    (the moves form, the events form).

    Each game draws its choices from its own generator seeded with the game's
    seed, so another implementation of the same rules can replay it exactly.
    """
    decisions = moves_bytes = events_bytes = 0
    results = []
    for seed in range(10_000, 10_000 + games):
        choice = random.Random(seed).choice
        state = new_game(describe(rules, seats), seed, log=LogMode.MOVES)
        while not state.is_terminal():
            decisions += step(state, choice)
        results.append(tuple(seat.money for seat in state.result() or []))
        moves = game_log(state)
        moves_bytes += len(json.dumps(moves))
        events_bytes += len(json.dumps(expand(moves)))
    money = sum(sum(result) for result in results)
    sample = Sample(money / games, decisions / games, results)
    return sample, moves_bytes / games, events_bytes / games


def sample_bare(games: int) -> Sample:
    decisions = 0
    results = []
    for seed in range(10_000, 10_000 + games):
        money, made = bare_classic.play_game(seed, random.Random(seed).choice)
        results.append(tuple(money))
        decisions += made
    return Sample(sum(map(sum, results)) / games, decisions / games, results)


def sample_lasvegas(package: Lasvegas, games: int) -> Sample:
    money = 0
    for seed in range(10_000, 10_000 + games):
        package.play(seed)
        money += package.money()
    return Sample(money / games, None)


# ---------------------------------------------------------------- the run


def pin_to_one_core() -> str:
    if not hasattr(os, "sched_setaffinity"):
        return "not pinned (no sched_setaffinity)"
    try:
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
    except OSError as error:
        return f"not pinned ({error})"
    return f"pinned to CPU {cpu}"


def progress(message: str, enabled: bool) -> None:
    if enabled:
        print(message, file=sys.stderr, flush=True)


def run(reps: int, slice_s: float | None, quick: bool, show_progress: bool) -> dict[str, Any]:
    pinned = pin_to_one_core()
    choice = random.Random(2024).choice
    systems = [
        (system.id, seats)
        for system in vegas_engine.RULE_SYSTEMS.values()
        for seats in system.seats
    ]

    # The references first, back to back, so each repetition pairs them.
    engine_ref = Workload(
        f"{TARGET_RULES}/{TARGET_SEATS}/nolog",
        engine_play(TARGET_RULES, TARGET_SEATS, LogMode.NONE, choice),
    )
    bare = Workload("bare", bare_play(choice))
    package = Lasvegas.load()
    lasvegas = (
        Workload("lasvegas", package.play, counts_decisions=False)
        if isinstance(package, Lasvegas)
        else None
    )
    # The full log is the moves form, what the platform keeps; the events form
    # (what a viewer reads, made from it on demand) runs beside it for the target.
    logged_ref = Workload(
        f"{TARGET_RULES}/{TARGET_SEATS}/log",
        engine_play(TARGET_RULES, TARGET_SEATS, LogMode.MOVES, choice),
    )
    events_ref = Workload(
        f"{TARGET_RULES}/{TARGET_SEATS}/events",
        engine_play(TARGET_RULES, TARGET_SEATS, LogMode.EVENTS, choice),
    )
    engine: dict[tuple[str, int, bool], Workload] = {
        (TARGET_RULES, TARGET_SEATS, False): engine_ref,
        (TARGET_RULES, TARGET_SEATS, True): logged_ref,
    }
    for rules, seats in systems:
        for log in (False, True):
            if (rules, seats, log) not in engine:
                engine[rules, seats, log] = Workload(
                    f"{rules}/{seats}/{'log' if log else 'nolog'}",
                    engine_play(rules, seats, LogMode.MOVES if log else LogMode.NONE, choice),
                )
    others = [work for work in engine.values() if work not in (engine_ref, logged_ref)]
    if slice_s is None:
        # Keep the run short however many rule systems there are.
        slice_s = min(MAX_SLICE[quick], BUDGET[quick] / (reps * (len(engine) + 3)))

    # A workload that fails (a rule system mid-way through being written) is
    # reported as failed instead of stopping the whole benchmark.
    failed: dict[str, str] = {}
    warm = 0.1 * slice_s
    refs = [engine_ref, logged_ref, events_ref, bare]
    for work in [*refs, *([lasvegas] if lasvegas else []), *others]:
        try:
            work.run(warm)
        except Exception as error:
            if work in refs:
                raise
            failed[work.key] = f"{type(error).__name__}: {error}"
        work.rates.clear()
        work.decision_rates.clear()
    if lasvegas is not None and lasvegas.key in failed:
        package, lasvegas = f"failed: {failed.pop(lasvegas.key)}", None
    others = [work for work in others if work.key not in failed]

    def order(rep: int) -> list[Workload]:
        ordered = refs + ([lasvegas] if lasvegas else [])
        if rep % 2:
            ordered.reverse()  # ABBA: drift over a repetition falls on both sides
        return ordered + others

    for rep in range(reps):
        progress(f"repetition {rep + 1}/{reps} ...", show_progress)
        for work in order(rep):
            gc.collect()
            work.run(slice_s)

    progress("clone sizes, sanity samples ...", show_progress)
    sample_games = 60 if quick else 200
    rows = []
    for rules, seats in systems:
        nolog, logged = engine[rules, seats, False], engine[rules, seats, True]
        errors = [failed[work.key] for work in (nolog, logged) if work.key in failed]
        if errors:
            rows.append({"rules": rules, "seats": seats, "error": errors[0]})
            continue
        sample, log_bytes, events_bytes = sample_engine(rules, seats, sample_games // 2)
        cost = clone_cost(rules, seats, quick)
        rows.append(
            {
                "rules": rules,
                "seats": seats,
                "games_per_s": nolog.median,
                "decisions_per_s": nolog.median_decisions,
                "decisions_per_game": sample.decisions_per_game,
                "games_per_s_full_log": logged.median,
                "log_bytes_per_game": log_bytes,
                "events_log_bytes_per_game": events_bytes,
                "clone_bytes_added": cost.bytes_added,
                "clone_bytes_whole": cost.bytes_whole,
                "clone_us": cost.microseconds,
                "clone_us_copying_generator": cost.copying_microseconds,
                "clone_speedup": cost.speedup,
                "samples": {"nolog": nolog.rates, "full_log": logged.rates},
            }
        )

    paired = [e / b for e, b in zip(engine_ref.rates, bare.rates, strict=True)]
    engine_sample = sample_engine(TARGET_RULES, TARGET_SEATS, sample_games)[0]
    bare_sample = sample_bare(sample_games)
    same = sum(a == b for a, b in zip(engine_sample.games, bare_sample.games, strict=True))
    reference: dict[str, Any] = {
        "engine": {
            "games_per_s": engine_ref.median,
            "decisions_per_s": engine_ref.median_decisions,
            "samples": engine_ref.rates,
            **engine_sample.summary(),
        },
        "bare": {
            "games_per_s": bare.median,
            "decisions_per_s": bare.median_decisions,
            "engine_over_bare": statistics.median(paired),
            "samples": bare.rates,
            "identical_games": [same, sample_games],
            **bare_sample.summary(),
        },
    }
    if lasvegas is not None and isinstance(package, Lasvegas):
        paired_lv = [e / v for e, v in zip(engine_ref.rates, lasvegas.rates, strict=True)]
        reference["lasvegas"] = {
            "version": package.version,
            "games_per_s": lasvegas.median,
            "engine_over_lasvegas": statistics.median(paired_lv),
            "samples": lasvegas.rates,
            **sample_lasvegas(package, sample_games).summary(),
        }
    else:
        reference["lasvegas"] = {"skipped": package}

    paired_log = [g / e for g, e in zip(logged_ref.rates, engine_ref.rates, strict=True)]
    paired_events = [g / e for g, e in zip(events_ref.rates, engine_ref.rates, strict=True)]
    reference["events_log"] = {
        "games_per_s": events_ref.median,
        "events_log_over_no_log": statistics.median(paired_events),
        "samples": events_ref.rates,
        "expand_us": expand_cost(quick),
    }
    target_row = next(
        row for row in rows if (row["rules"], row["seats"]) == (TARGET_RULES, TARGET_SEATS)
    )
    clone_speedup = target_row.get("clone_speedup")  # none when the row failed
    measured: dict[str, float | None] = {
        "engine_over_bare": reference["bare"]["engine_over_bare"],
        "engine_over_lasvegas": reference["lasvegas"].get("engine_over_lasvegas"),
        "full_log_over_no_log": statistics.median(paired_log),
        "clone_speedup": clone_speedup if isinstance(clone_speedup, float) else None,
    }
    goals = [
        {
            "what": what,
            "goal": goal,
            "measured": measured[what],
            "met": None if value is None else value >= goal,
        }
        for what, goal in GOALS.items()
        for value in [measured[what]]
    ]
    targets = [
        {
            "what": f"{TARGET_RULES}, {TARGET_SEATS} seats, {'full log' if log else 'no log'}",
            "target_games_per_s": target,
            "measured_games_per_s": (logged_ref if log else engine_ref).median,
            "met": (logged_ref if log else engine_ref).median >= target,
        }
        for log, target in TARGETS.items()
    ]
    return {
        "engine_version": vegas_engine.__version__,
        "python": f"{sys.implementation.name} {sys.version.split()[0]}",
        "machine": f"{os.uname().sysname} {os.uname().machine}",
        "cpu": pinned,
        "clock": "wall" if clock is CLOCKS["wall"] else "cpu",
        "repetitions": reps,
        "slice_seconds": slice_s,
        "rows": rows,
        "reference": reference,
        "targets": targets,
        "goals": goals,
    }


# ----------------------------------------------------------------- output


def _num(value: float | None, digits: int = 0) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def render(report: dict[str, Any]) -> str:
    out: list[str] = []
    add = out.append
    add(
        f"Las Vegas engine benchmark: vegas_engine {report['engine_version']}, "
        f"{report['python']}, {report['machine']}, {report['cpu']}, "
        f"{'wall' if report['clock'] == 'wall' else 'CPU'} time"
    )
    add(
        f"Random playouts with default options; median of {report['repetitions']} interleaved "
        f"repetitions of {report['slice_seconds']:.2f} s per workload."
    )
    add("")
    header = (
        f"{'rules':<10} {'seats':>5} {'games/s':>8} {'decisions/s':>11} {'dec/game':>8} "
        f"{'games/s':>8} {'log cost':>8} {'log KiB':>7} {'clone B':>7} {'state B':>7} "
        f"{'clone us':>8} {'x faster':>8}  target [1]"
    )
    groups = (
        f"{'':<16} {'---------- no log [2] ----------':>30} {'--- full log [3] ---':>26}"
        f"   {'------- clone [4] -------':>33}"
    )
    add(groups)
    add(header)
    add("-" * len(header))
    targets = {t["what"]: t for t in report["targets"]}
    for row in report["rows"]:
        if "error" in row:
            add(f"{row['rules']:<10} {row['seats']:>5}  failed: {row['error']}")
            continue
        target = ""
        if (row["rules"], row["seats"]) == (TARGET_RULES, TARGET_SEATS):
            nolog, logged = targets.values()
            target = f">={nolog['target_games_per_s']:,} / >={logged['target_games_per_s']:,}"
        add(
            f"{row['rules']:<10} {row['seats']:>5} {_num(row['games_per_s']):>8} "
            f"{_num(row['decisions_per_s']):>11} {_num(row['decisions_per_game'], 1):>8} "
            f"{_num(row['games_per_s_full_log']):>8} "
            f"{row['games_per_s'] / row['games_per_s_full_log']:>7.2f}x "
            f"{row['log_bytes_per_game'] / 1024:>7.1f} {row['clone_bytes_added']:>7,} "
            f"{row['clone_bytes_whole']:>7,} {row['clone_us']:>8.1f} "
            f"{row['clone_speedup']:>7.2f}x  {target}"
        )
    add("")
    ref = report["reference"]
    engine, bare, lv = ref["engine"], ref["bare"], ref["lasvegas"]
    add(f"Reference: {TARGET_RULES}, {TARGET_SEATS} seats, no neutral dice, no log [5]")

    def line(name: str, games: str, decisions: str, ratio: str, money: str, per_game: str) -> None:
        add(f"  {name:<24} {games:>8} {decisions:>11} {ratio:>20} {money:>12} {per_game:>8}")

    line("", "games/s", "decisions/s", "ratio", "$ paid/game", "dec/game")
    line(
        "vegas_engine",
        _num(engine["games_per_s"]),
        _num(engine["decisions_per_s"]),
        "",
        _num(engine["money_per_game"]),
        _num(engine["decisions_per_game"], 1),
    )
    line(
        "bench/bare_classic.py",
        _num(bare["games_per_s"]),
        _num(bare["decisions_per_s"]),
        f"engine/bare {bare['engine_over_bare']:.2f}",
        _num(bare["money_per_game"]),
        _num(bare["decisions_per_game"], 1),
    )
    if "skipped" in lv:
        add(f"  {'lasvegas (PyPI)':<24} skipped: {lv['skipped']}")
    else:
        line(
            f"lasvegas {lv['version']} (PyPI)",
            _num(lv["games_per_s"]),
            "-",
            f"engine/lasvegas {lv['engine_over_lasvegas']:.2f}",
            _num(lv["money_per_game"]),
            "-",
        )
    same, sampled = bare["identical_games"]
    add(
        f"  bare_classic.py replays {same}/{sampled} sampled engine games exactly "
        "(same seeds and choices, same money) [6]"
    )
    events = ref["events_log"]
    target_row = next(
        row
        for row in report["rows"]
        if (row.get("rules"), row.get("seats")) == (TARGET_RULES, TARGET_SEATS)
    )
    add("")
    add(f"Logs: {TARGET_RULES}, {TARGET_SEATS} seats, games/s with each form kept and written [3]")
    add(
        f"  moves (stored)  {_num(target_row['games_per_s_full_log']):>8} games/s "
        f"{target_row['log_bytes_per_game'] / 1024:>6.1f} KiB"
    )
    add(
        f"  events          {_num(events['games_per_s']):>8} games/s "
        f"{target_row['events_log_bytes_per_game'] / 1024:>6.1f} KiB   "
        f"events / no log {events['events_log_over_no_log']:.2f}"
    )
    add(f"  expand a stored log to its events (a read): {events['expand_us']:,.0f} us")
    add("")
    add("Targets (from the issue; reported, never asserted):")
    for target in report["targets"]:
        verdict = "met" if target["met"] else "NOT met"
        add(
            f"  {target['what']:<30} >= {target['target_games_per_s']:>5,} games/s   "
            f"measured {_num(target['measured_games_per_s']):>6}   {verdict}"
        )
    add("")
    add("Goal 4 of issue 14 (ratios measured side by side in this run; never asserted) [7]:")
    names = {
        "engine_over_bare": "engine / bare loop, no log",
        "engine_over_lasvegas": "engine / lasvegas, no log",
        "full_log_over_no_log": "full log / no log (games/s)",
        "clone_speedup": "clone(): x faster than copying",
    }
    for goal in report["goals"]:
        value = goal["measured"]
        verdict = "not measured" if goal["met"] is None else "met" if goal["met"] else "NOT met"
        shown = "-" if value is None else f"{value:.2f}"
        add(f"  {names[goal['what']]:<32} >= {goal['goal']:<4}  measured {shown:>6}   {verdict}")
    add("")
    add(FOOTNOTES)
    return "\n".join(out)


FOOTNOTES = """\
[1] The issue's targets, games/s without log / with the full log (classic, 4 seats).
[2] One game = describe() + new_game(log=False) + apply_action(rng.choice(legal_actions()))
    until is_terminal(), on one core, GC on. decisions = apply_action calls: real choices
    only; forced moves (a single legal action) are applied by the engine and not counted.
    dec/game is the mean over an untimed sample of games. Where several seats decide at
    once (cardgame), each picks from legal_actions(seat) and each pick is a decision.
[3] new_game(log="moves") and, once the game is over, json.dumps(game_log(state)): what a
    logged game costs end to end, in the form the platform stores (the moves: each chosen
    action, the seed deals the rest; vegas_engine.log.expand makes the events from them,
    exactly). log cost = no-log games/s over full-log games/s; log KiB = size of that JSON
    text. Under "Logs", the events form (new_game(log=True): every event kept as it
    happens) runs beside it, paired with the no-log reference, and "expand" is the time
    to parse a stored log and make its events, as a page or a download does.
[4] A mid-game clone (no log; half the decisions of a random game played). clone B = the
    bytes the clone adds next to its original: sys.getsizeof summed over each object
    reachable from the clone (through __slots__, __dict__ and the items of lists,
    tuples, dicts, sets and deques) that is not also reachable from the original, so the
    shared description and setup, the interned action strings, enum members and the int
    objects the copied lists point at are not counted, nor the random generator: a clone
    shares it until one of them draws (copy on write: about 2.5 KB of Mersenne Twister
    state, copied then, at most once per state). state B = everything reachable from the
    clone alone, shared objects included (classes, modules and functions never). clone
    us = time of state.clone(); x faster = the time of a clone that copies the generator at
    once, as clone() did before, over clone us (median of paired repetitions).
[5] Each repetition runs the engine and the references back to back (order reversed on
    every other repetition); ratio = median of the per-repetition ratios. bare_classic.py
    plays only this game, written as lean as plain Python allows; lasvegas is the public
    PyPI package, optional and never a project dependency, set up with the same 54 notes,
    no neutral dice, and played by its own Game.run() loop. $ paid/game and dec/game come
    from an untimed sample: close values say the three play the same game.
[6] bare_classic.py draws its dice, pile shuffle and choices in the same order as the
    engine, so with the same seeds it plays the very same games: a check that the
    reference is the same game. If the engine changes how it draws its randomness this
    count drops, and only the means above remain comparable.
[7] engine / bare loop and engine / lasvegas are the ratios of [5]; full log / no log =
    median of per-repetition ratios of full-log over no-log games/s, classic with 4 seats,
    the two run back to back with the references; clone() = x faster of [4], classic with
    4 seats."""


def profile(games: int) -> str:
    choice = random.Random(2024).choice
    play = engine_play(TARGET_RULES, TARGET_SEATS, LogMode.NONE, choice)
    profiler = cProfile.Profile()
    profiler.enable()
    for seed in range(games):
        play(seed)
    profiler.disable()
    text = io.StringIO()
    stats = pstats.Stats(profiler, stream=text)
    stats.sort_stats(pstats.SortKey.TIME).print_stats(15)
    title = f"cProfile of {games} games of {TARGET_RULES}, {TARGET_SEATS} seats, no log:"
    return f"{title}\n{text.getvalue()}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a short run (a few seconds)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    parser.add_argument("--reps", type=int, help="interleaved repetitions (default 5, quick 3)")
    parser.add_argument(
        "--slice", type=float, help="seconds per workload per repetition (default: fit the budget)"
    )
    parser.add_argument(
        "--profile",
        type=int,
        nargs="?",
        const=2000,
        metavar="GAMES",
        help="only profile classic 4 seats",
    )
    parser.add_argument(
        "--wall", action="store_true", help="time with the wall clock instead of CPU time"
    )
    args = parser.parse_args(argv)
    global clock
    clock = CLOCKS["wall" if args.wall else "cpu"]
    if args.profile is not None:
        pin_to_one_core()
        print(profile(args.profile))
        return 0
    reps = args.reps or (3 if args.quick else 5)
    slice_s = args.slice
    report = run(reps, slice_s, args.quick, show_progress=not args.json)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
