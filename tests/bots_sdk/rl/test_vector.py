"""The vector environment: many self-play games stepped at once, restarted as they end."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("gymnasium", reason="the rl extra is not installed: pip install '.[rl]'")

import numpy as np

from bots_sdk.rl import _engine
from bots_sdk.rl.encoding import ObservationEncoder, action_space, pairwise_returns
from bots_sdk.rl.vector import VectorEnv
from tests.bots_sdk.random_games import CONFIGS, config_id


def random_steps(games: VectorEnv, seed: int, steps: int) -> list[tuple[Any, ...]]:
    """Random legal actions from ``seed``: every step's outputs, copied."""
    rng = np.random.default_rng(1000 + seed)
    observations, info = games.reset(seed=seed)
    trace: list[tuple[Any, ...]] = [(observations, info["seat"], info["action_mask"])]
    for _ in range(steps):
        actions = [int(rng.choice(np.flatnonzero(mask))) for mask in info["action_mask"]]
        observations, rewards, terminations, _, info = games.step(actions)
        trace.append((observations, rewards, terminations, info["seat"], info["action_mask"]))
    return trace


def same(first: list[tuple[Any, ...]], second: list[tuple[Any, ...]]) -> bool:
    return all(
        all(np.array_equal(a, b) for a, b in zip(x, y, strict=True))
        for x, y in zip(first, second, strict=True)
    )


def test_a_seed_fixes_every_game_and_the_games_restarted_after() -> None:
    games = VectorEnv(4, "classic", 3)
    first = random_steps(games, seed=5, steps=150)  # > 1 game each: restarts included
    assert same(first, random_steps(VectorEnv(4, "classic", 3), seed=5, steps=150))
    assert not same(first, random_steps(games, seed=6, steps=150))
    # The games differ from one another: each has its own seed.
    assert len({row.tobytes() for row in first[0][0]}) > 1


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_rows_are_each_games_seat_to_move_and_games_restart_when_they_end(
    config: tuple[str, int, dict[str, Any]],
) -> None:
    """Every row is the encoder's vector of the seat to move and its legal mask, checked
    against the engine; a game that ends pays zero-sum rewards and starts again."""
    rules, seats, options = config
    games = VectorEnv(3, rules, seats, options)
    table = _engine.table(rules, seats, options)
    encoder, space = ObservationEncoder(table), action_space(table)
    rng = np.random.default_rng(0)
    observations, info = games.reset(seed=1)
    ended = 0
    for _ in range(400):
        for game, state in enumerate(games.states):
            seat = int(info["seat"][game])
            assert seat in _engine.to_move(state)
            assert np.array_equal(observations[game], encoder.encode(_engine.observe(state, seat)))
            legal = _engine.legal_actions(state, seat)
            assert np.array_equal(info["action_mask"][game], space.mask(legal))
        actions = [int(rng.choice(np.flatnonzero(mask))) for mask in info["action_mask"]]
        # The same moves on copies: which games end, and their returns.
        expected = []
        for game, state in enumerate(games.states):
            copy = state.clone()
            copy.apply_action(space.actions[actions[game]], int(info["seat"][game]))
            ranks = _engine.ranks(copy)
            expected.append(None if ranks is None else pairwise_returns(ranks))
        observations, rewards, terminations, truncations, info = games.step(actions)
        assert rewards.shape == (3, seats) and not truncations.any()
        for game, returns in enumerate(expected):
            assert terminations[game] == (returns is not None)
            if returns is None:
                assert not rewards[game].any()
            else:
                ended += 1
                assert rewards[game].tolist() == pytest.approx(returns)
                assert games.states[game].to_move()  # already the next game
    assert ended >= 3
    assert games.observation_space.contains(observations)
    assert games.action_space.contains(np.zeros(3, dtype=np.int64))


def test_an_illegal_action_is_refused_with_the_game_and_the_legal_ones() -> None:
    games = VectorEnv(2, "classic", 2)
    _, info = games.reset(seed=3)
    illegal = int(np.flatnonzero(info["action_mask"][1] == 0)[0])
    legal = int(np.flatnonzero(info["action_mask"][0])[0])
    with pytest.raises(ValueError, match=r"game 1: seat \d cannot take action \d \(place \d\)"):
        games.step([legal, illegal])
    with pytest.raises(ValueError, match="one action per game: 2, got 1"):
        games.step([legal])
    with pytest.raises(ValueError, match="num_envs is a whole number of games"):
        VectorEnv(0)
