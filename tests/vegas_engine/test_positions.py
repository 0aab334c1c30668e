"""Positions: ``state.position()`` and ``from_position``, as FEN and ``chess.Board(fen)``.

For every rule system: a position taken anywhere round-trips exactly; play
goes on from it identically wherever chance does not act (chance fed the same
outcomes, the copy is the original event for event); a game started from a
position logs it and replays; and malformed or impossible positions are
refused naming the field.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from tests.vegas_engine.test_chance import CASES, NAMES
from tests.vegas_engine.test_log_schema import VALIDATOR
from vegas_engine import (
    InvalidPositionError,
    State,
    describe,
    from_position,
    new_game,
)
from vegas_engine.log import game_log
from vegas_engine.replay import replay

pytestmark = pytest.mark.slow


def decide(state: State, rng: random.Random) -> None:
    for seat in state.to_move():
        if state.is_chance_node():
            return
        state.apply_action(rng.choice(state.legal_actions(seat)), seat)


@pytest.mark.parametrize("name", NAMES)
def test_a_position_round_trips_exactly_anywhere(name: str) -> None:
    rules, seats, options = CASES[name]
    game = describe(rules, seats, options)
    rng = random.Random(name)
    for seed in range(2):
        state = new_game(game, seed)
        while True:
            position = state.position()
            assert json.loads(json.dumps(position)) == position, "plain JSON"
            restored = from_position(game, position, seed=7, log=False)
            assert restored.position() == position
            assert restored.to_move() == state.to_move()
            assert [restored.observe(s) for s in range(seats)] == [
                state.observe(s) for s in range(seats)
            ] or rules == "cardgame"  # the card game's observations show pile sizes only
            if state.is_terminal():
                assert restored.result() == state.result()
                break
            for seat in state.to_move():
                assert restored.legal_actions(seat) == state.legal_actions(seat)
            decide(state, rng)


@pytest.mark.parametrize("name", NAMES)
def test_play_goes_on_from_a_position_as_it_would_have(name: str) -> None:
    """Both fed the same decisions and chance outcomes: the same events and positions."""
    rules, seats, options = CASES[name]
    game = describe(rules, seats, options)
    for cut in (3, 40, 120):
        rng = random.Random(f"{name}/{cut}")
        state = new_game(game, cut, chance="explicit")
        decisions = 0
        while decisions < cut and not state.is_terminal():
            if state.is_chance_node():
                state.apply_chance(state.tape_outcome())
            else:
                decide(state, rng)
                decisions += 1
        while state.is_chance_node():
            state.apply_chance(state.tape_outcome())
        events = state.events()
        assert events is not None
        if state.is_terminal():  # over before the cut: covered by the round trip
            continue
        start = len(events)
        twin = from_position(game, state.position(), seed=cut + 1, chance="explicit")
        while not state.is_terminal():
            assert twin.to_move() == state.to_move()
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                assert twin.chance_outcomes() == outcomes
                names, weights = zip(*outcomes, strict=True)
                outcome = rng.choices(names, [float(w) for w in weights])[0]
                state.apply_chance(outcome)
                twin.apply_chance(outcome)
                continue
            assert twin.position() == state.position()
            for seat in state.to_move():
                action = rng.choice(state.legal_actions(seat))
                state.apply_action(action, seat)
                twin.apply_action(action, seat)
                if state.is_chance_node():
                    break
        assert twin.is_terminal() and twin.result() == state.result()
        twin_events = twin.events()
        assert twin_events is not None and twin_events[0]["type"] == "position"
        assert twin_events[1:] == events[start:]


@pytest.mark.parametrize("name", NAMES)
def test_a_game_started_from_a_position_logs_it_and_replays(name: str) -> None:
    rules, seats, options = CASES[name]
    game = describe(rules, seats, options)
    state = new_game(game, 5)
    rng = random.Random(5)
    for _ in range(12):
        decide(state, rng)
    position = state.position()
    later = from_position(game, position, 11)
    while not later.is_terminal():
        decide(later, rng)
    log = json.loads(json.dumps(game_log(later)))
    assert log["events"][0] == {"type": "position", "position": position}
    assert list(VALIDATOR.iter_errors(log)) == []
    assert replay(log).result() == later.result()
    # A finished game's position: its log is the position and the result.
    over = from_position(game, later.position(), 1)
    (first, last) = over.events() or []
    assert first["type"] == "position" and last == log["events"][-1]
    assert replay(game_log(over)).result() == later.result()


def test_a_position_is_the_board_not_the_history_and_states_its_hidden_parts() -> None:
    state = new_game(describe("cardgame", 3), 2)
    position = state.position()
    # Every hand (a seat sees only its own), nothing of the piles' order.
    assert [len(hand) for hand in position["hands"]] == [5, 5, 5]
    assert "pile_size" not in position and "draw_sizes" not in position
    assert position["queue"] == [0, 1, 2] and position["chosen"] == {}
    choice = state.legal_actions(1)[-1]
    state.apply_action(choice, 1)
    # A secret choice is part of the position (no observation of another seat shows it).
    assert state.position()["chosen"] == {"1": choice}
    assert state.observe(0)["my_choice"] is None
    dice = new_game(describe("boulevard", 3), 2).position()
    assert dice["decision"] == "place" and dice["under_pile"] == []
    assert set(dice["roll"]["dice"]) <= {"die", "biggie", "kicker", "neutral"}


def test_forced_decisions_of_a_position_are_taken_and_logged_as_forced() -> None:
    game = describe("classic", 2)
    position = new_game(game, 1).position()
    seat = position["current_player"]
    position["roll"]["dice"] = {"die": [4] * 8}  # one face: one legal action
    position["hands"][seat]["die"] = 8
    state = from_position(game, position, 3)
    events = state.events()
    assert events is not None
    assert events[0] == {"type": "position", "position": position}
    assert events[1] == {"type": "decision", "seat": seat, "action": "place 4", "forced": True}
    assert events[2]["type"] == "place" and events[2]["dice"] == {"die": 8}


def refused(game_rules: str, edit: Any, field: str, seats: int = 3) -> str:
    game = describe(game_rules, seats)
    position = new_game(game, 4).position()
    edited = edit(copy.deepcopy(position))
    with pytest.raises(InvalidPositionError) as error:
        from_position(game, position if edited is None else edited, 4)
    assert error.value.field.startswith(field), str(error.value)
    return str(error.value)


def test_malformed_positions_are_refused_naming_the_field() -> None:
    def drop(key: str) -> Any:
        return lambda p: {k: v for k, v in p.items() if k != key}

    assert "missing" in refused("classic", drop("hands"), "hands")
    assert "unknown field" in refused("classic", lambda p: {**p, "seed": 4}, "seed")
    assert "unknown field" in refused("royale", lambda p: {**p, "to_move": [0]}, "to_move")
    refused("cardgame", drop("queue"), "queue")
    message = refused("classic", lambda p: {**p, "round": "2"}, "round")
    assert "'2'" in message
    assert "none of place, kick, chip, none" in refused(
        "classic", lambda p: {**p, "decision": "dance"}, "decision"
    )
    assert "array expected" in refused("classic", lambda p: {**p, "casinos": 5}, "casinos")
    refused("royale", lambda p: {**p, "pending": [{"step": "dance"}]}, "pending")
    with pytest.raises(InvalidPositionError, match="a JSON object"):
        from_position(describe("classic", 2), [1, 2], 1)  # type: ignore[arg-type]
    with pytest.raises(InvalidPositionError, match="not JSON"):
        from_position(describe("classic", 2), {"round": {1, 2}}, 1)


def test_impossible_positions_are_refused() -> None:
    def more_nineties(p: Any) -> Any:
        p["won"][0] += [90_000] * 6
        return p

    assert "more 90000" in refused("classic", more_nineties, "notes")

    def unsorted(p: Any) -> Any:
        casino = next(c for c in p["casinos"] if len(set(c["notes"])) > 1)
        casino["notes"] = sorted(casino["notes"])
        return p

    assert "is not what this state is written as" in refused("classic", unsorted, "casinos[")

    def roll_without_dice(p: Any) -> Any:
        p["hands"][p["current_player"]]["die"] = 3
        return p

    assert "holds" in refused("classic", roll_without_dice, "roll")
    refused("classic", lambda p: {**p, "current_player": 7}, "current_player")

    def chip_without_chips(p: Any) -> Any:
        p["decision"] = "chip"
        return p

    assert "chip cards" in refused("classic", chip_without_chips, "chips")

    def illegal_choice(p: Any) -> Any:
        p["chosen"] = {"1": "play 9"}
        return p

    assert "not legal" in refused("cardgame", illegal_choice, "chosen.1")

    def two_hands(p: Any) -> Any:
        p["hands"][0] = [*p["hands"][0][:3], "6D", "6D"]
        return p

    assert "more" in refused("cardgame", two_hands, "seat 0")

    def hidden_tokens(p: Any) -> Any:
        p["tiles"]["jackpot"] = "lots"
        return p

    refused("royale", hidden_tokens, "tiles.jackpot")


def test_no_position_at_a_chance_node() -> None:
    state = new_game(describe("classic", 2), 1, chance="explicit")
    with pytest.raises(InvalidPositionError, match="chance acts now"):
        state.position()
    position = new_game(describe("classic", 2), 1).position()
    with pytest.raises(InvalidPositionError, match="chance acts now"):
        from_position(describe("classic", 2), {**position, "decision": "chance"}, 1)
