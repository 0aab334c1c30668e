"""The registry of rule systems: each is data plus a small state class, found by id.

Adding a rule system means adding one :class:`RuleSystem` entry to
``RULE_SYSTEMS``; nothing else in the engine lists them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .chance import ChanceMode
from .description import GameDescription, OptionValue
from .errors import InvalidDescriptionError

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


@dataclass(frozen=True)
class RuleSystem:
    """A rule system: its id, seat counts, options and how to start a game."""

    id: str
    title: str
    seeds: tuple[str, ...]
    seats: tuple[int, ...]
    rounds: int
    options: tuple[OptionSpec, ...]
    new_state: StateFactory
    from_observation: ObservationFactory

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


def _systems() -> dict[str, RuleSystem]:
    # Imported here because the rule modules import the state base, which needs
    # this module's types only for annotations.
    from .rules.cardgame import CARDGAME
    from .rules.classic import BOULEVARD, CLASSIC
    from .rules.royale import ROYALE
    from .rules.sixdice import SIXDICE

    return {system.id: system for system in (CLASSIC, BOULEVARD, CARDGAME, SIXDICE, ROYALE)}


RULE_SYSTEMS: Mapping[str, RuleSystem] = _systems()


def rule_system(rules: str) -> RuleSystem:
    """The rule system with this id, or an error listing the known ids."""
    try:
        return RULE_SYSTEMS[rules]
    except (KeyError, TypeError):
        raise InvalidDescriptionError(
            "rules", f"unknown rule system {rules!r}", sorted(RULE_SYSTEMS)
        ) from None


def _check_option_value(system: RuleSystem, spec: OptionSpec, value: object) -> OptionValue:
    field = f"options.{spec.name}"
    if spec.is_flag:
        if not isinstance(value, bool):
            raise InvalidDescriptionError(
                field, f"{system.id} option {spec.name} is a flag, got {value!r}", [False, True]
            )
        return value
    assert spec.choices is not None
    if isinstance(value, bool) or not isinstance(value, int) or value not in spec.choices:
        raise InvalidDescriptionError(
            field, f"{system.id} option {spec.name} got {value!r}", spec.choices
        )
    return value


def describe(
    rules: str, seats: int, options: Mapping[str, object] | None = None
) -> GameDescription:
    """Validate a game description and fill in the defaults of unset options.

    It names a game, not one deal of it: :func:`vegas_engine.new_game` takes the seed.
    """
    if options is not None and not isinstance(options, Mapping):
        raise TypeError(
            f"describe(rules, seats, options) takes the options as a mapping, got {options!r}; "
            "the seed is no part of a description any more: pass it to new_game(game, seed)"
        )
    system = rule_system(rules)
    if isinstance(seats, bool) or not isinstance(seats, int) or seats not in system.seats:
        raise InvalidDescriptionError(
            "seats", f"{system.id} takes {_span(system.seats)} seats, got {seats!r}", system.seats
        )
    given = dict(options or {})
    resolved: dict[str, OptionValue] = {}
    for name in given:
        system.option(name)  # raises for an unknown option
    for spec in system.options:
        value = _check_option_value(system, spec, given.get(spec.name, spec.default))
        if value and spec.seats is not None and seats not in spec.seats:
            if spec.name in given:
                raise InvalidDescriptionError(
                    f"options.{spec.name}",
                    f"{system.id} option {spec.name} needs {_span(spec.seats)} seats, got {seats}",
                    spec.seats,
                )
            # A default that does not apply to this seat count is simply off.
            value = False if spec.is_flag else 0
        resolved[spec.name] = value
    return GameDescription(rules=system.id, seats=seats, options=resolved)


def validate(description: GameDescription) -> GameDescription:
    """Re-validate a description built by hand; returns the resolved one."""
    return describe(description.rules, description.seats, description.options)


def _span(values: tuple[int, ...]) -> str:
    if len(values) > 1 and list(values) == list(range(values[0], values[-1] + 1)):
        return f"{values[0]}-{values[-1]}"
    return ", ".join(str(value) for value in values)
