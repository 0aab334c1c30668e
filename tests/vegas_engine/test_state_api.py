"""The state API: who moves, legal actions, illegal actions, clone, forced moves,
observations, results, and the built-in policies."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from vegas_engine import (
    RULE_SYSTEMS,
    Decision,
    DiceDecision,
    GameOverError,
    IllegalActionError,
    State,
    describe,
    new_game,
    observe,
    rule_system,
)
from vegas_engine.log import game_log
from vegas_engine.policies import POLICIES, Policy, greedy_policy, play, random_policy

from .conftest import find_step, play_out, snapshot, steps

CONFIGURATIONS = [
    ("classic", 2, {}),
    ("classic", 3, {"neutral_dice": True}),
    ("boulevard", 4, {}),
    ("boulevard", 6, {}),
]


def _live(rules: str = "boulevard", seats: int = 4, seed: int = 5) -> State:
    """A game in progress, some turns in."""
    state = new_game(describe(rules, seats), seed)
    rng = random.Random(seed)
    for _ in range(6):
        state.apply_action(rng.choice(state.legal_actions()))
    assert not state.is_terminal()
    return state


def _finished() -> State:
    return play_out("classic", 2, 1)


# ------------------------------------------------------------ to_move / legal


@pytest.mark.parametrize(("rules", "seats", "options"), CONFIGURATIONS)
def test_one_seat_moves_at_a_time_until_the_end(
    rules: str, seats: int, options: dict[str, bool]
) -> None:
    for step in steps(rules, seats, 4, options):
        state = step.state
        movers = state.to_move()
        if state.is_terminal():
            assert movers == () and state.decision() is DiceDecision.NONE
            assert state.legal_actions() == ()
            assert state.result() is not None
        else:
            assert len(movers) == 1 and 0 <= movers[0] < seats
            assert state.decision() in (DiceDecision.PLACE, DiceDecision.KICK)
            assert state.result() is None
            assert state.legal_actions() == state.legal_actions(movers[0])
            for other in set(range(seats)) - set(movers):
                assert state.legal_actions(other) == ()


def _place_key(action: str) -> tuple[int, int]:
    where, face = action.split()
    return (0 if where == "place" else 1, int(face))


def _kick_key(action: str) -> tuple[int, int]:
    _, owner, kind = action.split()
    return (99 if owner == "neutral" else int(owner), 0 if kind == "die" else 1)


@pytest.mark.parametrize(("rules", "seats", "options"), CONFIGURATIONS)
def test_legal_actions_come_in_a_stable_sorted_order(
    rules: str, seats: int, options: dict[str, bool]
) -> None:
    """place 1..6 first, then slot 1..6; kicks by owner (neutral last), die before biggie."""
    kicks = 0
    for seed in range(3):
        for step in steps(rules, seats, seed, options):
            state = step.state
            if state.is_terminal():
                continue
            legal = state.legal_actions()
            assert len(set(legal)) == len(legal)
            assert legal == state.legal_actions()  # asking twice changes nothing
            if state.decision() is DiceDecision.PLACE:
                assert list(legal) == sorted(legal, key=_place_key)
                assert all(_place_key(a)[1] in range(1, 7) for a in legal)
            else:
                kicks += 1
                assert list(legal) == sorted(legal, key=_kick_key)
    assert kicks > 0 or rules == "classic"


# ----------------------------------------------------------- illegal actions


def _assert_rejected(state: State, action: Any, seat: int | None, error: type) -> None:
    before = snapshot(state)
    with pytest.raises(error) as caught:
        state.apply_action(action, seat)
    assert snapshot(state) == before, "an illegal action changed the state"
    assert str(caught.value)


def test_wrong_seat_raises_and_changes_nothing() -> None:
    state = _live()
    seat = state.to_move()[0]
    action = state.legal_actions()[0]
    for other in range(4):
        if other != seat:
            _assert_rejected(state, action, other, IllegalActionError)
    _assert_rejected(state, action, 9, IllegalActionError)
    _assert_rejected(state, action, -1, IllegalActionError)


@pytest.mark.parametrize(
    "action",
    ["place 7", "place 0", "slot 9", "kick 0 die", "hello", "", "PLACE 1", "place  1", None, 3],
)
def test_garbage_or_unavailable_actions_raise_and_change_nothing(action: Any) -> None:
    state = _live()
    if action in state.legal_actions():
        pytest.skip("legal here")
    error = _rejected_with(state, action)
    assert error.legal == state.legal_actions()
    assert repr(action) in str(error)


def _rejected_with(state: State, action: Any) -> IllegalActionError:
    before = snapshot(state)
    with pytest.raises(IllegalActionError) as caught:
        state.apply_action(action)
    assert snapshot(state) == before
    return caught.value


def test_a_face_not_rolled_is_not_legal() -> None:
    def place_decision(step: Any) -> bool:
        state = step.state
        return (
            not state.is_terminal()
            and state.decision() is DiceDecision.PLACE
            and len(state.legal_actions()) < 6
        )

    state = find_step("classic", 4, None, place_decision).state
    view = observe(state, state.to_move()[0])
    rolled = {face for faces in view["roll"]["dice"].values() for face in faces}
    assert state.legal_actions() == tuple(f"place {face}" for face in sorted(rolled))
    for face in sorted(set(range(1, 7)) - rolled):
        _rejected_with(state, f"place {face}")


def test_a_kick_action_during_a_place_decision_and_vice_versa_is_illegal() -> None:
    def kicking(step: Any) -> bool:
        return not step.state.is_terminal() and step.state.decision() is DiceDecision.KICK

    state = find_step("boulevard", 4, None, kicking).state
    _rejected_with(state, "place 1")
    _rejected_with(state, "slot 1")
    seat = state.to_move()[0]
    kicked_nowhere = next(
        f"kick {o} biggie" for o in range(4) if f"kick {o} biggie" not in state.legal_actions()
    )
    _rejected_with(state, kicked_nowhere)
    place_state = _live()
    assert place_state.decision() is DiceDecision.PLACE
    _rejected_with(place_state, f"kick {seat} die")


def test_acting_on_a_finished_game_raises_game_over() -> None:
    state = _finished()
    assert state.is_terminal()
    for action in ("place 1", "hello"):
        for seat in (None, 0, 1):
            _assert_rejected(state, action, seat, GameOverError)
    assert issubclass(GameOverError, IllegalActionError)


# -------------------------------------------------------------------- clone


def test_clone_is_independent_of_the_original() -> None:
    state = _live()
    before = snapshot(state)
    copy = state.clone()
    assert snapshot(copy) == before
    rng = random.Random(3)
    while not copy.is_terminal():
        copy.apply_action(rng.choice(copy.legal_actions()))
    assert snapshot(state) == before, "playing the clone changed the original"
    # And the other way round.
    other = state.clone()
    state.apply_action(state.legal_actions()[0])
    assert snapshot(other) == before


@pytest.mark.parametrize(("rules", "seats", "options"), CONFIGURATIONS)
def test_clone_and_original_continue_identically(
    rules: str, seats: int, options: dict[str, bool]
) -> None:
    """Same decisions from a clone and its original: same dice, same game (the
    random generator is cloned too)."""
    state = new_game(describe(rules, seats, options), 8)
    rng = random.Random(8)
    for _ in range(5):
        state.apply_action(rng.choice(state.legal_actions()))
    copy = state.clone()
    first, second = random.Random(1), random.Random(1)
    while not state.is_terminal():
        state.apply_action(first.choice(state.legal_actions()))
        copy.apply_action(second.choice(copy.legal_actions()))
        assert snapshot(copy) == snapshot(state)
    assert copy.is_terminal()
    assert copy.result() == state.result()


def _play_to_end(state: State, seed: int) -> str:
    """Play ``state`` out with decisions drawn from ``seed``; its log as text."""
    rng = random.Random(seed)
    while not state.is_terminal():
        seat = state.to_move()[0]
        state.apply_action(rng.choice(state.legal_actions(seat)), seat)
    return json.dumps(state.events())


@pytest.mark.parametrize("rules", sorted(RULE_SYSTEMS))
def test_clones_sharing_a_generator_draw_what_their_own_copy_would(rules: str) -> None:
    """Clones share the random generator until one draws (copy on write). Whichever
    state draws first, and clones of clones, each plays the dice it would with a
    copy of its own: the same decisions give the very same game."""
    seats = min(RULE_SYSTEMS[rules].seats)
    state = new_game(describe(rules, seats), 21)
    rng = random.Random(21)
    for _ in range(4):
        seat = state.to_move()[0]
        state.apply_action(rng.choice(state.legal_actions(seat)), seat)
    first = state.clone()
    second = first.clone()
    third = state.clone()
    # Draw in an order unlike the cloning: a clone first, then the original.
    logs = [_play_to_end(game, 5) for game in (third, state, second, first)]
    assert all(log == logs[0] for log in logs)
    rounds = sum(event["type"] == "round_start" for event in json.loads(logs[0]))
    assert rounds > 1, "the games must reach another round, whose dice are drawn after the clone"


def test_clone_of_a_finished_game_is_finished() -> None:
    state = _finished()
    copy = state.clone()
    assert copy.is_terminal() and copy.result() == state.result()


# ----------------------------------------------------------------- forced


@pytest.mark.parametrize(("rules", "seats", "options"), CONFIGURATIONS)
def test_single_choices_are_applied_and_logged_as_forced_and_never_offered(
    rules: str, seats: int, options: dict[str, bool]
) -> None:
    forced = 0
    for seed in range(4):
        for step in steps(rules, seats, seed, options):
            state = step.state
            if not state.is_terminal():
                assert len(state.legal_actions()) >= 2, "a decision with one choice was offered"
            decisions = [e for e in step.events if e["type"] == "decision"]
            if step.action is not None:
                assert decisions[0]["action"] == step.action and not decisions[0]["forced"]
                decisions = decisions[1:]
            for decision in decisions:
                assert decision["forced"] is True
                forced += 1
    assert forced > 0


def test_forced_place_follows_a_roll_showing_one_face() -> None:
    for step in steps("classic", 4, 0):
        events = step.events
        for index, event in enumerate(events):
            if event["type"] == "decision" and event["forced"]:
                roll = events[index - 1]
                assert roll["type"] == "roll" and roll["seat"] == event["seat"]
                faces = {f for faces in roll["dice"].values() for f in faces}
                assert len(faces) == 1
                assert event["action"] == f"place {faces.pop()}"


# ---------------------------------------------------------------- observe


@pytest.mark.parametrize(("rules", "seats", "options"), CONFIGURATIONS)
def test_observations_are_json_and_show_legal_actions_only_to_the_seat_to_move(
    rules: str, seats: int, options: dict[str, bool]
) -> None:
    for step in steps(rules, seats, 6, options):
        state = step.state
        movers = state.to_move()
        for seat in range(seats):
            view = observe(state, seat)
            assert json.loads(json.dumps(view)) == view
            assert view["seat"] == seat and view["seats"] == seats
            assert view["to_move"] == list(movers)
            if seat in movers:
                assert view["legal_actions"] == list(state.legal_actions())
                assert view["legal_actions"]
            else:
                assert view["legal_actions"] == []
        if state.is_terminal():
            result = state.result()
            assert result is not None
            assert observe(state, 0)["result"] == [r.to_json() for r in result]


@pytest.mark.parametrize("seat", [-1, 4, 100, "0", None, True, 1.0])
def test_observe_rejects_a_bad_seat(seat: Any) -> None:
    state = _live()
    with pytest.raises(ValueError, match="seat"):
        observe(state, seat)


def test_observe_does_not_change_the_state() -> None:
    state = _live()
    before = snapshot(state)
    for seat in range(4):
        observe(state, seat)["casinos"].clear()
    assert snapshot(state) == before


# --------------------------------------------------------- result and log


def test_result_ranks_by_money_then_notes_and_matches_the_log() -> None:
    for seed in range(10):
        state = play_out("boulevard", 5, seed)
        result = state.result()
        assert result is not None
        assert [r.seat for r in result] == list(range(5))
        for r in result:
            better = sum((o.money, o.notes) > (r.money, r.notes) for o in result)
            assert r.rank == 1 + better
        log = game_log(state)
        assert log["events"][-1]["result"] == [r.to_json() for r in result]
        assert log["rules"] == "boulevard" and log["seats"] == 5 and log["seed"] == seed
        assert json.loads(json.dumps(log)) == log


def test_a_state_without_log_plays_the_same_game() -> None:
    description = describe("boulevard", 4)
    logged, quiet = new_game(description, 12), new_game(description, 12, log=False)
    assert quiet.events() is None
    with pytest.raises(ValueError):
        game_log(quiet)
    rng = random.Random(0)
    while not logged.is_terminal():
        action = rng.choice(logged.legal_actions())
        assert quiet.legal_actions() == logged.legal_actions()
        logged.apply_action(action)
        quiet.apply_action(action)
    assert quiet.is_terminal() and quiet.result() == logged.result()


# --------------------------------------------------------------- policies


def test_policies_only_pick_legal_actions() -> None:
    assert set(POLICIES) >= {"random", "greedy"}
    for name, policy in POLICIES.items():
        state = new_game(describe("boulevard", 3), 4)
        rng = random.Random(0)
        while not state.is_terminal():
            seat = state.to_move()[0]
            action = policy(state, seat, rng)
            assert action in state.legal_actions(seat), name
            state.apply_action(action, seat)


def test_greedy_beats_random_in_two_seat_classic() -> None:
    """Over 60 seeds, greedy plays each seat in turn against random: it must win
    clearly more games than it loses."""
    wins = losses = 0
    money = 0
    for seed in range(60):
        greedy_seat = seed % 2
        policies: list[Policy] = [random_policy, random_policy]
        policies[greedy_seat] = greedy_policy
        result = play(describe("classic", 2), seed, policies, log=False).result()
        assert result is not None
        mine, theirs = result[greedy_seat], result[1 - greedy_seat]
        wins += mine.rank < theirs.rank
        losses += mine.rank > theirs.rank
        money += mine.money - theirs.money
    assert wins >= 2 * losses, (wins, losses)
    assert wins >= 36
    assert money > 0


def test_play_needs_one_policy_per_seat() -> None:
    with pytest.raises(ValueError, match="one policy per seat"):
        play(describe("classic", 3), 1, [random_policy] * 2)


@pytest.mark.parametrize("rules", sorted(RULE_SYSTEMS))
def test_each_rule_system_asks_its_own_decision_kinds(rules: str) -> None:
    """decision() is a kind of the system's own enum, the observation shows its value,
    and every system's kinds include chance and the end of the game."""
    system = rule_system(rules)
    kinds = system.decisions
    assert issubclass(kinds, Decision) and kinds is not Decision
    assert {"chance", "none"} <= {kind.value for kind in kinds}
    seen = set()
    for seed in range(3):
        state = new_game(describe(rules, max(system.seats)), seed)
        rng = random.Random(seed)
        while True:
            decision = state.decision()
            assert isinstance(decision, kinds)
            assert state.observe(0)["decision"] == decision.value
            seen.add(decision)
            if state.is_terminal():
                break
            for seat in state.to_move():
                state.apply_action(rng.choice(state.legal_actions(seat)), seat)
    others = {kind for other in RULE_SYSTEMS.values() for kind in other.decisions} - set(kinds)
    assert not seen & others
