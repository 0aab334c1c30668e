"""A Gymnasium environment: one seat against house bots (``pip install '.[rl]'``).

::

    from bots_sdk.rl.gymnasium import VegasEnv

    env = VegasEnv(rules="classic", seats=2, opponents="random")
    observation, info = env.reset(seed=7)
    done = False
    while not done:
        legal = info["action_mask"].nonzero()[0]
        observation, reward, done, truncated, info = env.step(int(legal[0]))

The agent plays one seat (``seat``, or a random seat each episode when
None); the other seats are house bots (``random``, ``greedy``, ``gambler``,
``montecarlo``) or any :class:`bots_sdk.Bot` objects, run in-process
through the same calls the protocol makes. Observations are the vectors of
:class:`~bots_sdk.rl.encoding.ObservationEncoder`; the legal actions are
``info["action_mask"]`` (and :meth:`VegasEnv.action_masks`, the name
sb3-contrib's MaskablePPO looks for). The reward comes at the end:
:func:`~bots_sdk.rl.encoding.pairwise_returns` for the agent's seat. An
illegal action ends the episode with -1 (``info["illegal_action"]``).

``reset(seed=...)`` fixes the game and the opponents' bot seeds, so an
episode replays exactly with the same actions (``montecarlo`` stops on its
clock, and is the one exception).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from bots_sdk.bot import Bot
from bots_sdk.house.random_bot import RandomBot
from bots_sdk.protocol import Limits

from . import _engine
from .encoding import Mask, ObservationEncoder, Vector, action_space, pairwise_returns

#: The house bots that can sit at the table, by name.
HOUSE_BOTS = ("random", "greedy", "gambler", "montecarlo", "ismcts")

Opponent = str | Bot


def house_bot(name: str) -> Bot:
    """A new instance of the house bot ``name``, imported from ``bots_sdk/house/``."""
    if name not in HOUSE_BOTS:
        raise ValueError(f"unknown house bot {name!r}: one of {', '.join(HOUSE_BOTS)}")
    module = importlib.import_module(f"bots_sdk.house.{name}_bot")
    (bot_class,) = (
        value
        for value in vars(module).values()
        if isinstance(value, type) and issubclass(value, Bot) and value.name == name
    )
    return bot_class()


class VegasEnv(gymnasium.Env[Vector, np.int64]):
    """One seat of a table against bots; the episode is one game."""

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 4}  # noqa: RUF012 (Gymnasium's)

    def __init__(
        self,
        rules: str = "classic",
        seats: int = 2,
        options: Mapping[str, object] | None = None,
        opponents: Opponent | Sequence[Opponent] = "random",
        seat: int | None = 0,
        render_mode: str | None = None,
        limits: Limits | None = None,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode is one of {self.metadata['render_modes']} or None")
        self.table = _engine.table(rules, seats, options)
        if seat is not None and not 0 <= seat < self.table.seats:
            raise ValueError(f"seat is 0..{self.table.seats - 1} or None (random), got {seat}")
        self.render_mode = render_mode
        self.fixed_seat = seat
        self.limits = limits or Limits()
        chosen = [opponents] if isinstance(opponents, str | Bot) else list(opponents)
        if len(chosen) == 1:
            chosen = chosen * (self.table.seats - 1)
        if len(chosen) != self.table.seats - 1:
            raise ValueError(
                f"{self.table.seats} seats take {self.table.seats - 1} opponents "
                f"(or one for all), got {len(chosen)}"
            )
        # A name gives each seat its own instance; a Bot object is used as it is.
        self.opponents = [house_bot(o) if isinstance(o, str) else o for o in chosen]
        self.encoder = ObservationEncoder(self.table)
        self.actions = action_space(self.table)
        self.observation_space = spaces.Box(self.encoder.low, self.encoder.high, dtype=np.float32)
        self.action_space = spaces.Discrete(len(self.actions))
        self.seat = seat if seat is not None else 0
        self.state = _engine.new_state(self.table, 0)
        self._bots: dict[int, Bot] = {}

    # ------------------------------------------------------------ the API

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Vector, dict[str, Any]]:
        """A new game. ``options={"seat": s}`` seats the agent at ``s`` for this episode."""
        super().reset(seed=seed)
        seat = (options or {}).get("seat", self.fixed_seat)
        if seat is None:
            seat = int(self.np_random.integers(self.table.seats))
        self.seat = int(seat)
        self.state = _engine.new_state(self.table, self._draw_seed())
        others = [s for s in range(self.table.seats) if s != self.seat]
        self._bots = dict(zip(others, self.opponents, strict=True))
        game = {
            "rules": self.table.rules,
            "options": dict(self.table.options),
            "seats": self.table.seats,
        }
        for other, bot in self._bots.items():
            bot.handle_new_game(other, game, self._draw_seed(), self.limits.bank_ms)
        self._play_opponents()
        return self._observation(), self._info()

    def step(
        self, action: int | np.integer[Any]
    ) -> tuple[Vector, float, bool, bool, dict[str, Any]]:
        text = self.actions.actions[int(action)]
        if text not in _engine.legal_actions(self.state, self.seat):
            info = {**self._info(), "illegal_action": text}
            return self._observation(), -1.0, True, False, info
        _engine.apply(self.state, text, self.seat)
        self._play_opponents()
        ranks = _engine.ranks(self.state)
        reward = 0.0 if ranks is None else pairwise_returns(ranks)[self.seat]
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, ranks is not None, False, self._info()

    def action_masks(self) -> Mask:
        """The legal actions of the agent now (all zeros once the game is over)."""
        return self.actions.mask(self._legal())

    def render(self) -> str | None:
        """``ansi``: the agent's view as text; ``human``: printed instead."""
        if self.render_mode is None:
            return None
        observation = _engine.observe(self.state, self.seat)
        text = (
            f"{self.table.rules} round {observation['round']}/{observation['rounds']}, "
            f"seat {self.seat}, money {observation['money']}, "
            f"legal {observation['legal_actions']}"
        )
        if self.render_mode == "human":
            print(text)
            return None
        return text

    # ------------------------------------------------------------ inside

    def _draw_seed(self) -> int:
        return int(self.np_random.integers(_engine.MAX_SEED))

    def _legal(self) -> tuple[str, ...]:
        if self.seat not in _engine.to_move(self.state):
            return ()
        return _engine.legal_actions(self.state, self.seat)

    def _play_opponents(self) -> None:
        """Let the bots move until the agent must decide or the game is over."""
        state = self.state
        while (movers := _engine.to_move(state)) and self.seat not in movers:
            for mover in movers:
                bot = self._bots[mover]
                if type(bot) is RandomBot:
                    # It reads nothing but the legal actions: the same draw from its
                    # generator, without building the observation it would ignore.
                    action = bot.rng.choice(_engine.legal_actions(state, mover))
                else:
                    observation = _engine.observe(state, mover)
                    decision_ms = self.limits.decision_ms
                    action = bot.handle_request(observation, decision_ms, self.limits.bank_ms)
                _engine.apply(state, action, mover)
        if not movers:
            for other, bot in self._bots.items():
                bot.on_game_end(_engine.observe(self.state, other)["result"])

    def _observation(self) -> Vector:
        return self.encoder.encode_state(self.state, self.seat)

    def _info(self) -> dict[str, Any]:
        legal = self._legal()
        return {"action_mask": self.actions.mask(legal), "seat": self.seat, "legal_actions": legal}


gymnasium.register(id="vegas/Vegas-v0", entry_point="bots_sdk.rl.gymnasium:VegasEnv")
