"""What names a game: rule system, number of seats and options; the seed apart.

A description names a game (what a ladder, a page or a tournament plays); a
seed then deals one game of it (:func:`vegas_engine.new_game`). The same
description, the same seed and the same decisions give the same game, bit for
bit. Build one with :func:`vegas_engine.describe`, which validates it against
the registry and fills in every option's default.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import InvalidDescriptionError

OptionValue = bool | int

MAX_SEED = 2**63 - 1


@dataclass(frozen=True)
class GameDescription:
    """A validated game description; options hold every option of the system.

    It holds no seed: everything in it is public, and players may be told all of it.
    """

    rules: str
    seats: int
    options: Mapping[str, OptionValue] = field(default_factory=dict)

    def option(self, name: str) -> OptionValue:
        return self.options[name]

    def to_json(self) -> dict[str, Any]:
        return {
            "rules": self.rules,
            "options": dict(sorted(self.options.items())),
            "seats": self.seats,
        }

    def __hash__(self) -> int:
        return hash((self.rules, self.seats, tuple(sorted(self.options.items()))))


def check_seed(seed: object) -> int:
    """``seed`` if it can deal a game (an integer 0..2^63-1), else a clear error.

    The seed fixes every future roll and draw: never tell it to the players.
    """
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise InvalidDescriptionError("seed", f"must be an integer 0..{MAX_SEED}, got {seed!r}")
    return seed
