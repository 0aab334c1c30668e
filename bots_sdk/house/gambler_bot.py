"""The house bot ``gambler``: plays like ``greedy``, but one decision in three at random.

Between ``random`` and ``greedy`` in strength, so a fresh ladder has a spread
of house bots to rate, and four of them fill a four-seat table. Works for
every rule system the engine knows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from bots_sdk import Bot, run
from vegas_engine import determinize
from vegas_engine.policies import greedy_policy
from vegas_engine.state import JsonDict

if TYPE_CHECKING:
    from bots_sdk.observations import Observation

#: The share of decisions taken at random.
GAMBLE = 1 / 3


class GamblerBot(Bot):
    name = "gambler"

    def act(self, observation: Observation) -> str:
        legal = observation["legal_actions"]
        if len(legal) == 1 or self.rng.random() < GAMBLE:
            return self.rng.choice(legal)
        state = determinize(cast(JsonDict, observation), self.rng.getrandbits(63))
        return greedy_policy(state, self.seat, self.rng)


if __name__ == "__main__":
    run(GamblerBot)
