"""The move protocol between the referee and a bot: JSON lines over stdin/stdout.

``docs/protocol.md`` is the reference, ``docs/protocol/*.schema.json`` the
JSON Schema of every message. This module holds the message builders the
referee uses and the reply parser, with no dependency beyond the stdlib: the
SDK side (:mod:`bots_sdk.bot`) imports it at every bot start.

One message is one JSON object on one line, UTF-8, ending with ``\\n``.
Receivers ignore fields they do not know, so fields may be added within a
protocol version; removing or changing one bumps :data:`PROTOCOL_VERSION`.
"""

from __future__ import annotations

import enum
import json
import sys

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing is slow

# typing and dataclasses are left out at run time: every bot imports this
# module at start-up, and those two cost more than the rest of the SDK.
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    JsonDict = dict[str, Any]

PROTOCOL_VERSION = 1

KiB = 1024
MiB = 1024 * KiB


class MessageType(enum.StrEnum):
    """The ``type`` of every protocol message."""

    HELLO = "hello"
    """Referee → bot, once, first: protocol version and the limits."""

    READY = "ready"
    """Bot → referee, once: the bot speaks the version and is ready to play."""

    NEW_GAME = "new_game"
    """Referee → bot: a game starts; the bot's seat and the game description."""

    REQUEST = "request"
    """Referee → bot: decide now; the observation and the time left."""

    ACTION = "action"
    """Bot → referee: the answer to one request, naming one legal action."""

    GAME_OVER = "game_over"
    """Referee → bot: the game ended; the final standings."""

    SHUTDOWN = "shutdown"
    """Referee → bot: exit now (the match is over)."""


class Limits:
    """What a bot may use. Times in milliseconds, sizes in bytes.

    ``decision_ms`` caps one decision and ``bank_ms`` all of a seat's
    decisions in one game: a decision may take ``min(decision_ms, bank
    left)``. ``max_output_bytes`` counts everything a bot writes to stdout
    during one game. ``memory_bytes`` and ``cpu_cores`` are enforced by the
    sandbox only. Immutable.
    """

    FIELDS = (
        "startup_ms",
        "decision_ms",
        "bank_ms",
        "max_line_bytes",
        "max_output_bytes",
        "memory_bytes",
        "cpu_cores",
    )
    __slots__ = FIELDS

    startup_ms: int
    decision_ms: int
    bank_ms: int
    max_line_bytes: int
    max_output_bytes: int
    memory_bytes: int
    cpu_cores: float

    def __init__(
        self,
        *,
        startup_ms: int = 5_000,
        decision_ms: int = 1_000,
        bank_ms: int = 20_000,
        max_line_bytes: int = 16 * KiB,
        max_output_bytes: int = 1 * MiB,
        memory_bytes: int = 256 * MiB,
        cpu_cores: float = 1.0,
    ) -> None:
        values = locals()
        for name in self.FIELDS:
            value = values[name]
            if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                raise ValueError(f"Limits.{name} must be a positive number, got {value!r}")
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Limits is immutable: build a new one")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Limits) and self.to_json() == other.to_json()

    def __hash__(self) -> int:
        return hash(tuple(self.to_json().values()))

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.FIELDS)
        return f"Limits({fields})"

    def to_json(self) -> JsonDict:
        return {name: getattr(self, name) for name in self.FIELDS}


# ------------------------------------------------------------ referee -> bot


def hello(limits: Limits) -> JsonDict:
    limits_json = limits.to_json()
    return {"type": MessageType.HELLO.value, "protocol": PROTOCOL_VERSION, "limits": limits_json}


def new_game(game_id: int, seat: int, game: JsonDict, bank_ms: int, bot_seed: int) -> JsonDict:
    return {
        "type": MessageType.NEW_GAME.value,
        "game_id": game_id,
        "seat": seat,
        "game": game,
        "bank_ms": bank_ms,
        "bot_seed": bot_seed,
    }


def request(
    request_id: int, game_id: int, observation: JsonDict, time_left_ms: int, bank_left_ms: int
) -> JsonDict:
    return {
        "type": MessageType.REQUEST.value,
        "id": request_id,
        "game_id": game_id,
        "observation": observation,
        "time_left_ms": time_left_ms,
        "bank_left_ms": bank_left_ms,
    }


def game_over(game_id: int, seat: int, result: Sequence[JsonDict]) -> JsonDict:
    return {"type": MessageType.GAME_OVER.value, "game_id": game_id, "seat": seat, "result": result}


def shutdown() -> JsonDict:
    return {"type": MessageType.SHUTDOWN.value}


# ------------------------------------------------------------ bot -> referee


def ready(name: str | None = None) -> JsonDict:
    message: JsonDict = {"type": MessageType.READY.value, "protocol": PROTOCOL_VERSION}
    if name:
        message["name"] = name
    return message


def action(request_id: int, chosen: str, note: str = "") -> JsonDict:
    """An ``action`` reply; ``note`` (the bot's note to its owner) only when not empty."""
    message: JsonDict = {"type": MessageType.ACTION.value, "id": request_id, "action": chosen}
    if note:
        message["note"] = note
    return message


# ------------------------------------------------------------------ codec


def encode(message: Mapping[str, Any]) -> bytes:
    """One message as one line; ``ensure_ascii`` keeps every line pure ASCII."""
    return json.dumps(message, separators=(",", ":")).encode("ascii") + b"\n"


class ProtocolError(ValueError):
    """A line that is not the message the receiver expects; says why."""


#: How deeply a bot's reply may nest arrays and objects. Replies are flat; the
#: limit is checked before parsing, so whether a deep reply is refused never
#: depends on how deep the parser's own recursion happens to start.
MAX_REPLY_NESTING = 32
#: The longest display name a bot may give in ``ready``.
MAX_NAME_CHARS = 200
#: How much of a value a bot sent an error message shows.
SHOWN_CHARS = 60
#: The longest note a bot may attach to an action, in bytes of UTF-8: a longer
#: one is cut at a character boundary (never a fault).
MAX_NOTE_BYTES = 256


def decode(line: bytes) -> JsonDict:
    """Parse one line into a JSON object with a string ``type``.

    Whatever the bytes, the only exception is :class:`ProtocolError`: a line
    too deep for the parser, a number too long to convert, ``NaN`` or
    ``Infinity`` (not JSON) are refused like any other bad line.
    """
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        raise ProtocolError("not UTF-8 text") from None
    try:
        message = json.loads(text, parse_constant=_not_json_constant)
    except ProtocolError:
        raise
    except json.JSONDecodeError as error:
        raise ProtocolError(f"not JSON ({error.msg} at column {error.colno})") from None
    except RecursionError:
        raise ProtocolError("not JSON this parser can read (nested too deeply)") from None
    except ValueError:  # the only other one: an integer too long to convert
        digits = sys.get_int_max_str_digits()
        raise ProtocolError(
            f"not JSON this parser can read (an integer of more than {digits} digits)"
        ) from None
    if not isinstance(message, dict):
        raise ProtocolError(f"a message is a JSON object, got {type(message).__name__}")
    if not isinstance(message.get("type"), str):
        raise ProtocolError('a message needs a string "type"')
    return message


def _not_json_constant(name: str) -> None:
    raise ProtocolError(f"not JSON ({name} is not a JSON value)")


def nesting(line: bytes) -> int:
    """How deeply arrays and objects nest in a JSON line (brackets inside
    strings do not count; a message's own object is one level)."""
    # Drop escaped backslashes, then escaped quotes: every '"' left opens or
    # closes a string, so the odd pieces between quotes are string contents.
    syntax = line.replace(b"\\\\", b"").replace(b'\\"', b"")
    outside = b"".join(syntax.split(b'"')[::2])
    depth = deepest = 0
    for byte in outside.translate(None, _NOT_BRACKETS):
        if byte in b"[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


_NOT_BRACKETS = bytes(set(range(256)) - set(b"[]{}"))


def _decode_reply(line: bytes) -> JsonDict:
    """:func:`decode` for a bot's line, with the nesting limit first."""
    too_many = line.count(b"[") + line.count(b"{") > MAX_REPLY_NESTING  # else cannot be too deep
    if too_many and nesting(line) > MAX_REPLY_NESTING:
        raise ProtocolError(f"arrays or objects nested more than {MAX_REPLY_NESTING} deep")
    return decode(line)


def shown(value: object) -> str:
    """A value a bot sent, for an error message: short, and never a deep repr."""
    if isinstance(value, dict | list):
        return "an object" if isinstance(value, dict) else "an array"
    text = repr(value)  # str, int (within the conversion limit), float, bool, None
    return text if len(text) <= SHOWN_CHARS else f"{text[:SHOWN_CHARS]}... ({len(text)} chars)"


def parse_ready(line: bytes) -> str | None:
    """Check a ``ready`` line; returns the bot's name (None if it gave none)."""
    message = _decode_reply(line)
    if message["type"] != MessageType.READY:
        raise ProtocolError(f'expected a "ready" message, got {shown(message["type"])}')
    version = message.get("protocol")
    if type(version) is not int or version != PROTOCOL_VERSION:
        raise ProtocolError(
            f"the bot speaks protocol {shown(version)}; this referee speaks {PROTOCOL_VERSION}"
        )
    name = message.get("name")
    if name is None:
        return None
    if not isinstance(name, str) or len(name) > MAX_NAME_CHARS or not _is_unicode(name):
        raise ProtocolError(f'"name" must be text of at most {MAX_NAME_CHARS} characters')
    return name


def _is_unicode(text: str) -> bool:
    """False for a string with lone surrogates (JSON allows "\\ud800"; UTF-8 does not)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class Answer:
    """A bot's checked ``action`` reply: the action, and its note cut to
    :data:`MAX_NOTE_BYTES` (``note_cut`` when it was longer)."""

    __slots__ = ("action", "note", "note_cut")

    def __init__(self, action: str, note: str = "", note_cut: bool = False) -> None:
        self.action = action
        self.note = note
        self.note_cut = note_cut

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Answer) and (self.action, self.note, self.note_cut) == (
            other.action,
            other.note,
            other.note_cut,
        )

    def __hash__(self) -> int:
        return hash((self.action, self.note, self.note_cut))

    def __repr__(self) -> str:
        return f"Answer({self.action!r}, note={self.note!r}, note_cut={self.note_cut!r})"


def parse_action(line: bytes, request_id: int) -> str:
    """Check an ``action`` line answering ``request_id``; returns the action."""
    return parse_answer(line, request_id).action


def parse_answer(line: bytes, request_id: int) -> Answer:
    """Check an ``action`` line answering ``request_id``: the action and its note.

    ``note`` is optional: a string (cut to :data:`MAX_NOTE_BYTES` bytes of UTF-8
    at a character boundary, lone surrogates written as ``?``), or null for none;
    any other value is a :class:`ProtocolError`, as for any malformed field.
    """
    message = _decode_reply(line)
    if message["type"] != MessageType.ACTION:
        raise ProtocolError(f'expected an "action" message, got {shown(message["type"])}')
    got = message.get("id")
    if type(got) is not int or got != request_id:
        raise ProtocolError(
            f"answers request id {shown(got)}, not the pending request {request_id}"
        )
    chosen = message.get("action")
    if not isinstance(chosen, str):
        raise ProtocolError(f'"action" must be a string, got {shown(chosen)}')
    note = message.get("note")
    if note is None:
        return Answer(chosen)
    if not isinstance(note, str):
        raise ProtocolError(f'"note" must be a string (or left out), got {shown(note)}')
    return Answer(chosen, *clip_note(note))


def clip_note(note: str) -> tuple[str, bool]:
    """``note`` cut to at most :data:`MAX_NOTE_BYTES` bytes of UTF-8 at a character
    boundary, and whether it was cut."""
    data = note.encode("utf-8", errors="replace")  # a lone surrogate becomes "?"
    if len(data) <= MAX_NOTE_BYTES:
        return data.decode("utf-8"), False
    # Valid UTF-8 cut anywhere: only a last, partial character is dropped.
    return data[:MAX_NOTE_BYTES].decode("utf-8", errors="ignore"), True
