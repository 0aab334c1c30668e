"""The OpenSpiel python games: OpenSpiel's random simulation test, with its
serialization checks, for every rule system."""

from __future__ import annotations

import random
from typing import Any

import pytest

pytest.importorskip("pyspiel", reason="the rl extra is not installed: pip install '.[rl]'")

import numpy as np
import pyspiel

from bots_sdk.rl import openspiel as vegas_spiel
from bots_sdk.rl.encoding import ObservationEncoder
from tests.bots_sdk.random_games import CONFIGS, config_id


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
            state.apply_action(rng.randrange(vegas_spiel.DEALS))
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
    # The same decisions give the same dice from here on: the seed came along.
    random_moves(state, random.Random(2), 1000)
    random_moves(copy, random.Random(2), 1000)
    assert state.is_terminal() and str(copy) == str(state)
    assert copy.returns() == state.returns() and sum(state.returns()) == pytest.approx(0.0)


def test_the_deal_is_the_only_chance_node_and_nobody_sees_it() -> None:
    game = load("classic", 2, {})
    state = game.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == vegas_spiel.DEALS
    assert state.observation_string(0) == "not dealt"
    assert not np.any(state.observation_tensor(0))
    state.apply_action(7)
    assert state.current_player() == 0 and '"seed"' not in state.observation_string(0)
    encoder = ObservationEncoder(game.table)
    assert len(state.observation_tensor(1)) == encoder.size == game.observation_tensor_size()


def test_game_lengths_stay_under_the_declared_bound() -> None:
    for rules, seats, options in CONFIGS:
        game = load(rules, seats, options)
        longest = 0
        for seed in range(3):
            state = game.new_initial_state()
            random_moves(state, random.Random(seed), 10_000)
            assert state.is_terminal()
            longest = max(longest, len(state.history()) - 1)  # the deal is no move
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
