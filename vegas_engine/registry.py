"""The registry of rule systems, found by id, and the validation of game descriptions.

Each rule system is data plus a small state class, built in its own module
from :mod:`vegas_engine.system`'s types; this list is the one place naming them
all (as python-chess's ``chess.variant.VARIANTS``). Adding a rule system means
adding its :class:`RuleSystem` here; the rule systems never import this module.
"""

from __future__ import annotations

from collections.abc import Mapping

from .description import GameDescription, OptionValue
from .errors import InvalidDescriptionError
from .rules.cardgame import CARDGAME
from .rules.classic import BOULEVARD, CLASSIC
from .rules.royale import ROYALE
from .rules.sixdice import SIXDICE
from .system import OptionSpec, RuleSystem

RULE_SYSTEMS: Mapping[str, RuleSystem] = {
    system.id: system for system in (CLASSIC, BOULEVARD, CARDGAME, SIXDICE, ROYALE)
}


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
