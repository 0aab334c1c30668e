"""The house bot ``random``: picks a legal action uniformly at random.

The smallest possible bot. It needs no engine: the observation lists the
legal actions. It draws from ``self.rng``, which the SDK seeds with the bot
seed the referee sends at each new game, so a game between house bots
replays identically.
"""

from __future__ import annotations

from bots_sdk import Bot, run

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing is slow
if TYPE_CHECKING:
    from bots_sdk.observations import Observation


class RandomBot(Bot):
    name = "random"

    def act(self, observation: Observation) -> str:
        return self.rng.choice(observation["legal_actions"])


if __name__ == "__main__":
    run(RandomBot)
