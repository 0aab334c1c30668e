"""The levels' strength: every level against the others on every default ladder's game.

    python3 bench/levels.py            # every ladder; 2 deals per table, 6 of a duel: ~45 min
    python3 bench/levels.py --quick    # 1 game per table, no README (a smoke run, ~2 minutes)
    python3 bench/levels.py --deals 4 --duel-deals 6 --jobs 2
    python3 bench/levels.py --ladder classic-4 --ladder sixdice-4   # those only, no README

The levels are ``bots_sdk.levels.LEVELS``. For each default ladder
(``load_house_bots.DEFAULT_LADDERS``: its rule system, seats, options and
time bank, with the ladder's time per decision and memory), every table of
that many levels plays each deal once from every seat (seats rotated, the
same dice and cards: less luck), by the SDK's referee, each bot in the
sandbox as the platform runs them (bare, with a note, where the sandbox
cannot run). The Elo of each level is the SDK's rating fit
(``bots_sdk.rating.fit``, every pair of a table as one game), anchored at
level 1 = 1000, with a standard error from a bootstrap over deals. The
strongest level's margin over the next one is its share of head-to-head
finishes ahead (a tie counts half) over every pair of their seats at a table,
with a 95% interval (bootstrap over deals): the round robin's games and, per
ladder, a duel table of those two alone (two of each at four seats), whose
games count in the Elo fit too.

A full run writes the table into bench/README.md between its markers. It
prints numbers and never fails on one.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from itertools import combinations
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
# bench/platform.py is named like the standard library's `platform`: keep its folder off the path.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != BENCH_DIR]
sys.path[:0] = [str(REPO), str(REPO / "platform")]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")

import django

django.setup()

from arena.ladders.management.commands.load_house_bots import (
    DEFAULT_LADDERS,
    DefaultLadder,
)
from arena.matches.games import MatchGame
from bots_sdk.launcher import house_bot, sandbox_problem
from bots_sdk.levels import LEVELS
from bots_sdk.rating import fit
from bots_sdk.referee import Match, rotations
from vegas_engine import describe

README = REPO / "bench" / "README.md"
BEGIN = "<!-- levels:begin (bench/levels.py writes this table) -->"
END = "<!-- levels:end -->"
#: Level 1's Elo: every other level is measured from it.
ANCHOR = 1000.0
BOOTSTRAP = 400
#: The same key every run: the bots' seeds, and so the games, repeat.
BOT_SEED_KEY = b"bench/levels.py: the levels' seeds"

#: One game: (level index, rank) for each seat.
Game = list[tuple[int, int]]


@dataclass(frozen=True)
class Table:
    ladder: DefaultLadder
    levels: tuple[int, ...]
    deals: int
    rotate: bool
    first_seed: int
    sandboxed: bool


@dataclass
class TableResult:
    ladder: str
    #: Per deal, its games.
    deals: list[list[Game]]
    #: Per level index: every decision's time (ms).
    decision_ms: dict[int, list[float]]
    faults: list[str]


def play_table(table: Table) -> TableResult:
    """Play one table's deals (each from every seat when ``rotate``) in one match."""
    ladder = table.ladder
    game = MatchGame(
        ladder.rules, ladder.seats, dict(ladder.options), time_bank_ms=ladder.time_bank_ms
    )
    description = describe(ladder.rules, ladder.seats, dict(ladder.options))
    bots = [replace(house_bot(LEVELS[i].bot), trusted=not table.sandboxed) for i in table.levels]
    result = TableResult(ladder.slug, [], {i: [] for i in table.levels}, [])
    per_deal = ladder.seats if table.rotate else 1
    with Match(bots, game.limits(), bot_seed_key=BOT_SEED_KEY) as match:
        seatings = list(rotations(ladder.seats, table.deals * per_deal))
        for deal in range(table.deals):
            games: list[Game] = []
            for seating in seatings[deal * per_deal : (deal + 1) * per_deal]:
                record = match.play(description, table.first_seed + deal, seating)
                players = [table.levels[player] for player in seating]
                games.append([(players[entry["seat"]], entry["rank"]) for entry in record.result])
                for seat in record.seats:
                    result.decision_ms[players[seat.seat]].extend(seat.decision_ms)
                result.faults.extend(
                    f"{ladder.slug} {LEVELS[players[seat.seat]].bot}: {seat.fault.describe()}"
                    for seat in record.seats
                    if seat.fault is not None
                )
            result.deals.append(games)
    return result


def tables_of(ladder: DefaultLadder, deals: int, rotate: bool, sandboxed: bool) -> list[Table]:
    """Every table of ``ladder.seats`` different levels."""
    return [
        Table(ladder, levels, deals, rotate, 1_000 * index, sandboxed)
        for index, levels in enumerate(combinations(range(len(LEVELS)), ladder.seats))
    ]


def duel_of(ladder: DefaultLadder, deals: int, sandboxed: bool) -> Table:
    """The two strongest levels alone, taking the seats in turn (two of each at four
    seats): many more games between them than the round robin plays."""
    top, below = len(LEVELS) - 1, len(LEVELS) - 2
    levels = tuple(top if seat % 2 == 0 else below for seat in range(ladder.seats))
    return Table(ladder, levels, deals, True, 500_000, sandboxed)


@dataclass(frozen=True)
class Rated:
    elo: list[float]
    error: list[float]


def rate(deals: Sequence[list[Game]], rng: random.Random) -> Rated:
    """Elo anchored at level 1, with standard errors from a bootstrap over deals."""
    count = len(LEVELS)

    def anchored(sample: Sequence[list[Game]]) -> list[float]:
        elo = fit([game for deal in sample for game in deal], count)
        return [ANCHOR + e - elo[0] for e in elo]

    point = anchored(deals)
    draws = [anchored([rng.choice(deals) for _ in deals]) for _ in range(BOOTSTRAP)]
    errors = []
    for level in range(count):
        values = [draw[level] for draw in draws]
        mean = sum(values) / len(values)
        errors.append(math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1)))
    return Rated(point, errors)


@dataclass(frozen=True)
class HeadToHead:
    games: int
    ahead: float
    low: float
    high: float

    @property
    def share(self) -> float:
        return self.ahead / self.games if self.games else math.nan


def head_to_head(deals: Sequence[list[Game]], a: int, b: int, rng: random.Random) -> HeadToHead:
    """``a``'s share of finishes ahead of ``b`` (ties half), over every pair of a seat of
    ``a`` and a seat of ``b`` at a table; 95% interval over deals."""

    def tally(sample: Sequence[list[Game]]) -> tuple[int, float]:
        pairs, ahead = 0, 0.0
        for deal in sample:
            for game in deal:
                for level_a, rank_a in game:
                    for level_b, rank_b in game:
                        if level_a == a and level_b == b:
                            pairs += 1
                            ahead += 1.0 if rank_a < rank_b else 0.5 if rank_a == rank_b else 0.0
        return pairs, ahead

    games, ahead = tally(deals)
    met = [deal for deal in deals if tally([deal])[0]]
    if not met:
        return HeadToHead(0, 0.0, math.nan, math.nan)
    shares = sorted(
        ahead_ / games_
        for games_, ahead_ in (tally([rng.choice(met) for _ in met]) for _ in range(BOOTSTRAP))
        if games_
    )
    return HeadToHead(
        games, ahead, shares[int(0.025 * len(shares))], shares[int(0.975 * len(shares)) - 1]
    )


def report(
    results: dict[str, list[list[Game]]],
    times: dict[int, list[float]],
    faults: list[str],
    header: str,
) -> str:
    rng = random.Random(0)
    ladders = list(results)
    lines = [header, ""]
    lines.append("| level | bot | " + " | ".join(ladders) + " | decision ms (median, max) |")
    lines.append("|---|---|" + "---:|" * len(ladders) + "---:|")
    rated = {slug: rate(results[slug], rng) for slug in ladders}
    for index, level in enumerate(LEVELS):
        cells = []
        for slug in ladders:
            r = rated[slug]
            cells.append(
                f"{r.elo[index]:.0f}"
                if index == 0
                else f"{r.elo[index]:.0f} ± {r.error[index]:.0f}"
            )
        own = sorted(times[index])
        spent = f"{own[len(own) // 2]:.0f}, {own[-1]:.0f}" if own else "-"
        lines.append(f"| {level.number} | {level.bot} | " + " | ".join(cells) + f" | {spent} |")
    lines.append("")
    strongest, next_one = len(LEVELS) - 1, len(LEVELS) - 2
    top, below = LEVELS[strongest].bot, LEVELS[next_one].bot
    lines.append(
        f"{top} against {below}: its share of finishes ahead (ties half) over every pair "
        f"of a {top} seat and a {below} seat at a table (the round robin's games and "
        "their duel's), 95% interval:"
    )
    lines.append("")
    lines.append("| ladder | pairs | share | 95% interval |")
    lines.append("|---|---:|---:|---|")
    every: list[list[Game]] = []
    for slug in ladders:
        every.extend(results[slug])
        h = head_to_head(results[slug], strongest, next_one, rng)
        lines.append(f"| {slug} | {h.games} | {h.share:.3f} | {h.low:.3f} - {h.high:.3f} |")
    h = head_to_head(every, strongest, next_one, rng)
    lines.append(f"| all | {h.games} | {h.share:.3f} | {h.low:.3f} - {h.high:.3f} |")
    lines.append("")
    ordered = [
        slug
        for slug in ladders
        if all(a < b for a, b in zip(rated[slug].elo, rated[slug].elo[1:], strict=False))
    ]
    lines.append(
        f"Levels in order of strength (each above the one below) on {len(ordered)} of "
        f"{len(ladders)} ladders" + (f" ({', '.join(ordered)})." if ordered else ".")
    )
    lines.append(f"Faults: {len(faults)}." + "".join(f"\n- {fault}" for fault in faults[:20]))
    return "\n".join(lines)


def write_readme(table: str) -> None:
    text = README.read_text()
    if BEGIN not in text or END not in text:
        print(f"bench/README.md has no {BEGIN!r} ... {END!r} markers: not written")
        return
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    README.write_text(f"{head}{BEGIN}\n{table}\n{END}{tail}")
    print("written into bench/README.md")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="1 game per table; no README")
    parser.add_argument("--deals", type=int, default=2, help="deals per table (default 2)")
    parser.add_argument(
        "--duel-deals",
        type=int,
        default=6,
        help="deals per ladder of the two strongest levels alone (default 6; 0: none)",
    )
    parser.add_argument("--jobs", type=int, default=2, help="tables played at once (default 2)")
    parser.add_argument("--no-readme", action="store_true", help="do not write bench/README.md")
    parser.add_argument(
        "--ladder",
        action="append",
        choices=[ladder.slug for ladder in DEFAULT_LADDERS],
        help="only this default ladder (repeatable); never writes bench/README.md",
    )
    args = parser.parse_args(argv)
    problem = sandbox_problem()
    sandboxed = problem is None
    if problem:
        print(f"the sandbox cannot run here ({problem}): the bots run bare")
    deals = 1 if args.quick else args.deals
    chosen = set(args.ladder or [ladder.slug for ladder in DEFAULT_LADDERS])
    ladders = [ladder for ladder in DEFAULT_LADDERS if ladder.slug in chosen]
    tables = [
        table for ladder in ladders for table in tables_of(ladder, deals, not args.quick, sandboxed)
    ]
    duels = 0 if args.quick else args.duel_deals
    if duels:
        tables += [duel_of(ladder, duels, sandboxed) for ladder in ladders]
    results: dict[str, list[list[Game]]] = {ladder.slug: [] for ladder in ladders}
    times: dict[int, list[float]] = {i: [] for i in range(len(LEVELS))}
    faults: list[str] = []
    started = time.monotonic()
    print(
        f"{len(tables)} tables of levels {', '.join(level.bot for level in LEVELS)} "
        f"on {len(ladders)} ladders, {deals} deal(s) each"
        + ("" if args.quick else ", each from every seat")
        + (f", and a duel of the strongest two, {duels} deal(s)" if duels else "")
        + f"; {'sandboxed' if sandboxed else 'bare'}; {args.jobs} at once",
        flush=True,
    )
    # The slowest tables first (more seats, the search levels), so the pool ends together.
    order = sorted(tables, key=lambda t: (-t.ladder.seats, -sum(t.levels)))
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for done, result in enumerate(pool.map(play_table, order), start=1):
            results[result.ladder].extend(result.deals)
            for level, spent in result.decision_ms.items():
                times[level].extend(spent)
            faults.extend(result.faults)
            if done % 5 == 0 or done == len(order):
                print(
                    f"  {done}/{len(order)} tables, {time.monotonic() - started:.0f} s", flush=True
                )
    games = sum(len(deal) for deals_ in results.values() for deal in deals_)
    header = (
        f"Elo per level on each default ladder's game (level 1 = {ANCHOR:.0f}; ± one "
        f"standard error, bootstrap over deals): {games} games, {deals} deal(s) per table"
        + ("" if args.quick else " each from every seat")
        + (f", and {duels} deal(s) of the strongest two alone (a duel)" if duels else "")
        + f", {'sandboxed' if sandboxed else 'bare'}, the ladders' limits."
    )
    table = report(results, times, faults, header)
    print()
    print(table)
    print(f"\n{time.monotonic() - started:.0f} s")
    if not args.quick and not args.no_readme and not args.ladder:
        write_readme(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
