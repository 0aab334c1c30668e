"""Random games of every rule system, with every option on somewhere: what the
typed observations, the action parser and the RL bridges are checked against."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from vegas_engine import RULE_SYSTEMS, describe, new_game

#: (rules, seats, options): each rule system at its smallest and largest table,
#: and every option switched on at least once.
CONFIGS: list[tuple[str, int, dict[str, Any]]] = [
    ("classic", 2, {}),
    ("classic", 3, {"neutral_dice": True, "chips": True}),
    ("classic", 5, {"chips": True}),
    ("boulevard", 2, {}),
    ("boulevard", 3, {}),
    ("boulevard", 6, {"big_notes": False, "rainbow": False}),
    ("cardgame", 2, {"sequential": True}),
    ("cardgame", 3, {}),
    ("cardgame", 5, {"chips": True}),
    ("sixdice", 2, {"neutral_dice": True}),
    ("sixdice", 6, {"slot_machine": True}),
    ("royale", 2, {"neutral_dice": True}),
    ("royale", 3, {"tiles": 0}),
    ("royale", 5, {"tiles": 6}),
]
assert {rules for rules, _, _ in CONFIGS} == set(RULE_SYSTEMS)


def config_id(config: tuple[str, int, dict[str, Any]]) -> str:
    rules, seats, options = config
    switched = "".join(f"-{name}={value}" for name, value in sorted(options.items()))
    return f"{rules}-{seats}{switched}"


def observations(
    rules: str, seats: int, options: dict[str, Any], games: int
) -> Iterator[dict[str, Any]]:
    """Every seat's observation at every step of ``games`` random games, the
    final ones included; a simultaneous turn is seen between its choices too."""
    for seed in range(games):
        state = new_game(describe(rules, seats, options), seed, log=False)
        rng = random.Random(seed)
        while True:
            yield from (state.observe(seat) for seat in range(seats))
            movers = state.to_move()
            if not movers:
                break
            seat = rng.choice(movers)
            state.apply_action(rng.choice(state.legal_actions(seat)), seat)
