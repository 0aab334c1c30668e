"""The OpenSpiel python games: OpenSpiel's random simulation test, with its
serialization checks, for every rule system, and their explicit chance nodes."""

from __future__ import annotations

import json
import random
from fractions import Fraction
from typing import Any

import pytest

pytest.importorskip("pyspiel", reason="the rl extra is not installed: pip install '.[rl]'")

import pyspiel

from bots_sdk.rl import _engine
from bots_sdk.rl import openspiel as vegas_spiel
from bots_sdk.rl.encoding import ObservationEncoder
from tests.bots_sdk.random_games import CONFIGS, config_id
from vegas_engine import describe, new_game

pytestmark = pytest.mark.slow


def load(rules: str, seats: int, options: dict[str, Any]) -> Any:
    return pyspiel.load_game(vegas_spiel.short_name(rules), {"players": seats, **options})


def test_every_rule_system_is_registered() -> None:
    names = {game.short_name for game in pyspiel.registered_games()}
    assert {f"python_vegas_{rules}" for rules in vegas_spiel.GAMES} <= names
    assert set(vegas_spiel.GAMES) == {"classic", "boulevard", "cardgame", "sixdice", "royale"}


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_random_sim_test_with_serialization_passes(config: tuple[str, int, dict[str, Any]]) -> None:
    game = load(*config)
    assert game.num_players() == config[1]
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def random_moves(state: Any, rng: random.Random, moves: int) -> None:
    for _ in range(moves):
        if state.is_terminal():
            return
        if state.is_chance_node():
            actions, chances = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(actions, chances)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))


def test_a_deserialized_state_plays_on_exactly_like_the_original() -> None:
    game = load("boulevard", 3, {})
    state = game.new_initial_state()
    random_moves(state, random.Random(1), 40)
    text = pyspiel.serialize_game_and_state(game, state)
    copy_game, copy = pyspiel.deserialize_game_and_state(text)
    assert str(copy_game) == str(game) and str(copy) == str(state)
    for seat in range(3):
        assert copy.observation_string(seat) == state.observation_string(seat)
    # The same decisions and outcomes give the same game from here on.
    random_moves(state, random.Random(2), 1000)
    random_moves(copy, random.Random(2), 1000)
    assert state.is_terminal() and str(copy) == str(state)
    assert copy.returns() == state.returns() and sum(state.returns()) == pytest.approx(0.0)


def test_chance_nodes_are_the_engines_with_their_exact_probabilities() -> None:
    game = load("classic", 3, {"neutral_dice": True})
    state = game.new_initial_state()
    engine = new_game(describe("classic", 3, {"neutral_dice": True}), 0, chance="explicit")
    rng = random.Random(3)
    chance_nodes = 0
    while not state.is_terminal():
        assert state.is_chance_node() == engine.is_chance_node()
        if state.is_chance_node():
            chance_nodes += 1
            outcomes = state.chance_outcomes()
            named = [(state.action_to_string(action), chance) for action, chance in outcomes]
            assert named == [(text, float(chance)) for text, chance in engine.chance_outcomes()]
            assert sorted(state.legal_actions()) == sorted(action for action, _ in outcomes)
            action = rng.choice(outcomes)[0]
            engine.apply_chance(state.action_to_string(action))
        else:
            seat = state.current_player()
            assert engine.to_move()[0] == seat
            action = rng.choice(state.legal_actions())
            engine.apply_action(state.action_to_string(action), seat)
        state.apply_action(action)
    assert engine.is_terminal() and chance_nodes > 4 * (6 + 3 * 8)  # notes, rolls, neutral


def test_a_game_starts_at_a_chance_node_the_notes_of_casino_1() -> None:
    game = load("classic", 2, {})
    state = game.new_initial_state()
    assert state.is_chance_node() and state.current_player() == pyspiel.PlayerId.CHANCE
    # The first note of casino 1: every value with its share of the 54 notes.
    outcomes = {state.action_to_string(action): p for action, p in state.chance_outcomes()}
    assert outcomes["note 10000"] == pytest.approx(6 / 54) and sum(
        outcomes.values()
    ) == pytest.approx(1)
    while state.action_to_string(state.chance_outcomes()[0][0]).startswith("note"):
        state.apply_action(state.chance_outcomes()[0][0])
    # Then seat 0's roll: 1287 outcomes of eight dice, faces ascending.
    assert len(state.chance_outcomes()) == 1287
    state.apply_action(vegas_spiel.chance_actions("classic")["die 1 2 3 4 5 6 6 6"])
    assert state.current_player() == 0 and len(state.legal_actions()) == 6
    assert json.loads(state.observation_string(1))["roll"] == {
        "dice": {"die": [1, 2, 3, 4, 5, 6, 6, 6]},
        "seat": 0,
    }
    assert '"seed"' not in state.observation_string(0)
    encoder = ObservationEncoder(game.table)
    assert len(state.observation_tensor(1)) == encoder.size == game.observation_tensor_size()


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_every_chance_outcome_has_its_own_chance_action(
    config: tuple[str, int, dict[str, Any]],
) -> None:
    rules, seats, options = config
    space = _engine.chance_outcomes_of(rules)
    assert len(set(space)) == len(space) == load(*config).max_chance_outcomes()
    listed: set[str] = set()
    for seed in range(3):
        state = new_game(describe(rules, seats, options), seed, log=False, chance="explicit")
        rng = random.Random(seed)
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                assert sum(chance for _, chance in outcomes) == Fraction(1)
                listed.update(outcome for outcome, _ in outcomes)
                state.apply_chance(rng.choice(outcomes)[0])
            else:
                seat = state.to_move()[0]
                state.apply_action(rng.choice(state.legal_actions(seat)), seat)
    assert listed <= set(space), sorted(listed - set(space))[:5]


def test_game_lengths_stay_under_the_declared_bound() -> None:
    for rules, seats, options in CONFIGS:
        game = load(rules, seats, options)
        longest = 0
        for seed in range(3):
            state = game.new_initial_state()
            random_moves(state, random.Random(seed), 10_000)
            assert state.is_terminal()
            decisions = [move for move in state.full_history() if move.player >= 0]
            longest = max(longest, len(decisions))
        assert longest <= game.max_game_length() / 3, (rules, longest)


def test_openspiels_rl_environment_plays_a_game() -> None:
    from open_spiel.python import rl_environment

    environment = rl_environment.Environment(load("cardgame", 3, {"chips": True}))
    step = environment.reset()
    rng = random.Random(0)
    while not step.last():
        player = step.observations["current_player"]
        step = environment.step([rng.choice(step.observations["legal_actions"][player])])
    assert sum(step.rewards) == pytest.approx(0.0) and max(step.rewards) > 0


def test_only_one_seats_view_is_offered() -> None:
    game = load("classic", 2, {})
    with pytest.raises(ValueError, match="no perfect recall"):
        game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
