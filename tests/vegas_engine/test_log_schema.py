"""The game log format: docs/game-log.schema.json against real logs and corrupted ones.

Real logs (every rule system, several option sets and seat counts, and the
golden files) must validate against the JSON Schema; corrupted logs must be
rejected both by the schema and by :func:`vegas_engine.log.loads`, whose
:class:`CorruptLogError` names the broken field. The schema, the engine's
own list of event fields and docs/game-log*.md are kept in step.
"""

from __future__ import annotations

import copy
import json
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from tests.vegas_engine.regenerate_golden import GOLDEN_DIR
from vegas_engine import RULE_SYSTEMS, CorruptLogError, ReplayMismatchError, describe, new_game
from vegas_engine import log as game_logs
from vegas_engine.log import BODY_FIELDS, EVENT_FIELDS, HEADER_FIELDS
from vegas_engine.policies import play as play_game
from vegas_engine.policies import random_policy
from vegas_engine.replay import replay

pytestmark = pytest.mark.slow

DOCS = Path(__file__).resolve().parents[2] / "docs"
CHIP_COLOURS = ("blue", "gold", "green", "pink", "silver")
SCHEMA = json.loads((DOCS / "game-log.schema.json").read_text())
EVENT_PAGES = ("game-log-events.md", "game-log-royale.md")
VALIDATOR = Draft202012Validator(SCHEMA)

Log = dict[str, Any]


def game(rules: str, seats: int, seed: int, **options: bool | int) -> Log:
    description = describe(rules, seats, options)
    state = play_game(description, seed, [random_policy] * seats)
    return game_logs.game_log(state)


def moves_game(rules: str, seats: int, seed: int, **options: bool | int) -> Log:
    """The same game as :func:`game`, its log in the moves form."""
    description = describe(rules, seats, options)
    state = play_game(description, seed, [random_policy] * seats, log="moves")
    return game_logs.game_log(state)


GAMES: dict[str, Callable[[], Log]] = {
    "classic-2p": lambda: game("classic", 2, 1),
    "classic-5p": lambda: game("classic", 5, 2),
    "classic-3p-neutral-chips": lambda: game("classic", 3, 3, neutral_dice=True, chips=True),
    "boulevard-2p": lambda: game("boulevard", 2, 4),
    "boulevard-3p": lambda: game("boulevard", 3, 5),
    "boulevard-6p": lambda: game("boulevard", 6, 6),
    "boulevard-5p-bare": lambda: game(
        "boulevard",
        5,
        7,
        big_notes=False,
        neutral_dice=False,
        biggies=False,
        kickers=False,
        rainbow=False,
        slot_machine=False,
    ),
    "cardgame-2p": lambda: game("cardgame", 2, 8),
    "cardgame-5p-sequential-chips": lambda: game("cardgame", 5, 9, sequential=True, chips=True),
    "sixdice-2p-neutral": lambda: game("sixdice", 2, 10, neutral_dice=True),
    "sixdice-6p-slot": lambda: game("sixdice", 6, 11, slot_machine=True),
    "royale-2p-neutral": lambda: game("royale", 2, 12, neutral_dice=True),
    "royale-3p-basic": lambda: game("royale", 3, 13, tiles=0),
    "royale-4p-all-tiles": lambda: game("royale", 4, 14, tiles=6),
    "royale-5p": lambda: game("royale", 5, 15),
}


def schema_errors(document: Any) -> list[str]:
    return [
        f"{'/'.join(map(str, error.absolute_path)) or '(top)'}: {error.message}"
        for error in VALIDATOR.iter_errors(document)
    ]


def test_the_schema_is_a_valid_draft_2020_12_schema() -> None:
    Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"


@pytest.mark.parametrize("name", sorted(GAMES))
def test_real_logs_validate(name: str) -> None:
    document = GAMES[name]()
    # Validate the text form: what a log file holds.
    assert schema_errors(json.loads(game_logs.dumps(document))) == []


@pytest.mark.parametrize(
    ("rules", "seats", "seed", "options"),
    [
        ("classic", 3, 3, {"neutral_dice": True, "chips": True}),
        ("cardgame", 5, 9, {}),
        ("royale", 4, 14, {"tiles": 6}),
        ("boulevard", 6, 6, {}),
    ],
)
def test_moves_logs_validate_and_expand_to_the_events_log(
    rules: str, seats: int, seed: int, options: dict[str, Any]
) -> None:
    document = json.loads(game_logs.dumps(moves_game(rules, seats, seed, **options)))
    assert schema_errors(document) == []
    assert game_logs.expand(document) == game(rules, seats, seed, **options)


@pytest.mark.parametrize("path", sorted(GOLDEN_DIR.glob("*.json")), ids=lambda path: path.stem)
def test_golden_logs_validate(path: Path) -> None:
    assert schema_errors(json.loads(path.read_text())) == []


# ------------------------------------------------------------------ in step


def test_schema_event_types_are_the_engines() -> None:
    assert set(SCHEMA["$defs"]["event_type"]["enum"]) == set(EVENT_FIELDS)
    branches = SCHEMA["$defs"]["event"]["allOf"]
    assert {branch["if"]["properties"]["type"]["const"] for branch in branches} == set(EVENT_FIELDS)


@pytest.mark.parametrize("event_type", sorted(EVENT_FIELDS))
def test_schema_event_fields_are_the_engines(event_type: str) -> None:
    definition = SCHEMA["$defs"][event_type]
    fields = {"type", *EVENT_FIELDS[event_type]}
    assert set(definition["required"]) == fields
    assert set(definition["properties"]) == fields
    assert definition["additionalProperties"] is False


def test_every_event_type_belongs_to_a_family() -> None:
    families = [SCHEMA["$defs"][name] for name in ("dice_events", "card_events", "royale_events")]
    listed = {t for family in families for t in family["properties"]["type"]["enum"]}
    assert listed == set(EVENT_FIELDS)


def test_schema_header_is_the_engines() -> None:
    assert set(SCHEMA["required"]) == set(HEADER_FIELDS)
    bodies = {name for fields in BODY_FIELDS.values() for name in fields}
    # The moves form's optional fields, and the referee's section: the one field
    # the engine does not write.
    optional = {"chance", "position", "referee"}
    assert set(SCHEMA["properties"]) == set(HEADER_FIELDS) | bodies | optional
    assert SCHEMA["properties"]["log_schema"]["enum"] == list(BODY_FIELDS)
    assert set(SCHEMA["properties"]["rules"]["enum"]) == set(RULE_SYSTEMS)


@pytest.mark.parametrize("rules", sorted(RULE_SYSTEMS))
def test_schema_options_are_the_registrys(rules: str) -> None:
    branch = next(
        branch["then"]
        for branch in SCHEMA["allOf"]
        if branch["if"]["properties"].get("rules", {}).get("const") == rules
    )
    options = branch["properties"]["options"]
    names = {spec.name for spec in RULE_SYSTEMS[rules].options}
    assert set(options["required"]) == names
    assert set(options["properties"]) == names
    seats = RULE_SYSTEMS[rules].seats
    assert branch["properties"].get("seats", {}).get("maximum", 6) == max(seats)


def test_the_format_doc_names_every_field_and_event() -> None:
    header = (DOCS / "game-log.md").read_text()
    for name in HEADER_FIELDS:
        assert f"`{name}`" in header, f"docs/game-log.md does not document header field {name}"
    # One section per event, on the events' own pages (royale's on a page of its own).
    pages = {page: (DOCS / page).read_text() for page in EVENT_PAGES}
    for event_type, fields in EVENT_FIELDS.items():
        found = [
            (page, match.group(1))
            for page, text in pages.items()
            if (match := re.search(rf"^## `{event_type}`\n(.*?)(?=^## |\Z)", text, re.M | re.S))
        ]
        assert len(found) == 1, f"{' and '.join(EVENT_PAGES)} need one section for {event_type}"
        page, section = found[0]
        for field in fields:
            assert f"`{field}`" in section, f"{event_type}.{field} is not documented in {page}"
        assert '"type": "' + event_type + '"' in section, f"no {event_type} example in {page}"


# ---------------------------------------------------------------- corrupted


@pytest.fixture(scope="module")
def sample() -> Log:
    return game("boulevard", 3, 12)


def index_of(document: Log, event_type: str) -> int:
    return next(i for i, e in enumerate(document["events"]) if e["type"] == event_type)


def drop_header(name: str) -> Callable[[Log], str]:
    def corrupt(document: Log) -> str:
        del document[name]
        return name

    return corrupt


def set_header(name: str, value: Any) -> Callable[[Log], str]:
    def corrupt(document: Log) -> str:
        document[name] = value
        return name

    return corrupt


def drop_event_field(event_type: str, name: str) -> Callable[[Log], str]:
    def corrupt(document: Log) -> str:
        index = index_of(document, event_type)
        del document["events"][index][name]
        return f"events[{index}].{name}"

    return corrupt


def unknown_event_type(document: Log) -> str:
    index = index_of(document, "payout")
    document["events"][index]["type"] = "jackpot"
    return f"events[{index}].type"


def event_not_an_object(document: Log) -> str:
    document["events"][3] = ["stock", 1]
    return "events[3]"


def truncated(document: Log) -> str:
    del document["events"][-1]
    return "events"


CORRUPTIONS: dict[str, Callable[[Log], str]] = {
    "no seed": drop_header("seed"),
    "no engine_version": drop_header("engine_version"),
    "no events": drop_header("events"),
    "seats as text": set_header("seats", "three"),
    "seed negative": set_header("seed", -1),  # loads: invalid description (header)
    "options as a list": set_header("options", ["rainbow"]),
    "future log_schema": set_header("log_schema", 3),
    "log_schema as text": set_header("log_schema", "1"),
    "unknown event type": unknown_event_type,
    "event not an object": event_not_an_object,
    "stock without casino": drop_event_field("stock", "casino"),
    "decision without action": drop_event_field("decision", "action"),
    "payout without awards": drop_event_field("payout", "awards"),
    "round_end without money": drop_event_field("round_end", "money"),
    "truncated before game_end": truncated,
}


@pytest.mark.parametrize("name", sorted(CORRUPTIONS))
def test_corrupted_log_is_rejected_by_schema_and_loads(name: str, sample: Log) -> None:
    document = copy.deepcopy(sample)
    field = CORRUPTIONS[name](document)
    assert schema_errors(document), f"the schema accepts a log with {name}"
    text = json.dumps(document)
    if name == "seed negative":
        # Structurally fine for loads; the description check names the header.
        with pytest.raises(CorruptLogError, match=r"\bseed\b") as info:
            replay(game_logs.loads(text))
        assert info.value.where == "header"
        return
    with pytest.raises(CorruptLogError) as info:
        game_logs.loads(text)
    assert info.value.where == field
    assert field in str(info.value)


@pytest.mark.parametrize(
    "text",
    ['{"log_schema": 1, "engine_version": "0.1.0", "rul', "", "[1, 2", b"\xff\xfe{}"],
    ids=["cut short", "empty", "cut array", "not utf-8"],
)
def test_unreadable_log_text_is_a_corrupt_log(text: str | bytes) -> None:
    with pytest.raises(CorruptLogError):
        game_logs.loads(text)


def test_a_log_that_is_not_an_object_is_rejected(sample: Log) -> None:
    assert schema_errors(sample["events"])
    with pytest.raises(CorruptLogError) as info:
        game_logs.loads(json.dumps(sample["events"]))
    assert info.value.where == "top level"


# Values loads does not look into: the schema rejects them, and replay catches
# them as a mismatch, so a tampered log is never silently accepted.
TAMPERINGS: dict[str, Callable[[Log], None]] = {
    "a face of 7": lambda d: d["events"][index_of(d, "place")].update(face=7),
    "an extra event field": lambda d: d["events"][index_of(d, "roll")].update(cheat=True),
    "a note of 15000": lambda d: d["events"][index_of(d, "payout")].update(notes=[15000]),
    "a seat as text": lambda d: d["events"][index_of(d, "decision")].update(seat="0"),
    "an unknown action": lambda d: d["events"][index_of(d, "decision")].update(action="win"),
    "returned to the sea": lambda d: d["events"][index_of(d, "payout")].update(returned_to="sea"),
}


@pytest.mark.parametrize("name", sorted(TAMPERINGS))
def test_tampered_values_fail_the_schema_and_the_replay(name: str, sample: Log) -> None:
    document = copy.deepcopy(sample)
    TAMPERINGS[name](document)
    assert schema_errors(document), f"the schema accepts {name}"
    checked = game_logs.loads(json.dumps(document))
    with pytest.raises(ReplayMismatchError):
        replay(checked)


# ----------------------------------------------------- the other format docs


def observation_keys(rules: str) -> set[str]:
    """Every key of every observation (nested objects included) in a few games."""
    keys: set[str] = set()

    def collect(value: Any) -> None:
        if isinstance(value, dict):
            for key, inner in value.items():
                if not key.isdigit() and key not in ("neutral", "grey"):
                    keys.add(key)
                if key != "options":  # option names are data, documented by the registry
                    collect(inner)
        elif isinstance(value, list):
            for inner in value:
                collect(inner)

    for seats in RULE_SYSTEMS[rules].seats[:2]:
        for options in (
            {},
            {
                spec.name: spec.allowed_values()[-1]
                for spec in RULE_SYSTEMS[rules].options
                if spec.seats is None
            },
        ):
            state = new_game(describe(rules, seats, options), seats)
            chooser = random.Random(seats)
            for _ in range(40):
                for seat in range(seats):
                    collect(state.observe(seat))
                if state.is_terminal():
                    break
                seat = state.to_move()[0]
                state.apply_action(chooser.choice(state.legal_actions(seat)), seat)
    # Keys that are data, not fields: dice kinds and chip colours as object keys.
    return keys - {"die", "biggie", "kicker", "neutral", *CHIP_COLOURS}


@pytest.mark.parametrize("rules", sorted(RULE_SYSTEMS))
def test_the_observation_doc_names_every_field(rules: str) -> None:
    text = (DOCS / "observation.md").read_text()
    missing = sorted(key for key in observation_keys(rules) if f"`{key}`" not in text)
    assert not missing, f"docs/observation.md does not document {rules} fields {missing}"


@pytest.mark.parametrize("rules", sorted(RULE_SYSTEMS))
def test_the_actions_doc_names_every_decision(rules: str) -> None:
    text = (DOCS / "actions.md").read_text()
    seen: set[str] = set()
    for seats in RULE_SYSTEMS[rules].seats[:2]:
        state = new_game(describe(rules, seats), seats)
        chooser = random.Random(seats)
        while not state.is_terminal():
            seen.add(state.observe(state.to_move()[0])["decision"])
            seat = state.to_move()[0]
            state.apply_action(chooser.choice(state.legal_actions(seat)), seat)
    missing = sorted(decision for decision in seen if f"### `{decision}`" not in text)
    assert not missing, f"docs/actions.md has no section for {rules} decisions {missing}"
