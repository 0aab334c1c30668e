"""A game a bot may be asked to play: the rule system, seats and options, with its limits.

The platform's ladders, its matches and the pre-flight check all name their
game this way (:meth:`GameSetup.describe`); a seed then deals one game of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from vegas_engine import GameDescription, OptionValue, describe

from .protocol import Limits


@dataclass(frozen=True)
class GameSetup:
    """What is played (``rules``, ``seats``, ``options``) and what each bot may use."""

    rules: str
    seats: int
    options: Mapping[str, OptionValue] = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)

    def describe(self) -> GameDescription:
        """The engine's description of this game; ``InvalidDescriptionError`` if bad."""
        return describe(self.rules, self.seats, self.options)

    def to_json(self) -> dict[str, Any]:
        return {
            "rules": self.rules,
            "seats": self.seats,
            "options": dict(sorted(self.options.items())),
            "limits": self.limits.to_json(),
        }
