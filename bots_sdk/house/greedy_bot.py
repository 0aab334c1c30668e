"""The house bot ``greedy``: takes the action that wins the most money right now.

For each legal action it asks the engine how much money the seat would gain
if the round were scored right after it (one ply, no look-ahead), and takes
the best; on equal gain it keeps dice in hand. The engine needs a full state
for that: :func:`vegas_engine.determinize` builds one consistent with the
observation, drawing what the seat cannot see (the order of the note pile).
Works for every rule system the engine knows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from bots_sdk import Bot, run
from vegas_engine import determinize
from vegas_engine.policies import greedy_policy
from vegas_engine.state import JsonDict

if TYPE_CHECKING:
    from bots_sdk.observations import Observation


class GreedyBot(Bot):
    name = "greedy"

    def act(self, observation: Observation) -> str:
        legal = observation["legal_actions"]
        if len(legal) == 1:
            return legal[0]
        # self.rng: seeded by the SDK with the game's bot seed, so games replay.
        state = determinize(cast(JsonDict, observation), self.rng.getrandbits(63))
        return greedy_policy(state, self.seat, self.rng)


if __name__ == "__main__":
    run(GreedyBot)
