"""The PettingZoo AEC environment: PettingZoo's own API and seed tests for every rule system."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

pytest.importorskip("pettingzoo", reason="the rl extra is not installed: pip install '.[rl]'")

import numpy as np
from pettingzoo.test import api_test, seed_test

from bots_sdk.rl.pettingzoo import env, raw_env
from tests.bots_sdk.random_games import CONFIGS, config_id

#: api_test warns about any dict observation of an environment whose name is
#: not on its list of PettingZoo's own classic games; the dict with its
#: "action_mask" is what those games use.
NAME_LIST_WARNINGS = ("Observation is not a NumPy array", "Observation space for each agent")


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_api_test_and_seed_test_pass(config: tuple[str, int, dict[str, Any]]) -> None:
    rules, seats, options = config
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env(rules, seats, options), num_cycles=1000)
        seed_test(lambda: env(rules, seats, options), num_cycles=1000)
    other = {str(w.message) for w in caught} - {
        str(w.message) for w in caught if str(w.message).startswith(NAME_LIST_WARNINGS)
    }
    assert not other


def play(game: Any, seed: int) -> dict[str, float]:
    """A whole game with the first legal action everywhere; the final rewards."""
    game.reset(seed=seed)
    final: dict[str, float] = {}
    for agent in game.agent_iter():
        observation, reward, termination, truncation, _ = game.last()
        if termination or truncation:
            final[agent] = reward
            game.step(None)
        else:
            game.step(int(np.flatnonzero(observation["action_mask"])[0]))
    return final


def test_a_game_ends_with_zero_sum_rewards_for_every_seat() -> None:
    final = play(env("classic", 4), seed=3)
    assert sorted(final) == [f"player_{seat}" for seat in range(4)]
    assert sum(final.values()) == pytest.approx(0.0) and max(final.values()) > 0


def test_the_seed_fixes_the_game() -> None:
    assert play(env("boulevard", 3), seed=5) == play(env("boulevard", 3), seed=5)
    seeds = {tuple(play(env("boulevard", 3), seed=seed).values()) for seed in range(6)}
    assert len(seeds) > 1


def test_simultaneous_choices_stay_hidden_until_all_have_chosen() -> None:
    games = [raw_env("cardgame", 3), raw_env("cardgame", 3)]
    for game in games:
        game.reset(seed=11)
    first = games[0].agent_selection
    legal = np.flatnonzero(games[0].observe(first)["action_mask"])
    for game, action in zip(games, legal[:2], strict=True):  # two different choices
        assert game.agent_selection == first
        game.step(int(action))
    second = games[0].agent_selection
    assert second != first and games[1].agent_selection == second
    seen = [game.observe(second)["observation"] for game in games]
    assert np.array_equal(seen[0], seen[1])  # the second seat cannot tell them apart
    own = [game.observe(first)["observation"] for game in games]
    assert not np.array_equal(own[0], own[1])  # the first seat sees its own choice
    # Only the selected agent has a mask: the first seat's is all zeros now.
    assert not games[0].observe(first)["action_mask"].any()


def test_an_illegal_action_ends_the_game_against_its_taker(
    caplog: pytest.LogCaptureFixture,
) -> None:
    game = env("classic", 2)
    game.reset(seed=1)
    agent = game.agent_selection
    observation, *_ = game.last()
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    game.step(illegal)
    assert "Illegal move made" in caplog.text
    assert all(game.terminations.values())
    assert game.rewards[agent] == -1


def test_the_raw_environment_refuses_an_illegal_action_with_the_reason() -> None:
    game = raw_env("classic", 2)
    game.reset(seed=1)
    mask = game.observe(game.agent_selection)["action_mask"]
    with pytest.raises(ValueError, match=r"cannot take 'place .' .* now; legal"):
        game.step(int(np.flatnonzero(mask == 0)[0]))


def test_bad_tables_are_refused_with_the_engines_reason() -> None:
    with pytest.raises(ValueError, match="classic takes 2-5 seats, got 7"):
        env("classic", 7)
    with pytest.raises(ValueError, match="unknown option 'turbo'"):
        env("classic", 2, {"turbo": True})


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_every_agents_observation_is_its_engine_observation_encoded(
    config: tuple[str, int, dict[str, Any]],
) -> None:
    """What each agent sees, at every step of a random game, is the encoder's
    vector of its own engine observation (no more: the leak tests of the engine
    cover that view) and the selected agent's mask is its legal actions."""
    rules, seats, options = config
    game = raw_env(rules, seats, options)
    game.reset(seed=2)
    encoder, space = game.encoder, game.actions
    rng = np.random.default_rng(2)
    while not all(game.terminations.values()):
        for seat, agent in enumerate(game.possible_agents):
            seen = game.observe(agent)
            view = game.state.observe(seat)
            assert np.array_equal(seen["observation"], encoder.encode(view))
            legal = view["legal_actions"] if agent == game.agent_selection else []
            assert np.array_equal(seen["action_mask"], space.mask(legal))
        mask = game.observe(game.agent_selection)["action_mask"]
        game.step(int(rng.choice(np.flatnonzero(mask))))


def test_calls_before_reset_are_refused_as_pettingzoos_order_enforcing_wrapper_does() -> None:
    game = env("classic", 2)
    for name in ("agents", "agent_selection", "rewards", "terminations"):
        with pytest.raises(AttributeError, match=f"{name} cannot be accessed before reset"):
            getattr(game, name)
    with pytest.raises(AttributeError, match="agent_selection cannot be accessed before reset"):
        game.last()
    with pytest.raises(AttributeError, match="private attribute '_skip_agent_selection'"):
        _ = game._skip_agent_selection
    game.reset(seed=1)
    assert game.agent_selection == "player_0" and game.agents == ["player_0", "player_1"]
    with pytest.raises(AssertionError, match="action is not in action space"):
        game.step(99)
