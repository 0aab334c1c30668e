"""A quick screen of ismcts variants against montecarlo, in process: no sandbox, no clock.

    python3 bench/ismcts_screen.py classic 4 --scale 0.35 --deals 40 --variant ahead

Each deal is played twice per variant (the variant in the even seats, then in the
odd ones; montecarlo in the rest), and every variant plays the same deals, so the
variants are compared pair by pair on the same dice and cards. The shares count
head-to-head finishes ahead of montecarlo by rank (a tie half), as bench/levels.py
does. Neither bot is timed: ismcts plays its :data:`WORK` times ``--scale`` and
montecarlo that share of its playouts, so a screen only compares variants of the
search with each other; the ladders' verdict is bench/levels.py, sandboxed.
Not part of ``make bench``: it prints its shares and writes no file.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != BENCH_DIR]
sys.path[:0] = [str(REPO)]

from bots_sdk import Bot
from bots_sdk.house import ismcts_bot
from bots_sdk.house.ismcts_bot import Arm, IsmctsBot, Node
from bots_sdk.house.montecarlo_bot import MonteCarloBot
from vegas_engine import State, describe, new_game, observe
from vegas_engine.policies import VALUATIONS, greedy_policy

#: A time bank no search reaches: the bots play their work, never their clock.
UNTIMED_MS = 10**9


class Ahead(IsmctsBot):
    """Scores a playout as the bench counts: the share of rivals finished ahead of."""

    def score(self, state: State) -> float:
        result = state.result()
        assert result is not None
        mine = result[self.seat].rank
        rivals = [r.rank for r in result if r.seat != self.seat]
        return sum(1.0 if mine < r else 0.5 if mine == r else 0.0 for r in rivals) / len(rivals)


class Flat(IsmctsBot):
    """The root's halving only: greedy plays the bot's own later decisions too."""

    def select(self, node: Node, state: State, legal: Sequence[str]) -> str:
        action = greedy_policy(state, self.seat, self.rng)
        node.arms.setdefault(action, Arm())
        return action


class EpsilonRivals(IsmctsBot):
    """The rivals play a random legal action 15% of the time in the search's playouts."""

    epsilon = 0.15

    def iterate(self, state: State, first: str, root: Arm) -> None:
        # The search calls its module's greedy_policy for every seat: swap it for a while.
        namespace = vars(ismcts_bot)
        greedy = namespace["greedy_policy"]

        def rival(world: State, seat: int, rng: object) -> str:
            if seat != self.seat and self.rng.random() < self.epsilon:
                return self.rng.choice(world.legal_actions(seat))
            action: str = greedy(world, seat, self.rng)
            return action

        namespace["greedy_policy"] = rival
        try:
            super().iterate(state, first, root)
        finally:
            namespace["greedy_policy"] = greedy


class Thrifty(IsmctsBot):
    """Every seat of the search's playouts plays greedy with a price on each die (or card)
    spent: the best gain less :attr:`price` per die, so that dice are kept for later."""

    price = 5_000.0

    def iterate(self, state: State, first: str, root: Arm) -> None:
        namespace = vars(ismcts_bot)
        greedy = namespace["greedy_policy"]
        price = self.price

        def thrifty(world: State, seat: int, rng: object) -> str:
            valuation = VALUATIONS[world.description.rules]
            return max(
                world.legal_actions(seat),
                key=lambda action: (
                    valuation.gain(world, action, seat)
                    - price * valuation.dice_spent(world, action, seat)
                ),
            )

        namespace["greedy_policy"] = thrifty
        try:
            super().iterate(state, first, root)
        finally:
            namespace["greedy_policy"] = greedy


class Thrifty10k(Thrifty):
    price = 10_000.0


VARIANTS: dict[str, type[IsmctsBot]] = {
    "thrifty": Thrifty,
    "thrifty10k": Thrifty10k,
    "base": IsmctsBot,
    "ahead": Ahead,
    "flat": Flat,
    "epsilon": EpsilonRivals,
}


def play(
    rules: str, seats: int, options: dict[str, int], seed: int, variant: type[IsmctsBot], even: bool
) -> tuple[float, int]:
    """One game; the variant's finishes ahead of montecarlo and the pairs counted."""
    factories: list[Callable[[], Bot]] = [
        variant if (seat % 2 == 0) == even else MonteCarloBot for seat in range(seats)
    ]
    bots = [factory() for factory in factories]
    state = new_game(describe(rules, seats, options), seed, log=False)
    for seat, bot in enumerate(bots):
        bot.handle_new_game(seat, {}, seed * 10 + seat, UNTIMED_MS)
    while movers := state.to_move():
        for seat in movers:
            action = bots[seat].handle_request(observe(state, seat), UNTIMED_MS, UNTIMED_MS)
            state.apply_action(action, seat)
    result = state.result()
    assert result is not None
    ahead, pairs = 0.0, 0
    for ours in result:
        for theirs in result:
            if isinstance(bots[ours.seat], IsmctsBot) and isinstance(
                bots[theirs.seat], MonteCarloBot
            ):
                ahead += 1.0 if ours.rank < theirs.rank else 0.5 if ours.rank == theirs.rank else 0
                pairs += 1
    return ahead, pairs


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rules")
    parser.add_argument("seats", type=int)
    parser.add_argument("--scale", type=float, default=0.35, help="share of the work played")
    parser.add_argument("--deals", type=int, default=40)
    parser.add_argument("--variant", action="append", choices=sorted(VARIANTS), default=[])
    args = parser.parse_args(argv)
    options = {"tiles": 3} if args.rules == "royale" else {}
    for rules in ismcts_bot.WORK:
        ismcts_bot.WORK[rules] = int(ismcts_bot.WORK[rules] * args.scale)
    MonteCarloBot.playouts = max(3, round(MonteCarloBot.playouts * args.scale))
    names = ["base", *args.variant]
    tally = {name: [0.0, 0] for name in names}
    started = time.monotonic()
    for deal in range(args.deals):
        for name in names:
            for even in (True, False):
                seed = 7_000 + deal
                ahead, pairs = play(args.rules, args.seats, options, seed, VARIANTS[name], even)
                tally[name][0] += ahead
                tally[name][1] += pairs
        shares = ", ".join(
            f"{name} {ahead / max(1, pairs):.3f} ({pairs:.0f} pairs)"
            for name, (ahead, pairs) in tally.items()
        )
        print(f"deal {deal + 1}: {shares}  [{time.monotonic() - started:.0f} s]", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
