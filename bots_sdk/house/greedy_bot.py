"""The house bot ``greedy``: takes the action that wins the most money right now.

For each legal action it asks the engine how much money the seat would gain
if the round were scored right after it (one ply, no look-ahead), and takes
the best; on equal gain it keeps dice in hand. The engine needs a full state
for that: :func:`vegas_engine.determinize` builds one consistent with the
observation, drawing what the seat cannot see (the order of the note pile).
Works for every rule system the engine knows.
"""

from __future__ import annotations

import random
from typing import Any

from bots_sdk import Bot, run
from vegas_engine import determinize
from vegas_engine.policies import greedy_policy


class GreedyBot(Bot):
    name = "greedy"

    def __init__(self) -> None:
        super().__init__()
        self.rng = random.Random()

    def on_game_start(self, seat: int, game: dict[str, Any]) -> None:
        self.rng = random.Random(self.bot_seed)

    def act(self, observation: dict[str, Any]) -> str:
        legal: list[str] = observation["legal_actions"]
        if len(legal) == 1:
            return legal[0]
        state = determinize(observation, self.rng.getrandbits(63))
        return greedy_policy(state, self.seat, self.rng)


if __name__ == "__main__":
    run(GreedyBot)
