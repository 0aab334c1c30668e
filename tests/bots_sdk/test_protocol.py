"""Every protocol message against its JSON Schema, both directions, from real runs."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from referencing import Registry, Resource

from bots_sdk import Bot, protocol
from bots_sdk.bot import serve
from bots_sdk.faults import FaultKind
from bots_sdk.launcher import house_bot
from bots_sdk.protocol import Limits, MessageType, ProtocolError
from bots_sdk.referee import Match
from tests.bots_sdk.botkit import raw_bot, sdk_bot
from vegas_engine import describe
from vegas_engine.log import loads
from vegas_engine.replay import replay

pytestmark = pytest.mark.slow

SCHEMAS = Path(__file__).resolve().parents[2] / "docs" / "protocol"

RECORDER = """
import json, sys

with open("received.jsonl", "a") as log:
    for line in sys.stdin:
        log.write(line)
        log.flush()
        message = json.loads(line)
        if message["type"] == "hello":
            reply = {"type": "ready", "protocol": 1}
        elif message["type"] == "request":
            legal = message["observation"]["legal_actions"]
            reply = {"type": "action", "id": message["id"], "action": legal[-1]}
        elif message["type"] == "shutdown":
            break
        else:
            continue
        print(json.dumps(reply), flush=True)
"""


def registry() -> Registry:
    """Every schema of docs/protocol, by its $id, so $refs between them resolve."""
    resources = []
    for path in SCHEMAS.glob("*.schema.json"):
        schema = json.loads(path.read_text())
        resources.append((schema["$id"], Resource.from_contents(schema)))
    return Registry().with_resources(resources)


def validator(kind: str) -> jsonschema.protocols.Validator:
    schema = json.loads((SCHEMAS / f"{kind}.schema.json").read_text())
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, registry=registry())


def check(message: Any) -> None:
    validator(message["type"]).validate(message)


def test_one_schema_per_message_type() -> None:
    assert {path.name for path in SCHEMAS.glob("*.schema.json")} == {
        f"{kind.value}.schema.json" for kind in MessageType
    } | {"referee-log.schema.json"}
    for kind in MessageType:
        validator(kind.value)  # each is a valid draft 2020-12 schema


@pytest.mark.parametrize("rules", ["classic", "boulevard"])
def test_referee_messages_match_their_schemas(tmp_path: Path, rules: str) -> None:
    """A raw bot records every line the referee sends over a two-game match."""
    recorder = sdk_bot(tmp_path, RECORDER, name="recorder")
    with Match([recorder, house_bot("random")], Limits()) as match:
        for game, seating in enumerate(([0, 1], [1, 0])):
            record = match.play(describe(rules, 2), game, seating)
            assert not record.faults
    lines = (tmp_path / "received.jsonl").read_text().splitlines()
    messages = [json.loads(line) for line in lines]
    kinds = [m["type"] for m in messages]
    assert kinds[0] == "hello" and kinds[1] == "new_game" and kinds[-1] == "shutdown"
    assert kinds.count("new_game") == kinds.count("game_over") == 2
    assert kinds.count("request") > 10
    for message in messages:
        check(message)
    ids = [m["id"] for m in messages if m["type"] == "request"]
    assert ids == list(range(1, len(ids) + 1))  # unique over the process's life


def test_sdk_messages_match_their_schemas() -> None:
    """The SDK's replies (ready, action), fed a real referee conversation."""

    class Last(Bot):
        name = "last"

        def act(self, observation: dict[str, Any]) -> str:
            return str(observation["legal_actions"][-1])

    from bots_sdk.referee import bot_seed, new_bot_seed_key
    from vegas_engine import new_game, observe

    state = new_game(describe("classic", 2), 3)
    seat = state.to_move()[0]
    seed = bot_seed(7, seat, key=new_bot_seed_key())
    conversation = [
        protocol.hello(Limits()),
        protocol.new_game(1, seat, state.description.to_json(), 20_000, seed),
        protocol.request(1, 1, observe(state, seat), 1000, 20_000),
        protocol.game_over(
            1,
            seat,
            [
                {"seat": 0, "money": 0, "notes": 0, "rank": 1, "forfeited": False},
                {"seat": 1, "money": 0, "notes": 0, "rank": 1, "forfeited": False},
            ],
        ),
        protocol.shutdown(),
    ]
    for message in conversation:
        check(message)
    out = io.BytesIO()
    serve(Last, io.BytesIO(b"".join(protocol.encode(m) for m in conversation)), out)
    replies = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [r["type"] for r in replies] == ["ready", "action"]
    for reply in replies:
        check(reply)
    assert replies[0] == {"type": "ready", "protocol": 1, "name": "last"}
    assert replies[1]["action"] == state.legal_actions(seat)[-1]


def test_lines_are_single_line_ascii() -> None:
    line = protocol.encode({"type": "action", "id": 1, "action": "plac\u00e9\n3"})
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    line.decode("ascii")


@pytest.mark.parametrize(
    ("line", "error"),
    [
        (b"place 3", "not JSON"),
        (b"[1, 2]", "JSON object"),
        (b'{"id": 1}', '"type"'),
        (b'{"type": "ready", "protocol": 1}', '"action"'),
        (b'{"type": "action", "id": 2, "action": "place 3"}', "not the pending request 1"),
        (b'{"type": "action", "id": 1, "action": 3}', "must be a string"),
        (b'{"type": "action", "id": true, "action": "place 3"}', "pending request"),
        (b"\xff\xfe", "UTF-8"),
        (b'{"type": "action", "id": 1.0, "action": "place 3"}', "request id 1.0"),
        pytest.param(b"[" * 15_000, "nested more than 32 deep", id="15000["),
        pytest.param(
            b'{"type": "action", "id": 1, "action": "a", "x": ' + b"9" * 5000 + b"}",
            "an integer of more than 4300 digits",
            id="5000-digits",
        ),
        (b'{"type": "action", "id": NaN, "action": "a"}', "NaN is not a JSON value"),
        (b'{"type": "action", "id": 1, "action": -Infinity}', "Infinity is not a JSON value"),
        pytest.param(
            b'{"type": "action", "id": 1, "action": [' + b"[" * 40 + b"]" * 41 + b"}",
            "32 deep",
            id="41-deep",
        ),
        pytest.param(
            b'{"type": "action", "id": ' + b"[" * 20 + b"]" * 20 + b', "a": 1}',
            "id an array,",
            id="20-deep-id",
        ),
        (b'{"type": "action", "id": 1, "action": {"a": 1}}', "got an object$"),
        pytest.param(
            b'{"type": "' + b"t" * 9000 + b'"}',
            r"got 'ttt.*\.\.\. \(9002 chars\)$",
            id="9000-char-type",
        ),
    ],
)
def test_bad_replies_are_refused_with_a_reason(line: bytes, error: str) -> None:
    with pytest.raises(ProtocolError, match=error):
        protocol.parse_action(line, 1)


@pytest.mark.parametrize(
    ("note", "kept", "cut"),
    [
        ('"thinking"', "thinking", False),
        ("null", "", False),
        ('"' + "n" * 256 + '"', "n" * 256, False),
        ('"' + "n" * 257 + '"', "n" * 256, True),
        ('"n' + "\\u00e9" * 128 + '"', "n" + "\u00e9" * 127, True),  # 257 bytes: é not split
        ('"\\ud800!"', "?!", False),  # a lone surrogate is no UTF-8
    ],
    ids=["text", "null", "at_cap", "long", "multibyte_cut", "lone_surrogate"],
)
def test_an_action_may_carry_a_note_cut_to_its_cap(note: str, kept: str, cut: bool) -> None:
    line = b'{"type":"action","id":1,"action":"a","note":' + note.encode() + b"}"
    assert protocol.parse_answer(line, 1) == protocol.Answer("a", kept, cut)
    assert len(kept.encode()) <= protocol.MAX_NOTE_BYTES
    assert protocol.parse_answer(b'{"type":"action","id":1,"action":"a"}', 1).note == ""


@pytest.mark.parametrize("note", [b"42", b"true", b'["a"]', b'{"a":1}'])
def test_a_note_that_is_not_a_string_is_refused(note: bytes) -> None:
    line = b'{"type":"action","id":1,"action":"a","note":' + note + b"}"
    with pytest.raises(ProtocolError, match='"note" must be a string'):
        protocol.parse_answer(line, 1)
    check(json.loads(b'{"type":"action","id":1,"action":"a","note":"x"}'))


def test_reply_nesting_is_counted_outside_strings() -> None:
    deep = b"[" * 31 + b"]" * 31  # 32 levels with the message's own object
    assert protocol.nesting(b'{"x":' + deep + b"}") == 32
    assert protocol.parse_action(b'{"type":"action","id":1,"action":"a","x":' + deep + b"}", 1)
    brackets = b'"' + b'[[[\\\\\\"{{{' * 40 + b'"'  # escaped quotes and backslashes among them
    line = b'{"type":"action","id":1,"action":' + brackets + b"}"
    assert protocol.nesting(line) == 1
    assert protocol.parse_action(line, 1) == json.loads(brackets)
    with pytest.raises(ProtocolError, match="32 deep"):
        protocol.parse_action(b'{"type":"action","id":1,"action":"a","x":[' + deep + b"]}", 1)


def test_ready_checks_the_version() -> None:
    assert protocol.parse_ready(b'{"type": "ready", "protocol": 1, "name": "x"}') == "x"
    with pytest.raises(ProtocolError, match="protocol 2"):
        protocol.parse_ready(b'{"type": "ready", "protocol": 2}')
    with pytest.raises(ProtocolError, match="protocol True"):
        protocol.parse_ready(b'{"type": "ready", "protocol": true}')
    # Unknown fields are ignored (additions within a version stay compatible).
    assert protocol.parse_action(b'{"type":"action","id":1,"action":"a","why":"x"}', 1) == "a"


@pytest.mark.parametrize(
    "name",
    [b'"' + b"n" * 201 + b'"', b'"a\\ud800"', b"3", b'["x"]'],
    ids=["long", "lone_surrogate", "number", "array"],
)
def test_ready_refuses_a_name_that_is_not_text(name: bytes) -> None:
    assert protocol.parse_ready(b'{"type":"ready","protocol":1,"name":"' + b"n" * 200 + b'"}')
    with pytest.raises(ProtocolError, match="name"):
        protocol.parse_ready(b'{"type":"ready","protocol":1,"name":' + name + b"}")


# ------------------------------------------------------------------ fuzzing

#: JSON-ish values as text: valid JSON, and what a hostile bot would try
#: (NaN, 5000-digit numbers, lone surrogates, 1e999, invalid escapes, deep nesting).
SCALARS = st.one_of(
    st.sampled_from(["null", "true", "false", "NaN", "-Infinity", "1e999", "-0", '"\\ud800"']),
    st.integers().map(str),
    st.integers(1, 6000).map(lambda digits: "7" * digits),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.text().map(lambda text: json.dumps(text, ensure_ascii=False)),
    st.text(st.characters(codec="utf-8"), max_size=8).map(lambda text: f'"\\{text}"'),
)
JSONISH = st.recursive(
    SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=4).map(lambda items: "[" + ",".join(items) + "]"),
        st.lists(st.tuples(st.text(max_size=6), children), max_size=4).map(
            lambda pairs: "{" + ",".join(f"{json.dumps(k)}:{v}" for k, v in pairs) + "}"
        ),
        st.integers(1, 20_000).map(lambda depth: "[" * depth + "]" * depth),
        st.integers(1, 20_000).map(lambda depth: '{"a":' * depth + "1" + "}" * depth),
    ),
    max_leaves=12,
)
REPLIES = st.one_of(
    JSONISH,
    st.tuples(st.sampled_from(["action", "ready", "x"]), JSONISH, JSONISH, JSONISH).map(
        lambda t: f'{{"type":"{t[0]}","id":{t[1]},"action":{t[2]},"protocol":{t[3]},"name":{t[3]}}}'
    ),
)


def decodes_or_refuses(line: bytes) -> None:
    """Every reader of a bot's line returns or raises ProtocolError, nothing else."""
    for read in (protocol.decode, protocol.parse_ready, lambda b: protocol.parse_action(b, 1)):
        try:
            read(line)
        except ProtocolError as error:
            assert len(str(error)) < 300
    with contextlib.suppress(ProtocolError):
        assert isinstance(protocol.parse_action(line, 1), str)
    with contextlib.suppress(ProtocolError):
        name = protocol.parse_ready(line)
        assert name is None or len(name.encode("utf-8")) <= 4 * protocol.MAX_NAME_CHARS


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=20_000))
def test_any_bytes_decode_or_are_refused(line: bytes) -> None:
    decodes_or_refuses(line)


@settings(max_examples=400, deadline=None)
@given(REPLIES, st.sampled_from(["utf-8", "utf-16", "latin-1"]))
def test_any_jsonish_reply_decodes_or_is_refused(text: str, encoding: str) -> None:
    # utf-8 keeps lone surrogates (bytes UTF-8 forbids); latin-1 makes non-UTF-8 bytes
    errors = "replace" if encoding == "latin-1" else "surrogatepass"
    decodes_or_refuses(text.encode(encoding, errors=errors))


def test_referee_log_section_matches_its_schema(tmp_path: Path) -> None:
    """The "referee" field of game logs, with and without faults."""
    check_log = validator("referee-log")
    kinds = check_log.schema["$defs"]["fault"]["properties"]["kind"]["enum"]
    assert kinds == [kind.value for kind in FaultKind]
    bots = [
        raw_bot(tmp_path / "a", "illegal", at=2),
        raw_bot(tmp_path / "b", "slow_start"),
        raw_bot(tmp_path / "c", "early", at=1),  # a fault at a request never sent
    ]
    limits = Limits(startup_ms=500)
    with Match([*bots, house_bot("greedy")], limits) as match:
        faulty = match.play(describe("classic", 4), 8, [0, 1, 2, 3])
        second = match.play(describe("boulevard", 4), 9, [3, 0, 1, 2])
    assert {fault.kind for fault in faulty.faults} == {
        FaultKind.ILLEGAL_ACTION,
        FaultKind.STARTUP_TIMEOUT,
        FaultKind.GARBAGE,
    }
    for record in (faulty, second):
        check_log.validate(record.log["referee"])
        # What the engine's own log check needs is untouched.
        replay(loads(json.dumps(record.log)))
