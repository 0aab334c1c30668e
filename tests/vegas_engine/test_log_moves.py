"""The moves form of a log (``new_game(log="moves")``, log_schema 2) and its expansion.

The moves form keeps each chosen action and each outcome given to explicit
chance; :func:`vegas_engine.log.expand` must make from it, byte for byte, the
events form a state logging events writes for the same game: every rule
system, option set and seat count, tape or explicit chance, from the deal or
from a position, across clones. A moves log that cannot be played, or whose
result the moves do not give, is a corrupt log naming the move or the result.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from tests.vegas_engine.test_properties import Chooser, choosers, deals, examples
from vegas_engine import (
    CorruptLogError,
    GameDescription,
    LogMode,
    State,
    describe,
    from_position,
    new_game,
)
from vegas_engine import log as game_logs
from vegas_engine.description import MAX_SEED
from vegas_engine.replay import replay

from .test_log_schema import SCHEMA

pytestmark = pytest.mark.slow

VALIDATOR = Draft202012Validator(SCHEMA)


def play_both(events: State, moves: State, choose: Chooser, limit: int) -> None:
    """Play both states to ``limit`` steps with the same decisions and chance outcomes."""
    pick = random.Random(choose.seed)
    for _ in range(limit):
        if events.is_terminal():
            return
        if events.is_chance_node():
            outcomes = events.chance_outcomes()
            outcome = outcomes[pick.randrange(len(outcomes))][0]
            events.apply_chance(outcome)
            moves.apply_chance(outcome)
            continue
        for seat in events.to_move():
            action = choose(events.legal_actions(seat))
            events.apply_action(action, seat)
            moves.apply_action(action, seat)


def stored(state: State) -> dict[str, Any]:
    """The moves log as the platform keeps it: JSON text, read back and checked."""
    return game_logs.loads(game_logs.dumps(game_logs.game_log(state)))


@examples(40)
@given(deal=deals(), choose=choosers, explicit=st.booleans(), split=st.floats(0, 1))
def test_the_moves_expand_to_the_very_events_log(
    deal: tuple[GameDescription, int], choose: Chooser, explicit: bool, split: float
) -> None:
    description, seed = deal
    chance = "explicit" if explicit else "tape"
    events = new_game(description, seed, log=True, chance=chance)
    moves = new_game(description, seed, log="moves", chance=chance)
    assert moves.events() is None, "a moves state keeps no events"
    play_both(events, moves, choose, 10_000)
    # A clone part way through keeps its own moves and goes on identically.
    first = new_game(description, seed, log=True, chance=chance)
    second = new_game(description, seed, log="moves", chance=chance)
    again = choose.copy()
    play_both(first, second, again, int(split * 400))
    fork = second.clone()
    play_both(first, second, again, 10_000)

    expected = game_logs.dumps(game_logs.game_log(events))
    log = stored(moves)
    assert log["log_schema"] == 2 and (log.get("chance") == "explicit") == explicit
    assert game_logs.dumps(game_logs.expand(log)) == expected
    assert game_logs.dumps(game_logs.expand(stored(second))) == game_logs.dumps(
        game_logs.game_log(first)
    )
    assert fork.moves() is not second.moves()
    assert replay(log).result() == events.result()
    assert not list(VALIDATOR.iter_errors(log))


@examples(30)
@given(deal=deals(), choose=choosers, split=st.floats(0, 1))
@example(deal=(describe("cardgame", 2), MAX_SEED), choose=Chooser([], 0), split=0.0)
def test_a_game_from_a_position_keeps_the_position(
    deal: tuple[GameDescription, int], choose: Chooser, split: float
) -> None:
    description, seed = deal
    lead = new_game(description, seed, log=False)
    play_both(lead, new_game(description, seed, log=False), choose, int(split * 100))
    if lead.is_terminal():
        return
    position = lead.position()
    # Another seed from here on; flipping a bit keeps it in 0..MAX_SEED (seed + 1 may not).
    events = from_position(description, position, seed ^ 1)
    moves = from_position(description, position, seed ^ 1, log="moves")
    play_both(events, moves, choose.copy(), 10_000)
    log = stored(moves)
    assert log["position"] == position
    assert game_logs.dumps(game_logs.expand(log)) == game_logs.dumps(game_logs.game_log(events))
    assert not list(VALIDATOR.iter_errors(log))


def test_events_of_a_moves_state_are_those_so_far() -> None:
    description = describe("cardgame", 3)
    events, moves = new_game(description, 5), new_game(description, 5, log="moves")
    play_both(events, moves, Chooser([], 5), 8)
    assert not moves.is_terminal()
    assert game_logs.events_of(moves) == events.events()
    assert game_logs.game_log(moves)["result"] is None


def test_an_illegal_action_records_no_move() -> None:
    state = new_game(describe("classic", 3), 9, log="moves")
    record = state.moves()
    assert record is not None
    with pytest.raises(Exception, match="not among the legal actions"):
        state.apply_action("place 9")
    assert record.moves == []
    seat, action = state.to_move()[0], state.legal_actions()[0]
    state.apply_action(action)
    assert record.moves == [[seat, action]]


@pytest.fixture(scope="module")
def sample() -> dict[str, Any]:
    state = new_game(describe("classic", 4), 77, log="moves")
    play_both(new_game(describe("classic", 4), 77), state, Chooser([], 77), 10_000)
    return stored(state)


def corrupt(sample: dict[str, Any], change: Any) -> dict[str, Any]:
    log = copy.deepcopy(sample)
    change(log)
    return log


@pytest.mark.parametrize(
    ("change", "field", "says"),
    [
        (
            lambda log: log["moves"].__setitem__(3, [log["moves"][3][0], "place 9"]),
            "moves[3]",
            "cannot be played",
        ),
        (
            lambda log: log["moves"].__setitem__(0, [1, log["moves"][0][1]]),
            "moves[0]",
            "cannot be played",
        ),
        (lambda log: log["moves"].pop(), "result", "the moves give"),
        (lambda log: log["result"][0].__setitem__("money", 1), "result", "the log says"),
    ],
    ids=["illegal action", "wrong seat", "a move missing", "tampered result"],
)
def test_moves_that_do_not_play_are_a_corrupt_log(
    sample: dict[str, Any], change: Any, field: str, says: str
) -> None:
    log = corrupt(sample, change)
    with pytest.raises(CorruptLogError, match=says) as raised:
        game_logs.expand(log)
    assert raised.value.where == field
    with pytest.raises(CorruptLogError, match=says):
        replay(game_logs.check(log))


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda log: log["moves"].__setitem__(2, ["0", "place 1"]), "moves[2]"),
        (lambda log: log["moves"].__setitem__(2, [0]), "moves[2]"),
        (lambda log: log["moves"].__setitem__(2, {"seat": 0}), "moves[2]"),
        (lambda log: log.pop("moves"), "moves"),
        (lambda log: log.__setitem__("result", None), "result"),
        (lambda log: log.__setitem__("chance", "dice"), "chance"),
        (lambda log: log.__setitem__("chance", "tape"), "chance"),  # the tape: no field
        (lambda log: log.__setitem__("position", []), "position"),
        (lambda log: log.__setitem__("log_schema", 3), "log_schema"),
    ],
    ids=[
        "seat text",
        "short move",
        "move object",
        "no moves",
        "no result",
        "chance",
        "chance tape",
        "position",
        "schema 3",
    ],
)
def test_malformed_moves_logs_fail_loads_and_the_schema(
    sample: dict[str, Any], change: Any, field: str
) -> None:
    log = corrupt(sample, change)
    with pytest.raises(CorruptLogError) as raised:
        game_logs.loads(json.dumps(log))
    assert raised.value.where == field
    assert list(VALIDATOR.iter_errors(log))


def test_a_log_of_a_game_not_over_is_truncated(sample: dict[str, Any]) -> None:
    with pytest.raises(CorruptLogError, match="truncated: no result"):
        game_logs.loads(json.dumps({**sample, "result": None}))


def test_a_log_of_both_forms_fails_the_schema(sample: dict[str, Any]) -> None:
    expanded = game_logs.expand(sample)
    assert not list(VALIDATOR.iter_errors(expanded))
    assert list(VALIDATOR.iter_errors({**expanded, "moves": sample["moves"]}))
    assert list(VALIDATOR.iter_errors({**sample, "events": expanded["events"]}))


def test_expand_keeps_the_header_and_other_fields(sample: dict[str, Any]) -> None:
    log = {**sample, "engine_version": "0.0.9", "referee": {"game_id": 4}}
    expanded = game_logs.expand(log)
    assert list(expanded) == [
        "log_schema",
        "engine_version",
        "rules",
        "options",
        "seats",
        "seed",
        "events",
        "referee",
    ]
    assert expanded["engine_version"] == "0.0.9" and expanded["referee"] == {"game_id": 4}
    assert game_logs.expand(expanded) is expanded, "an events log is already expanded"


@pytest.mark.parametrize(
    ("given", "mode"),
    [
        (True, LogMode.EVENTS),
        (False, LogMode.NONE),
        ("moves", LogMode.MOVES),
        (LogMode.MOVES, LogMode.MOVES),
        ("events", LogMode.EVENTS),
    ],
)
def test_log_modes_by_name(given: Any, mode: LogMode) -> None:
    assert LogMode.of(given) is mode


def test_an_unknown_log_mode_says_which_there_are() -> None:
    with pytest.raises(ValueError, match="'events', 'moves', 'none', True or False"):
        new_game(describe("classic", 2), 1, log="all")
