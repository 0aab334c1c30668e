"""The house bot ``random``: picks a legal action uniformly at random.

The smallest possible bot. It needs no engine: the observation lists the
legal actions. Seeded by the bot seed the referee sends, so a game between house
bots replays identically.
"""

from __future__ import annotations

import random

from bots_sdk import Bot, run


class RandomBot(Bot):
    name = "random"

    def __init__(self) -> None:
        super().__init__()
        self.rng = random.Random()

    def on_game_start(self, seat: int, game: dict[str, object]) -> None:
        self.rng = random.Random(self.bot_seed)

    def act(self, observation: dict[str, object]) -> str:
        legal = observation["legal_actions"]
        assert isinstance(legal, list)
        return str(self.rng.choice(legal))


if __name__ == "__main__":
    run(RandomBot)
