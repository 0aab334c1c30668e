"""Game logs: one JSON document with a header and every event in order.

``docs/game-log.md`` documents every event and ``docs/game-log.schema.json``
is its JSON Schema. :func:`load_log` checks the structure without any
third-party library, so a corrupted or truncated log is reported as such.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .description import GameDescription, check_seed
from .errors import CorruptLogError, InvalidDescriptionError
from .registry import describe
from .rules.royale.game import ROYALE_EVENTS
from .state import JsonDict, State
from .version import __version__

LOG_SCHEMA_VERSION = 1

HEADER_FIELDS: Mapping[str, type | tuple[type, ...]] = {
    "log_schema": int,
    "engine_version": str,
    "rules": str,
    "options": dict,
    "seats": int,
    "seed": int,
    "events": list,
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
    """The log of ``state`` (finished or not) as a JSON-serialisable document."""
    events = state.events()
    if events is None:
        raise ValueError("this state keeps no log: create it with new_game(..., log=True)")
    header: JsonDict = {
        "log_schema": LOG_SCHEMA_VERSION,
        "engine_version": __version__,
        **state.description.to_json(),
        "seed": state.seed,
    }
    return {**header, "events": list(events)}


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
    """Check a parsed log's header and events; returns it unchanged."""
    if not isinstance(document, dict):
        raise CorruptLogError("top level", "a log is a JSON object")
    for name, kind in HEADER_FIELDS.items():
        if name not in document:
            raise CorruptLogError(name, "missing header field")
        value = document[name]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise CorruptLogError(name, f"expected {_kind_name(kind)}, got {value!r}")
    if document["log_schema"] != LOG_SCHEMA_VERSION:
        raise CorruptLogError(
            "log_schema", f"version {document['log_schema']} is not {LOG_SCHEMA_VERSION}"
        )
    for index, event in enumerate(document["events"]):
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
    events = document["events"]
    if not events or events[-1].get("type") != "game_end":
        raise CorruptLogError("events", "truncated: the log does not end with game_end")
    description_of(document)  # the header must describe a valid game
    seed_of(document)  # dealt by a valid seed
    return document


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
