"""Every protocol message against its JSON Schema, both directions, from real runs."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest
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
            record = match.play(describe(rules, 2, game), seating)
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

    from bots_sdk.referee import bot_seed
    from vegas_engine import new_game, observe

    state = new_game(describe("classic", 2, 3))
    seat = state.to_move()[0]
    conversation = [
        protocol.hello(Limits()),
        protocol.new_game(1, seat, state.description.public_json(), 20_000, bot_seed(7, seat)),
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
    ],
)
def test_bad_replies_are_refused_with_a_reason(line: bytes, error: str) -> None:
    with pytest.raises(ProtocolError, match=error):
        protocol.parse_action(line, 1)


def test_ready_checks_the_version() -> None:
    assert protocol.parse_ready(b'{"type": "ready", "protocol": 1, "name": "x"}') == "x"
    with pytest.raises(ProtocolError, match="protocol 2"):
        protocol.parse_ready(b'{"type": "ready", "protocol": 2}')
    # Unknown fields are ignored (additions within a version stay compatible).
    assert protocol.parse_action(b'{"type":"action","id":1,"action":"a","why":"x"}', 1) == "a"


def test_referee_log_section_matches_its_schema(tmp_path: Path) -> None:
    """The "referee" field of game logs, with and without faults."""
    check_log = validator("referee-log")
    kinds = check_log.schema["$defs"]["fault"]["properties"]["kind"]["enum"]
    assert kinds == [kind.value for kind in FaultKind]
    bots = [raw_bot(tmp_path / "a", "illegal", at=2), raw_bot(tmp_path / "b", "slow_start")]
    limits = Limits(startup_ms=500)
    with Match([*bots, house_bot("greedy")], limits) as match:
        faulty = match.play(describe("classic", 3, 8), [0, 1, 2])
        second = match.play(describe("boulevard", 3, 9), [2, 0, 1])
    assert {fault.kind for fault in faulty.faults} == {
        FaultKind.ILLEGAL_ACTION,
        FaultKind.STARTUP_TIMEOUT,
    }
    for record in (faulty, second):
        check_log.validate(record.log["referee"])
        # What the engine's own log check needs is untouched.
        replay(loads(json.dumps(record.log)))
