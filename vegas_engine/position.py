"""Positions: a game's whole state as JSON, to set up any situation directly.

As a FEN names a chess position (``chess.Board(fen)``), ``state.position()``
is everything needed to go on from here: the board as every seat would see
it, what only some seats see (the card game's hands, a hidden Lucky Punch
count) and the order of what was put under a pile. What nobody knows (the
unseen cards' order, the dice to come) is no part of it:
:func:`vegas_engine.from_position` deals it anew from a seed. So a position
round-trips exactly (``from_position(game, p, seed).position() == p``) and
play goes on identically wherever chance does not act.

A position is canonical: the one ``position()`` writes for the state it
describes. Anything else is refused with :class:`InvalidPositionError`
naming the field, as is a position that cannot happen (a count out of
range, more notes than the game has, dice the seat does not hold, a decision
with nothing to decide). Each rule system checks its own fields with the
small checkers below (``check_int``, ``check_seat``, ``check_list``, ...)
before it builds the state; :func:`finish` then checks the state writes the
position back. ``docs/engine.md`` documents each rule system's fields.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any, NoReturn, TypeVar

from .errors import InvalidPositionError
from .state import Decision, JsonDict, State

S = TypeVar("S", bound=State)
D = TypeVar("D", bound=Decision)

#: Why no position is taken at a chance node.
CHANCE_POSITION = (
    "chance acts now: a position is taken where a seat decides or the game is over; "
    "apply the chance outcome first"
)

#: The failures a restore meets on a malformed position, reported as InvalidPositionError.
MALFORMED = (KeyError, TypeError, ValueError, IndexError, AttributeError)


def copy(position: Mapping[str, Any]) -> JsonDict:
    """A deep copy as JSON (refusing what JSON cannot hold)."""
    try:
        copied: JsonDict = json.loads(json.dumps(position))
    except (TypeError, ValueError) as error:
        raise InvalidPositionError("position", f"not JSON: {error}") from None
    return copied


def check_fields(position: Mapping[str, Any], reference: Mapping[str, Any]) -> None:
    """Every field of ``reference`` (a position of the same game) present, and none other;
    each of the JSON type the reference has there (see :func:`_check_types`)."""
    if not isinstance(position, Mapping):
        raise InvalidPositionError("position", f"a JSON object, got {type(position).__name__}")
    for key in reference:
        if key not in position:
            raise InvalidPositionError(key, "missing")
    unknown = sorted(set(position) - set(reference))
    if unknown:
        fields = ", ".join(reference)
        raise InvalidPositionError(unknown[0], f"unknown field; the fields: {fields}")
    for key, example in reference.items():
        _check_types(position[key], example, key)


def _check_types(value: Any, example: Any, path: str) -> None:
    """``value`` has ``example``'s JSON type (either may be null), and so have the
    members of objects both hold and the objects and arrays in arrays (against the
    example's first); a list's scalars may differ (notes: numbers or "rainbow")."""
    wanted, given = _json_type(example), _json_type(value)
    if "null" in (wanted, given):
        return
    if wanted != given:
        raise InvalidPositionError(path, f"{wanted} expected, got {value!r}")
    if isinstance(value, Mapping):
        for key, member in value.items():
            if key in example:
                _check_types(member, example[key], f"{path}.{key}")
    elif isinstance(value, list) and example and isinstance(example[0], list | Mapping):
        for index, member in enumerate(value):
            _check_types(member, example[0], f"{path}[{index}]")


# ------------------------------------------------------------------ checkers
# Small checks each rule system's own position check is made of. Each returns the
# value it checked (typed) or raises InvalidPositionError naming ``field`` and
# saying what is allowed there.


def refuse(field: str, message: str) -> NoReturn:
    raise InvalidPositionError(field, message)


def check_int(value: Any, field: str, low: int | None, high: int | None = None) -> int:
    """An integer (never a boolean) in ``low..high`` (either bound None: no bound)."""
    allowed = (
        "an integer"
        if low is None
        else f"an integer {low}..{high}"
        if high is not None
        else f"an integer >= {low}"
    )
    if isinstance(value, bool) or not isinstance(value, int):
        refuse(field, f"{value!r} is not {allowed}")
    if (low is not None and value < low) or (high is not None and value > high):
        refuse(field, f"{value} is out of range; allowed: {allowed}")
    return int(value)


def check_seat(value: Any, field: str, seats: int) -> int:
    """A seat number of a game of ``seats`` seats."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < seats:
        refuse(field, f"{value!r} is no seat; allowed: 0..{seats - 1}")
    return int(value)


def check_bool(value: Any, field: str) -> bool:
    if not isinstance(value, bool):
        refuse(field, f"{value!r} is not true or false")
    return value


def check_choice(value: Any, field: str, choices: Collection[Any]) -> Any:
    """One of ``choices``, of the same JSON type (``true`` is not 1)."""
    if not any(type(value) is type(choice) and value == choice for choice in choices):
        shown = ", ".join(json.dumps(choice) for choice in choices) or "none"
        refuse(field, f"{value!r} is not allowed here; allowed: {shown}")
    return value


def check_equal(value: Any, field: str, expected: Any, why: str) -> None:
    """Exactly ``expected`` (of its JSON type), for the reason ``why``."""
    if type(value) is not type(expected) or value != expected:
        refuse(field, f"{value!r} is not allowed; {why}: {expected!r}")


def check_null(value: Any, field: str, why: str) -> None:
    if value is not None:
        refuse(field, f"{value!r} must be null: {why}")


def check_list(
    value: Any, field: str, length: int | None = None, *, most: int | None = None
) -> list[Any]:
    """A list, of exactly ``length`` items or of at most ``most``."""
    if not isinstance(value, list):
        refuse(field, f"a list expected, got {value!r}")
    if length is not None and len(value) != length:
        refuse(field, f"{length} entries expected, got {len(value)}")
    if most is not None and len(value) > most:
        refuse(field, f"at most {most} entries, got {len(value)}")
    return value


def check_object(value: Any, field: str, keys: Sequence[str]) -> Mapping[str, Any]:
    """An object with exactly the fields ``keys``."""
    if not isinstance(value, Mapping):
        refuse(field, f"an object with {', '.join(keys)} expected, got {value!r}")
    for key in keys:
        if key not in value:
            refuse(f"{field}.{key}", "missing")
    unknown = sorted(set(value) - set(keys))
    if unknown:
        refuse(f"{field}.{unknown[0]}", f"unknown field; the fields: {', '.join(keys)}")
    return value


def check_keys(value: Any, field: str, allowed: Collection[str]) -> Mapping[str, Any]:
    """An object whose keys are some of ``allowed``."""
    if not isinstance(value, Mapping):
        refuse(field, f"an object expected, got {value!r}")
    for key in value:
        if key not in allowed:
            shown = ", ".join(allowed) or "none"
            refuse(f"{field}.{key}", f"not allowed here; allowed keys: {shown}")
    return value


def check_sorted(values: Sequence[Any], field: str, *, descending: bool = False) -> None:
    """In the order the engine writes them: ascending (or descending)."""
    if list(values) != sorted(values, reverse=descending):
        order = "high to low" if descending else "low to high"
        refuse(field, f"{list(values)!r} must be sorted {order}")


def check_total(field: str, what: str, count: int, limit: int) -> None:
    """``count`` of something the game has only ``limit`` of."""
    if count > limit:
        refuse(field, f"{count} {what}, but there are only {limit}")


def decision_of(kinds: type[D], value: Any) -> D:
    """The decision kind a position names; chance is no position's."""
    try:
        decision = kinds(value)
    except ValueError:
        allowed = ", ".join(kind.value for kind in kinds if kind.value != "chance")
        raise InvalidPositionError("decision", f"{value!r} is none of {allowed}") from None
    if decision.value == "chance":
        raise InvalidPositionError("decision", CHANCE_POSITION)
    return decision


def _json_type(value: Any) -> str:
    for kind, name in ((bool, "boolean"), (int, "integer"), (str, "string"), (list, "array")):
        if isinstance(value, kind):
            return name
    return "object" if isinstance(value, Mapping) else "null" if value is None else "number"


def restore(build: Callable[[], S]) -> S:
    """``build()``, any failure of it on malformed input reported as a bad position."""
    try:
        return build()
    except InvalidPositionError:
        raise
    except MALFORMED as error:
        raise InvalidPositionError(
            "position", f"malformed ({type(error).__name__}: {error})"
        ) from None


def check_cards(field: str, present: Iterable[Any], game: Iterable[Any]) -> None:
    """No card more often than the game has it."""
    extra = Counter(present) - Counter(game)
    if extra:
        card, count = next(iter(sorted(extra.items(), key=lambda item: str(item[0]))))
        raise InvalidPositionError(field, f"{count} more {card!r} than the game has")


def finish(state: S, position: JsonDict, log: bool) -> S:
    """Check ``state`` against the position it was built from, then start its log.

    The position must be the one the state writes (canonical) and, unless the
    game is over, someone must have something to decide. A decision with one
    legal action is then taken, as the engine always does, and logged as forced;
    the log of a game over at once gets its ``game_end``.
    """
    written = state.position()
    where = first_difference(position, written)
    if where is not None:
        path, given, wanted = where
        raise InvalidPositionError(
            path, f"{given!r} is not what this state is written as: {wanted!r}"
        )
    if not state.is_terminal() and not any(state.legal_actions(s) for s in state.to_move()):
        raise InvalidPositionError("decision", "nobody to move has a legal action")
    state._start_log(position if log else None)
    result = state.result()
    events = state.events()
    if result is not None and events is not None:  # a log ends with the result
        events.append({"type": "game_end", "result": [seat.to_json() for seat in result]})
    state._settle_position()
    return state


def first_difference(given: Any, wanted: Any, path: str = "") -> tuple[str, Any, Any] | None:
    """Where two JSON values first differ: (path, given, wanted), or None."""
    if isinstance(given, dict) and isinstance(wanted, dict):
        for key in list(wanted) + [k for k in given if k not in wanted]:
            found = first_difference(given.get(key), wanted.get(key), f"{path}.{key}".lstrip("."))
            if found is not None:
                return found
        return None
    if isinstance(given, list) and isinstance(wanted, list) and len(given) == len(wanted):
        for index, (a, b) in enumerate(zip(given, wanted, strict=True)):
            found = first_difference(a, b, f"{path}[{index}]")
            if found is not None:
                return found
        return None
    if type(given) is not type(wanted) or given != wanted:
        return path or "position", given, wanted
    return None
