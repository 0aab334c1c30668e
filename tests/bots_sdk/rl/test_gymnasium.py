"""The Gymnasium environment: one seat against house bots, checked by Gymnasium's env checker."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

pytest.importorskip("gymnasium", reason="the rl extra is not installed: pip install '.[rl]'")

import gymnasium
import numpy as np
from gymnasium.utils.env_checker import check_env

from bots_sdk import Bot
from bots_sdk.house.random_bot import RandomBot
from bots_sdk.rl.gymnasium import VegasEnv
from tests.bots_sdk.random_games import CONFIGS, config_id


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_check_env_passes_without_warnings(config: tuple[str, int, dict[str, Any]]) -> None:
    rules, seats, options = config
    made = gymnasium.make(
        "vegas/Vegas-v0",
        rules=rules,
        seats=seats,
        options=options,
        opponents="greedy",
        seat=None,
        render_mode="ansi",
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(made.unwrapped)
    assert not [str(w.message) for w in caught]


def episode(env: VegasEnv, seed: int) -> tuple[list[int], float]:
    """The first legal action at every step: the actions taken and the final reward."""
    _, info = env.reset(seed=seed)
    taken, reward, done = [], 0.0, False
    while not done:
        assert np.array_equal(info["action_mask"], env.action_masks())
        action = int(np.flatnonzero(info["action_mask"])[0])
        taken.append(action)
        _, reward, done, truncated, info = env.step(action)
        assert not truncated
    return taken, float(reward)


def test_an_episode_is_one_game_replayed_by_its_seed() -> None:
    env = VegasEnv("classic", 3, opponents=["greedy", "gambler"], seat=None)
    first = episode(env, seed=4)
    assert first == episode(env, seed=4)
    assert len(first[0]) >= 8 * 4 // 2  # the agent placed its dice in every round
    assert -1.0 <= first[1] <= 1.0
    results = {episode(env, seed)[1] for seed in range(8)}
    assert len(results) > 1


def test_greedy_opponents_beat_an_agent_taking_the_first_legal_action() -> None:
    env = VegasEnv("classic", 2, opponents="greedy", seat=0)
    rewards = [episode(env, seed)[1] for seed in range(20)]
    assert np.mean(rewards) < -0.3


def test_an_illegal_action_ends_the_episode_with_minus_one() -> None:
    env = VegasEnv("classic", 2)
    _, info = env.reset(seed=1)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert (reward, terminated) == (-1.0, True)
    assert info["illegal_action"] == env.actions.actions[illegal]


def test_opponents_may_be_any_bot_objects() -> None:
    class Last(Bot):
        def __init__(self) -> None:
            super().__init__()
            self.games = 0

        def on_game_start(self, seat: int, game: Any) -> None:
            self.games += 1

        def act(self, observation: Any) -> str:
            legal: list[str] = observation["legal_actions"]
            return legal[-1]

    bot = Last()
    env = VegasEnv("cardgame", 3, opponents=bot, seat=1)  # one object in both seats
    episode(env, seed=2)
    assert bot.games == 2 and env.seat == 1


def test_bad_arguments_are_refused_with_the_reason() -> None:
    with pytest.raises(ValueError, match="unknown house bot 'champion'"):
        VegasEnv("classic", 2, opponents="champion")
    with pytest.raises(ValueError, match="3 seats take 2 opponents"):
        VegasEnv("classic", 3, opponents=["random", "greedy", "random"])
    with pytest.raises(ValueError, match=r"seat is 0\.\.1"):
        VegasEnv("classic", 2, seat=2)


def test_the_random_bots_short_cut_draws_what_the_bot_itself_would() -> None:
    """`random` opponents are asked for an action from the legal ones directly; a
    subclass goes the whole way (observation, handle_request): the same games."""

    class SlowRandom(RandomBot):
        pass

    for seed in range(3):
        fast = VegasEnv("boulevard", 3, opponents="random", seat=1)
        slow = VegasEnv("boulevard", 3, opponents=[SlowRandom(), SlowRandom()], seat=1)
        assert episode(fast, seed) == episode(slow, seed)
        assert fast.state.observe(0) == slow.state.observe(0)
