"""Many games of one table stepped at once, every seat played by the caller (self-play).

::

    import numpy as np
    from bots_sdk.rl.vector import VectorEnv

    games = VectorEnv(num_envs=64, rules="classic", seats=4)
    observations, info = games.reset(seed=7)
    rng = np.random.default_rng(0)
    for _ in range(1000):
        # one action per game, for the seat info["seat"][i] whose decision it is
        actions = [rng.choice(np.flatnonzero(mask)) for mask in info["action_mask"]]
        observations, rewards, terminations, truncations, info = games.step(actions)

It follows Gymnasium's vector environments (``reset``, ``step``, batched
spaces, one row per game) for a multi-seat game: row ``i`` of the
observations is the vector of the seat to move in game ``i``
(``info["seat"][i]``), seats counted from it as everywhere
(``bots_sdk.rl.encoding``); ``info["action_mask"]`` marks its legal actions.
``step`` takes one action index per game and applies it for that seat.
Rewards are ``(num_envs, seats)``, by seat number: zero until a game ends,
then :func:`~bots_sdk.rl.encoding.pairwise_returns`. A game that ends is
started again at once (Gymnasium's *same-step* autoreset):
``terminations[i]`` is True and row ``i`` is already the new game's first
decision. ``reset(seed=...)`` fixes every game, the restarted ones included.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from . import _engine
from .encoding import ObservationEncoder, Vectors, action_space, pairwise_returns

Info = dict[str, Any]
Flags = npt.NDArray[np.bool_]
Step = tuple[Vectors, npt.NDArray[np.float32], Flags, Flags, Info]


class VectorEnv:
    """``num_envs`` games of one table (rules, seats, options), stepped together."""

    metadata: dict[str, Any] = {"autoreset_mode": "same-step"}  # noqa: RUF012 (Gymnasium's)

    def __init__(
        self,
        num_envs: int,
        rules: str = "classic",
        seats: int = 2,
        options: Mapping[str, object] | None = None,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs is a whole number of games, 1 or more; got {num_envs!r}")
        self.num_envs = num_envs
        self.table = _engine.table(rules, seats, options)
        self.encoder = ObservationEncoder(self.table)
        self.actions = action_space(self.table)
        self.single_observation_space = spaces.Box(
            self.encoder.low, self.encoder.high, dtype=np.float32
        )
        self.single_action_space = spaces.Discrete(len(self.actions))
        self.observation_space = spaces.Box(
            np.tile(self.encoder.low, (num_envs, 1)),
            np.tile(self.encoder.high, (num_envs, 1)),
            dtype=np.float32,
        )
        self.action_space = spaces.MultiDiscrete([len(self.actions)] * num_envs)
        self._observations: Vectors = np.zeros((num_envs, self.encoder.size), np.float32)
        self._masks = np.zeros((num_envs, len(self.actions)), np.int8)
        self._rewards = np.zeros((num_envs, self.table.seats), np.float32)
        self._terminations = np.zeros(num_envs, bool)
        self._seats = np.zeros(num_envs, np.int64)
        self._game_seeds = np.zeros(num_envs, np.uint64)
        self._rng = np.random.default_rng()
        self.states = [_engine.new_state(self.table, 0) for _ in range(num_envs)]

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Vectors, Info]:
        """New games everywhere; ``seed`` fixes them and every game started after.
        ``options`` is Gymnasium's and unused: the games' options are the table's."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        for game in range(self.num_envs):
            self._start(game)
        self._rewards[:] = 0
        self._terminations[:] = False
        self._observe(range(self.num_envs))
        return self._observations.copy(), self._info()

    def step(self, actions: Sequence[int] | npt.NDArray[np.integer[Any]]) -> Step:
        """One decision in every game: ``actions[i]`` for the seat to move in game ``i``.

        An illegal action raises ``ValueError`` naming the game, the action and
        the legal ones; the games before it in the batch have moved then.
        """
        if len(actions) != self.num_envs:
            raise ValueError(
                f"step() takes one action per game: {self.num_envs}, got {len(actions)}"
            )
        names = self.actions.actions
        rewards, terminations = self._rewards, self._terminations
        rewards[:] = 0
        terminations[:] = False
        for game, action in enumerate(actions):
            state, seat = self.states[game], int(self._seats[game])
            index = int(action)
            legal = _engine.legal_actions(state, seat)
            if not 0 <= index < len(names) or names[index] not in legal:
                raise ValueError(
                    f"game {game}: seat {seat} cannot take action {index} "
                    f"({names[index] if 0 <= index < len(names) else 'outside the space'}) now; "
                    f"legal: {legal}"
                )
            _engine.apply(state, names[index], seat)
            if not _engine.to_move(state):
                ranks = _engine.ranks(state)
                assert ranks is not None, "a game nobody is to move in is over"
                rewards[game] = pairwise_returns(ranks)
                terminations[game] = True
                self._start(game)
            else:
                self._seats[game] = _engine.to_move(state)[0]
        self._observe(range(self.num_envs))
        observations = self._observations.copy()
        truncations = np.zeros(self.num_envs, bool)
        return observations, rewards.copy(), terminations.copy(), truncations, self._info()

    def action_masks(self) -> npt.NDArray[np.int8]:
        """The legal actions of each game's seat to move, one row per game."""
        return self._masks.copy()

    def close(self) -> None:
        """Nothing to release: the games live in memory."""

    # ------------------------------------------------------------ inside

    def _start(self, game: int) -> None:
        seed = int(self._rng.integers(_engine.MAX_SEED))
        self._game_seeds[game] = seed
        state = _engine.new_state(self.table, seed)
        self.states[game] = state
        self._seats[game] = _engine.to_move(state)[0]

    def _observe(self, games: range) -> None:
        seats = self._seats.tolist()
        views = [(self.states[game], seats[game]) for game in games]
        self.encoder.encode_states(views, self._observations)
        masks, space = self._masks, self.actions
        for game, (state, seat) in enumerate(views):
            masks[game] = space.shared_mask(_engine.legal_actions(state, seat))

    def _info(self) -> Info:
        return {
            "seat": self._seats.copy(),
            "action_mask": self._masks.copy(),
            "game_seed": self._game_seeds.copy(),
        }


__all__ = ["VectorEnv"]
