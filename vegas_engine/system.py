"""What a rule system is: its id, seats, options, decision kinds and how to start a game.

Each rule system's module builds its :class:`RuleSystem` from these types; the
registry (:mod:`vegas_engine.registry`) lists the systems. This module knows
none of them, so the rule systems and the registry do not import each other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .chance import ChanceMode
from .description import GameDescription, OptionValue
from .errors import InvalidDescriptionError
from .state import Decision

if TYPE_CHECKING:
    from .state import State


@dataclass(frozen=True)
class OptionSpec:
    """One named option (a variant or module) of a rule system."""

    name: str
    default: OptionValue
    doc: str
    #: Allowed integer values; None for a boolean option.
    choices: tuple[int, ...] | None = None
    #: Seat counts with which the option may be switched on; None for all.
    seats: tuple[int, ...] | None = None

    @property
    def is_flag(self) -> bool:
        return self.choices is None

    def allowed_values(self) -> tuple[OptionValue, ...]:
        return (False, True) if self.choices is None else self.choices

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "type": "flag" if self.is_flag else "int",
            "default": self.default,
            "allowed": list(self.allowed_values()),
            "seats": list(self.seats) if self.seats is not None else None,
            "doc": self.doc,
        }


#: Starts a game: the description, the seed, whether to keep a log, who resolves chance.
StateFactory = Callable[[GameDescription, int, bool, ChanceMode], "State"]
#: Builds a state a seat cannot tell from the one it observed (hidden parts sampled
#: with the seed).
ObservationFactory = Callable[[GameDescription, int, dict[str, Any]], "State"]
#: Restores a position: the description, the seed, the position, whether to log, chance.
PositionFactory = Callable[[GameDescription, int, dict[str, Any], bool, ChanceMode], "State"]


@dataclass(frozen=True)
class RuleSystem:
    """A rule system: its id, seat counts, options and how to start a game."""

    id: str
    title: str
    seeds: tuple[str, ...]
    seats: tuple[int, ...]
    rounds: int
    options: tuple[OptionSpec, ...]
    #: The kinds of decision its seats are asked (the observations' ``decision``).
    decisions: type[Decision]
    new_state: StateFactory
    from_observation: ObservationFactory
    from_position: PositionFactory

    def option(self, name: str) -> OptionSpec:
        for spec in self.options:
            if spec.name == name:
                return spec
        raise InvalidDescriptionError(
            "options",
            f"unknown option {name!r} for rule system {self.id!r}",
            [spec.name for spec in self.options] or ["(no options)"],
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "seats": list(self.seats),
            "rounds": self.rounds,
            "options": [spec.to_json() for spec in self.options],
        }
