"""What a match plays: a rule system's game and the bots' limits, as a ladder sets them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from bots_sdk.games import GameSetup
from bots_sdk.protocol import Limits
from vegas_engine import OptionValue

MiB = 1024 * 1024
#: The fields that name a game and its limits, on a ladder and on a match alike.
GAME_FIELDS = ("rules", "seats", "options", "time_per_decision_ms", "time_bank_ms", "memory_mb")


@dataclass(frozen=True)
class MatchGame:
    """A game (rule system, seats, options) with its limits in the units ladders set."""

    rules: str
    seats: int
    options: Mapping[str, OptionValue] = field(default_factory=dict)
    time_per_decision_ms: int = 1000
    time_bank_ms: int = 10_000
    memory_mb: int = 256

    @classmethod
    def of(cls, row: object) -> MatchGame:
        """The game of a row that has the GAME_FIELDS (a ladder, a match)."""
        return cls(**{name: getattr(row, name) for name in GAME_FIELDS})

    def fields(self) -> dict[str, object]:
        """The GAME_FIELDS as a row stores them."""
        return {name: getattr(self, name) for name in GAME_FIELDS} | {"options": dict(self.options)}

    def limits(self) -> Limits:
        return Limits(
            decision_ms=self.time_per_decision_ms,
            # The referee's bank covers all of a seat's decisions in a game; a
            # game without a bank still allows one full decision.
            bank_ms=max(self.time_bank_ms, self.time_per_decision_ms),
            memory_bytes=self.memory_mb * MiB,
        )

    def setup(self) -> GameSetup:
        """The bots SDK's view of this game: what the referee and the pre-flight play."""
        return GameSetup(self.rules, self.seats, dict(self.options), self.limits())
