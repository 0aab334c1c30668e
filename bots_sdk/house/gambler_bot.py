"""The house bot ``gambler``: plays like ``greedy``, but one decision in three at random.

Between ``random`` and ``greedy`` in strength, so a fresh ladder has a spread
of house bots to rate, and four of them fill a four-seat table. Works for
every rule system the engine knows.
"""

from __future__ import annotations

import random
from typing import Any

from bots_sdk import Bot, run
from vegas_engine import determinize
from vegas_engine.policies import greedy_policy

#: The share of decisions taken at random.
GAMBLE = 1 / 3


class GamblerBot(Bot):
    name = "gambler"

    def __init__(self) -> None:
        super().__init__()
        self.rng = random.Random()

    def on_game_start(self, seat: int, game: dict[str, Any]) -> None:
        self.rng = random.Random(self.bot_seed)

    def act(self, observation: dict[str, Any]) -> str:
        legal: list[str] = observation["legal_actions"]
        if len(legal) == 1 or self.rng.random() < GAMBLE:
            return self.rng.choice(legal)
        state = determinize(observation, self.rng.getrandbits(63))
        return greedy_policy(state, self.seat, self.rng)


if __name__ == "__main__":
    run(GamblerBot)
