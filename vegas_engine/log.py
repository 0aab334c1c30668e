"""Game logs: one JSON document with a header and the game, in one of two forms.

- ``log_schema`` 1, the events: every event in order (``new_game(log=True)``).
- ``log_schema`` 2, the moves: each seat's chosen action and each outcome given
  to explicit chance, the starting position and the result
  (``new_game(log="moves")``). The game is exact from them (the seed deals the
  rest), so :func:`expand` makes the events form, the very document a state
  logging events would have written. Keeping and writing moves costs a
  fraction of keeping events; the platform stores them and expands on read.

``docs/game-log.md`` documents both and every event; ``docs/game-log.schema.json``
is their JSON Schema. :func:`loads` checks the structure without any
third-party library, so a corrupted or truncated log is reported as such.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .chance import ChanceMode
from .description import GameDescription, check_seed
from .errors import (
    CorruptLogError,
    GameOverError,
    IllegalActionError,
    InvalidDescriptionError,
    InvalidPositionError,
)
from .position import copy
from .registry import describe, rule_system
from .rules.royale.game import ROYALE_EVENTS
from .state import JsonDict, State
from .version import __version__

#: The events form (every event in order).
LOG_SCHEMA_VERSION = 1
#: The moves form (the events made from the moves by :func:`expand`).
MOVES_SCHEMA_VERSION = 2

#: The header of both forms.
HEADER_FIELDS: Mapping[str, type | tuple[type, ...]] = {
    "log_schema": int,
    "engine_version": str,
    "rules": str,
    "options": dict,
    "seats": int,
    "seed": int,
}
#: What each form adds to the header (the moves form may add ``chance`` and ``position``).
BODY_FIELDS: Mapping[int, Mapping[str, type | tuple[type, ...]]] = {
    LOG_SCHEMA_VERSION: {"events": list},
    MOVES_SCHEMA_VERSION: {"moves": list, "result": list},
}

#: Each event type and the fields it must carry.
EVENT_FIELDS: Mapping[str, tuple[str, ...]] = {
    "round_start": ("round", "start_player"),
    "stock": ("casino", "notes"),
    "neutral_roll": ("seat", "dice"),
    "roll": ("seat", "dice"),
    "decision": ("seat", "action", "forced"),
    "place": ("seat", "casino", "face", "dice"),
    "kick": ("seat", "casino", "kicked"),
    "rainbow": ("casino", "drawn"),
    "payout": ("casino", "notes", "counts", "cancelled", "awards", "returned", "returned_to"),
    "chip_stock": ("casino", "chip"),
    "chip_take": ("seat", "casino", "chip"),
    "chip_score": ("seat", "chips", "money"),
    "draw": ("seat", "cards"),
    "play": ("seat", "cards"),
    "discard": ("seat", "cards"),
    "finish": ("seat", "cards_placed"),
    # An outcome of chance given to a game played with explicit chance.
    "chance": ("outcome",),
    # The first event of a game started from a position (vegas_engine.from_position).
    "position": ("position",),
    # royale's own events, each documented where they are made
    **ROYALE_EVENTS,
    "round_end": ("round", "money"),
    "game_end": ("result",),
}


def game_log(state: State) -> JsonDict:
    """The log of ``state`` (finished or not) as a JSON-serialisable document.

    The events form for a state logging events, the moves form for one keeping
    moves (its ``result`` null while the game goes on).
    """
    record = state.moves()
    if record is not None:
        header = _header(MOVES_SCHEMA_VERSION, __version__, state)
        if state.explicit_chance:
            header["chance"] = ChanceMode.EXPLICIT.value
        if record.position is not None:
            header["position"] = record.position
        result = state.result()
        return {
            **header,
            "moves": list(record.moves),
            "result": None if result is None else [seat.to_json() for seat in result],
        }
    events = state.events()
    if events is None:
        raise ValueError(
            "this state keeps no log: create it with new_game(..., log=True) or log='moves'"
        )
    return {**_header(LOG_SCHEMA_VERSION, __version__, state), "events": list(events)}


def _header(schema: int, engine_version: str, state: State) -> JsonDict:
    return {
        "log_schema": schema,
        "engine_version": engine_version,
        **state.description.to_json(),
        "seed": state.seed,
    }


def expand(log: JsonDict) -> JsonDict:
    """The events form of ``log``: a moves-form log played out, an events-form one as is.

    The result is the document the game's state would have written had it
    logged events: the same header (engine version included), then the events,
    then any other fields of ``log`` (the referee's) unchanged. A move that is
    not legal where it stands, or a result the moves do not give, raises
    :class:`CorruptLogError` naming it.
    """
    if log.get("log_schema") != MOVES_SCHEMA_VERSION:
        return log
    state = play_moves(log)
    events = state.events()
    assert events is not None  # play_moves logs events
    expanded: JsonDict = {
        "log_schema": LOG_SCHEMA_VERSION,
        **{name: log[name] for name in HEADER_FIELDS if name != "log_schema"},
        "events": events,
    }
    for name, value in log.items():
        if name not in expanded and name not in _MOVES_ONLY:
            expanded[name] = value
    return expanded


def moves_form(log: JsonDict) -> JsonDict:
    """The moves form of ``log``: a moves-form log as is, an events-form one made into it.

    The moves are the events' decisions a seat chose (never the forced ones: the
    engine makes those) and the outcomes given to explicit chance, in order; a
    game from a position keeps it. Other fields (the referee's) are kept; the
    result is left out (null), since :func:`play_moves` would check it against
    the moves it made.
    """
    if log.get("log_schema") == MOVES_SCHEMA_VERSION:
        return log
    events: list[JsonDict] = log.get("events", [])
    moves: list[list[Any]] = []
    for event in events:
        if event.get("type") == "decision" and not event.get("forced"):
            moves.append([event["seat"], event["action"]])
        elif event.get("type") == "chance":
            moves.append([None, event["outcome"]])
    made: JsonDict = {
        name: value for name, value in log.items() if name not in ("events", "log_schema")
    }
    made.update(log_schema=MOVES_SCHEMA_VERSION, moves=moves, result=None)
    if any(event.get("type") == "chance" for event in events):
        made["chance"] = ChanceMode.EXPLICIT.value
    if events and events[0].get("type") == "position":
        made["position"] = events[0]["position"]
    return made


#: Fields of the moves form that the events form says with events.
_MOVES_ONLY = frozenset({"chance", "position", "moves", "result"})


def play_moves(log: JsonDict) -> State:
    """The game of a moves-form log, played again from its seed (and position), logging events.

    Its result must be the log's (unless the log's is null: a game still going on).
    """
    state = start_of(log)
    for index, move in enumerate(log["moves"]):
        seat, action = move
        try:
            if seat is None:
                state.apply_chance(action)
            else:
                state.apply_action(action, seat)
        except (IllegalActionError, GameOverError) as error:
            raise CorruptLogError(
                f"moves[{index}]", f"{move!r} cannot be played: {error}"
            ) from None
    result = state.result()
    played = None if result is None else [seat.to_json() for seat in result]
    if log.get("result") is not None and played != log["result"]:
        raise CorruptLogError(
            "result", f"the moves give {played!r}, the log says {log['result']!r}"
        )
    return state


def start_of(log: JsonDict) -> State:
    """The game of a moves-form log before its first move: dealt by its seed (from its
    position, if any), with its chance mode, logging events."""
    description, seed = description_of(log), seed_of(log)
    chance = ChanceMode.EXPLICIT if log.get("chance") == "explicit" else ChanceMode.TAPE
    system = rule_system(description.rules)
    position = log.get("position")
    if position is None:
        return system.new_state(description, seed, True, chance)
    try:
        return system.from_position(description, seed, copy(position), True, chance)
    except InvalidPositionError as error:
        raise CorruptLogError("position", str(error)) from None


def events_of(state: State) -> list[JsonDict]:
    """The events of ``state`` so far, whichever log it keeps (made from its moves if need be)."""
    events = state.events()
    if events is not None:
        return events
    if state.moves() is None:
        raise ValueError("this state keeps no log: create it with new_game(..., log=True)")
    made = play_moves(game_log(state)).events()
    assert made is not None
    return made


def dumps(log: JsonDict) -> str:
    return json.dumps(log, separators=(",", ":"))


def loads(text: str | bytes) -> JsonDict:
    """Parse and structurally check a log; raises :class:`CorruptLogError`."""
    try:
        document = json.loads(text)
    except UnicodeDecodeError as error:
        raise CorruptLogError("byte " + str(error.start), "not UTF-8 text") from None
    except json.JSONDecodeError as error:
        # A string cut off is reported where it starts, but it too runs to the end.
        at_end = error.pos >= len(text.rstrip()) or error.msg.startswith("Unterminated string")
        what = "truncated: the JSON ends early" if at_end else f"not JSON ({error.msg})"
        raise CorruptLogError(f"line {error.lineno} column {error.colno}", what) from None
    return check(document)


def check(document: Any) -> JsonDict:
    """Check a parsed log's header and body (events, or moves); returns it unchanged.

    A moves-form log's moves are checked for their shape here; whether they are
    legal, :func:`expand` (or :func:`vegas_engine.replay.replay`) finds by playing them.
    """
    if not isinstance(document, dict):
        raise CorruptLogError("top level", "a log is a JSON object")
    schema = document.get("log_schema")
    if isinstance(schema, int) and schema not in BODY_FIELDS:
        known = " or ".join(str(version) for version in BODY_FIELDS)
        raise CorruptLogError("log_schema", f"version {schema} is not {known}")
    body = BODY_FIELDS.get(schema, {}) if isinstance(schema, int) else {}
    fields = {**HEADER_FIELDS, **body}
    if schema == MOVES_SCHEMA_VERSION and document.get("result", []) is None:
        raise CorruptLogError("result", "truncated: no result (the game was not over)")
    for name, kind in fields.items():
        if name not in document:
            raise CorruptLogError(name, "missing field" if name in body else "missing header field")
        value = document[name]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise CorruptLogError(name, f"expected {_kind_name(kind)}, got {value!r}")
    if schema == MOVES_SCHEMA_VERSION:
        _check_moves(document)
    else:
        _check_events(document["events"])
    description_of(document)  # the header must describe a valid game
    seed_of(document)  # dealt by a valid seed
    return document


def _check_events(events: list[Any]) -> None:
    for index, event in enumerate(events):
        where = f"events[{index}]"
        if not isinstance(event, dict):
            raise CorruptLogError(where, "an event is a JSON object")
        event_type = event.get("type")
        if not isinstance(event_type, str) or event_type not in EVENT_FIELDS:
            raise CorruptLogError(
                where + ".type",
                f"unknown event type {event_type!r}; known: {', '.join(EVENT_FIELDS)}",
            )
        for name in EVENT_FIELDS[event_type]:
            if name not in event:
                raise CorruptLogError(f"{where}.{name}", f"missing in a {event_type} event")
    if not events or events[-1].get("type") != "game_end":
        raise CorruptLogError("events", "truncated: the log does not end with game_end")


def _check_moves(document: JsonDict) -> None:
    if document.get("chance", ChanceMode.EXPLICIT.value) != ChanceMode.EXPLICIT.value:
        raise CorruptLogError(
            "chance", f"expected 'explicit' (or no field: the tape), got {document['chance']!r}"
        )
    if not isinstance(document.get("position", {}), dict):
        raise CorruptLogError("position", "expected an object (a state.position())")
    for index, move in enumerate(document["moves"]):
        if not (isinstance(move, list) and len(move) == 2 and _is_move(*move)):
            raise CorruptLogError(
                f"moves[{index}]",
                f"a move is [seat, action] or [null, chance outcome], got {move!r}",
            )
    for index, seat in enumerate(document["result"]):
        if not isinstance(seat, dict) or not {"seat", "money", "notes", "rank"} <= seat.keys():
            raise CorruptLogError(f"result[{index}]", "a seat's result: seat, money, notes, rank")


def _is_move(seat: Any, action: Any) -> bool:
    """A seat number or null (chance), then a string."""
    return (seat is None or (type(seat) is int and seat >= 0)) and isinstance(action, str)


def description_of(log: JsonDict) -> GameDescription:
    """The game description in a log's header (its seed: :func:`seed_of`)."""
    try:
        return describe(log["rules"], log["seats"], log["options"])
    except InvalidDescriptionError as error:
        raise CorruptLogError("header", str(error)) from None


def seed_of(log: JsonDict) -> int:
    """The seed that dealt a logged game."""
    try:
        return check_seed(log["seed"])
    except InvalidDescriptionError as error:
        raise CorruptLogError("header", str(error)) from None


def _kind_name(kind: type | tuple[type, ...]) -> str:
    names = {int: "an integer", str: "a string", dict: "an object", list: "an array"}
    return names.get(kind, str(kind)) if isinstance(kind, type) else str(kind)
