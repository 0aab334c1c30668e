"""What fully describes a game: rule system, options, number of seats, seed.

The same description and the same decisions give the same game, bit for bit.
Build one with :func:`vegas_engine.describe`, which validates it against the
registry and fills in every option's default.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

OptionValue = bool | int

MAX_SEED = 2**63 - 1


@dataclass(frozen=True)
class GameDescription:
    """A validated game description; options hold every option of the system."""

    rules: str
    seats: int
    seed: int
    options: Mapping[str, OptionValue] = field(default_factory=dict)

    def option(self, name: str) -> OptionValue:
        return self.options[name]

    def to_json(self) -> dict[str, Any]:
        return {
            "rules": self.rules,
            "options": dict(sorted(self.options.items())),
            "seats": self.seats,
            "seed": self.seed,
        }

    def public_json(self) -> dict[str, Any]:
        """What players may be told: everything but the seed.

        The seed fixes every future roll and draw; a bot that knew it could
        replay the game's random generator and see the dice to come.
        """
        return {key: value for key, value in self.to_json().items() if key != "seed"}

    def __hash__(self) -> int:
        return hash((self.rules, self.seats, self.seed, tuple(sorted(self.options.items()))))
