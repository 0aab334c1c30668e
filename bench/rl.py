"""RL environments' speed: decisions per CPU-second beside the raw engine's, every rule system.

    python3 bench/rl.py                 # every rule system, 4 seats; writes bench/README.md
    python3 bench/rl.py --quick         # short slices, no README (a smoke run, ~10 s)
    python3 bench/rl.py --profile aec   # cProfile of one workload on classic-4: top functions

Measured side by side in one run, on one core, each workload for a time slice
per repetition, interleaved, the median over repetitions (CPU time,
``time.process_time``). A *decision* is one seat's choice, as the engine
counts it: forced moves are not decisions. The workloads, at each rule
system's 4-seat table with its default options:

- ``raw``: random legal playouts on the engine (``legal_actions``, a
  ``random.choice``, ``apply_action``): the reference;
- ``aec``: the PettingZoo environment as ``bots_sdk.rl.pettingzoo.env()``
  gives it (checked for order, bounds and illegal actions), looping
  ``agent_iter``/``last``/``step`` as PettingZoo's docs do;
- ``aec raw``: the same on ``raw_env`` (no checks);
- ``gym``: ``VegasEnv`` with random house bots at the other seats; its
  decisions count the bots' too, as the raw engine counts every seat's;
- ``vector``: ``VectorEnv`` with 64 games, one decision per game a step.

Each environment's actions are random legal ones drawn from its mask, cheaply
(a real agent's policy costs more; the environment is what is measured). The
table gives decisions per CPU-second and each environment's ratio to ``raw``
(issue 37's target: >= 0.5x). PettingZoo's own ``connect_four_v3``
(``pettingzoo.classic``; it needs pygame) runs the ``aec`` loop too, when it
can be imported; the issue asks the ``aec`` environment on classic-4 to be
faster. Nothing is asserted; the exit code is 0 whatever the numbers.
"""

from __future__ import annotations

import sys
from pathlib import Path

# bench/platform.py shadows the standard library's platform while this folder
# leads sys.path (see bench/engine.py): move the folder to the end.
_BENCH = str(Path(__file__).resolve().parent)
sys.path[:] = [p for p in sys.path if str(Path(p or ".").resolve()) != _BENCH] + [_BENCH]

import argparse
import cProfile
import io
import os
import pstats
import random
import statistics
import time
import warnings
from collections.abc import Callable, Sequence
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np

from bots_sdk.rl import _engine
from bots_sdk.rl.gymnasium import VegasEnv
from bots_sdk.rl.pettingzoo import env, raw_env
from bots_sdk.rl.vector import VectorEnv
from vegas_engine import describe, new_game

README = ROOT / "bench" / "README.md"
BEGIN = "<!-- rl:begin (bench/rl.py writes this table) -->"
END = "<!-- rl:end -->"
RULES = ("classic", "boulevard", "cardgame", "sixdice", "royale")
SEATS = 4
VECTOR_GAMES = 64
TARGET = 0.5
#: A workload: runs for at least ``seconds`` of CPU; returns (decisions, CPU seconds).
Workload = Callable[[float], tuple[int, float]]


class Counter:
    """Counts every decision the bridges apply (their one call into the engine)."""

    def __init__(self) -> None:
        self.count = 0
        self._apply = _engine.apply

    def __enter__(self) -> Counter:
        def counted(state: Any, action: str, seat: int) -> None:
            self.count += 1
            self._apply(state, action, seat)

        _engine.apply = counted
        return self

    def __exit__(self, *_: object) -> None:
        _engine.apply = self._apply


def raw(rules: str) -> Workload:
    description = describe(rules, SEATS, {})

    def run(seconds: float) -> tuple[int, float]:
        rng = random.Random(1)
        decisions, start = 0, time.process_time()
        while time.process_time() - start < seconds:
            state = new_game(description, rng.getrandbits(63), log=False)
            while movers := state.to_move():
                seat = movers[0]
                state.apply_action(rng.choice(state.legal_actions(seat)), seat)
                decisions += 1
        return decisions, time.process_time() - start

    return run


def choose(mask: Any, rng: random.Random) -> int:
    """A random legal action of a mask: cheap, so the environment is what is timed."""
    legal = mask.nonzero()[0]
    return int(legal[rng.randrange(len(legal))])


def aec(make: Callable[[], Any]) -> Workload:
    def run(seconds: float) -> tuple[int, float]:
        game, rng = make(), random.Random(1)
        decisions, seed, start = 0, 0, time.process_time()
        while time.process_time() - start < seconds:
            game.reset(seed=seed)
            seed += 1
            for _ in game.agent_iter():
                observation, _, termination, truncation, _ = game.last()
                if termination or truncation:
                    game.step(None)
                else:
                    game.step(choose(observation["action_mask"], rng))
                    decisions += 1
        return decisions, time.process_time() - start

    return run


def gym(rules: str) -> Workload:
    def run(seconds: float) -> tuple[int, float]:
        game, rng = VegasEnv(rules, SEATS, opponents="random", seat=None), random.Random(1)
        seed, start = 0, time.process_time()
        with Counter() as counter:
            while time.process_time() - start < seconds:
                _, info = game.reset(seed=seed)
                seed += 1
                done = False
                while not done:
                    _, _, done, _, info = game.step(choose(info["action_mask"], rng))
        return counter.count, time.process_time() - start

    return run


def vector(rules: str) -> Workload:
    def run(seconds: float) -> tuple[int, float]:
        games = VectorEnv(VECTOR_GAMES, rules, SEATS)
        rng = np.random.default_rng(1)
        _, info = games.reset(seed=1)
        decisions, start = 0, time.process_time()
        while time.process_time() - start < seconds:
            # A random legal action in every game at once: the largest random score
            # among the legal ones.
            scores = rng.random(info["action_mask"].shape) * info["action_mask"]
            _, _, _, _, info = games.step(scores.argmax(axis=1))
            decisions += VECTOR_GAMES
        return decisions, time.process_time() - start

    return run


def connect_four() -> tuple[Workload | None, str]:
    """PettingZoo's connect four in the ``aec`` loop, or why it cannot run."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from pettingzoo.classic import connect_four_v3
    except ImportError as error:
        return None, (
            f"not measured: pettingzoo.classic.connect_four_v3 cannot be imported ({error}); "
            "pip install 'pettingzoo[classic]' adds pygame, which it needs"
        )
    return aec(connect_four_v3.env), "measured"


def workloads(rules: str) -> dict[str, Workload]:
    return {
        "raw": raw(rules),
        "aec": aec(lambda: env(rules, SEATS)),
        "aec raw": aec(lambda: raw_env(rules, SEATS)),
        "gym": gym(rules),
        "vector": vector(rules),
    }


def measure(runs: dict[str, Workload], reps: int, seconds: float) -> dict[str, float]:
    """Decisions per CPU-second of each workload: the median over interleaved repetitions."""
    rates: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(reps):
        for name, run in runs.items():
            decisions, spent = run(seconds)
            rates[name].append(decisions / spent)
    return {name: statistics.median(values) for name, values in rates.items()}


def table(results: dict[str, dict[str, float]], four: float | None, four_note: str) -> str:
    columns = ["aec", "aec raw", "gym", "vector"]
    lines = [
        "Decisions per CPU-second (4 seats, default options) and each environment's "
        f"ratio to the raw engine (target >= {TARGET}x):",
        "",
        "| rules | raw | " + " | ".join(columns) + " |",
        "|---|---:|" + "---:|" * len(columns),
    ]
    for rules, rates in results.items():
        cells = [f"{rates[c]:,.0f} ({rates[c] / rates['raw']:.2f}x)" for c in columns]
        lines.append(f"| {rules} | {rates['raw']:,.0f} | " + " | ".join(cells) + " |")
    lines.append("")
    if four is None:
        lines.append(f"PettingZoo's connect_four_v3: {four_note}.")
    else:
        classic = results.get("classic", {}).get("aec")
        versus = "" if classic is None else f"; classic-4 `aec` is {classic / four:.2f}x it"
        lines.append(
            f"PettingZoo's connect_four_v3 in the same `aec` loop: {four:,.0f} decisions "
            f"per CPU-second{versus} (target > 1x)."
        )
    return "\n".join(lines)


def write_readme(text: str) -> None:
    readme = README.read_text()
    if BEGIN not in readme or END not in readme:
        print(f"bench/README.md has no {BEGIN!r} ... {END!r} markers: not written")
        return
    head, rest = readme.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    README.write_text(f"{head}{BEGIN}\n{text}\n{END}{tail}")
    print("written into bench/README.md")


def profiled(workload: str, seconds: float) -> pstats.Stats:
    run = workloads("classic")[workload]
    profiler = cProfile.Profile()
    profiler.enable()
    run(seconds)
    profiler.disable()
    return pstats.Stats(profiler, stream=io.StringIO())


def profile(workload: str, seconds: float) -> None:
    stats = profiled(workload, seconds)
    stats.stream = sys.stdout  # type: ignore[attr-defined]  # (pstats types omit it)
    stats.sort_stats("tottime").print_stats(15)


#: Where a profiled function's own time goes, by the path of its file.
AREAS = (
    ("bots_sdk/rl/encoding.py", "the encoder"),
    ("vegas_engine/", "the engine"),
    ("bots_sdk/rl/", "the environment"),
    ("pettingzoo/", "PettingZoo's loop"),
    ("bench/", "the benchmark's loop and random choices"),
    ("random.py", "the benchmark's loop and random choices"),
)


def dominant(workload: str, seconds: float, top: int = 5) -> str:
    """Where ``workload``'s own time goes on classic-4 (cProfile): by area, and the
    functions with the most."""
    stats = profiled(workload, seconds)
    entries = stats.stats  # type: ignore[attr-defined]
    total = sum(entry[2] for entry in entries.values())
    areas: dict[str, float] = {}
    for (path, _, _), entry in entries.items():
        area = next((name for part, name in AREAS if part in path), "numpy and builtins")
        areas[area] = areas.get(area, 0.0) + entry[2] / total
    by_area = ", ".join(
        f"{name} {share:.0%}" for name, share in sorted(areas.items(), key=lambda a: -a[1])
    )
    ranked = sorted(entries.items(), key=lambda item: item[1][2], reverse=True)[:top]
    functions = ", ".join(
        f"`{name}` ({Path(path).name}:{line}) {entry[2] / total:.0%}"
        for (path, line, name), entry in ranked
    )
    return (
        f"What dominates `{workload}` on classic-4 (cProfile, own time): {by_area}. "
        f"Most own time: {functions}."
    )


def pin_to_one_core() -> str:
    if not hasattr(os, "sched_setaffinity"):
        return "not pinned (no sched_setaffinity)"
    cpu = max(os.sched_getaffinity(0))
    try:
        os.sched_setaffinity(0, {cpu})
    except OSError as error:
        return f"not pinned ({error})"
    return f"pinned to CPU {cpu}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="short slices; no README")
    parser.add_argument("--reps", type=int, help="interleaved repetitions (default 3; 1 quick)")
    parser.add_argument("--slice", type=float, help="CPU seconds a slice (default 1.0; 0.2 quick)")
    parser.add_argument("--no-readme", action="store_true", help="do not write bench/README.md")
    parser.add_argument(
        "--profile",
        choices=["raw", "aec", "aec raw", "gym", "vector"],
        help="only profile this workload on classic-4 and print the top functions",
    )
    args = parser.parse_args(argv)
    print(pin_to_one_core())
    reps = args.reps or (1 if args.quick else 3)
    seconds = args.slice or (0.2 if args.quick else 1.0)
    if args.profile:
        profile(args.profile, seconds * 3)
        return 0
    results: dict[str, dict[str, float]] = {}
    for rules in RULES:
        results[rules] = measure(workloads(rules), reps, seconds)
        rates = results[rules]
        print(
            f"{rules:9s} raw {rates['raw']:9,.0f}  "
            + "  ".join(
                f"{n} {r:8,.0f} ({r / rates['raw']:.2f}x)" for n, r in rates.items() if n != "raw"
            ),
            flush=True,
        )
    four_run, four_note = connect_four()
    four = None if four_run is None else measure({"c4": four_run}, reps, seconds)["c4"]
    text = table(results, four, four_note) + "\n\n" + dominant("aec", seconds)
    print()
    print(text)
    if not (args.quick or args.no_readme):
        write_readme(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
