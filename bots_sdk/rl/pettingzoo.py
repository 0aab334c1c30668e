"""A PettingZoo AEC environment for every rule system (``pip install '.[rl]'``).

::

    from bots_sdk.rl.pettingzoo import env

    game = env(rules="classic", seats=2)
    game.reset(seed=7)
    for agent in game.agent_iter():
        observation, reward, termination, truncation, info = game.last()
        action = None
        if not (termination or truncation):
            action = game.action_space(agent).sample(observation["action_mask"])
        game.step(action)

Agents are ``player_0`` .. ``player_{n-1}`` (the seats). Each observation is
``{"observation": vector, "action_mask": mask}`` (``bots_sdk.rl.encoding``,
``docs/rl.md``); the mask is all zeros for an agent that is not selected.
Rewards come at the end only: :func:`~bots_sdk.rl.encoding.pairwise_returns`
(zero-sum, +1 for winning outright). ``reset(seed=...)`` fixes every die and
draw of the game; without a seed, the next game's seed comes from the
generator of the last seeded reset.

The card game's simultaneous turns are played one seat after another in
``to_move`` order: each choice stays hidden from the others' observations
until all have chosen, exactly as the engine keeps it.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from . import _engine
from .encoding import Mask, ObservationEncoder, Vector, action_space, pairwise_returns

AgentID = str
Observation = dict[str, Any]


def env(
    rules: str = "classic",
    seats: int = 2,
    options: Mapping[str, object] | None = None,
    render_mode: str | None = None,
) -> AECEnv[AgentID, Observation, int]:
    """The environment, wrapped as PettingZoo's classic games are: an illegal
    action ends the game with -1 for the seat that took it, and the order of
    calls is enforced."""
    game: AECEnv[AgentID, Observation, int] = raw_env(rules, seats, options, render_mode)
    game = wrappers.TerminateIllegalWrapper(game, illegal_reward=-1)
    game = wrappers.AssertOutOfBoundsWrapper(game)
    return wrappers.OrderEnforcingWrapper(game)


# PettingZoo's name for the unwrapped class; pettingzoo ships no types (a class of Any).
class raw_env(AECEnv[AgentID, Observation, int]):  # type: ignore[misc]
    """One table of a rule system as an AEC game."""

    metadata: dict[str, Any] = {  # noqa: RUF012 (PettingZoo reads it from the class)
        "render_modes": ["human", "ansi"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        rules: str = "classic",
        seats: int = 2,
        options: Mapping[str, object] | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode is one of {self.metadata['render_modes']} or None")
        self.table = _engine.table(rules, seats, options)
        self.metadata = {**self.metadata, "name": f"vegas_{self.table.rules}_v0"}
        self.render_mode = render_mode
        self.encoder = ObservationEncoder(self.table)
        self.actions = action_space(self.table)
        self.possible_agents = [f"player_{seat}" for seat in range(self.table.seats)]
        observation = spaces.Dict(
            {
                "observation": spaces.Box(self.encoder.low, self.encoder.high, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (len(self.actions),), dtype=np.int8),
            }
        )
        self._observation_spaces = {
            agent: observation if i == 0 else _copy_space(observation)
            for i, agent in enumerate(self.possible_agents)
        }
        self._action_spaces = {
            agent: spaces.Discrete(len(self.actions)) for agent in self.possible_agents
        }
        self._seeds = random.Random()
        self._reset_state(self._seeds.getrandbits(63))

    def observation_space(self, agent: AgentID) -> spaces.Space[Any]:
        return self._observation_spaces[agent]

    def action_space(self, agent: AgentID) -> spaces.Space[Any]:
        return self._action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game; ``seed`` fixes it. ``options`` is PettingZoo's and unused:
        the game's options are the environment's."""
        if seed is not None:
            self._seeds = random.Random(seed)
        self._reset_state(self._seeds.getrandbits(63))

    def _reset_state(self, game_seed: int) -> None:
        self.game_seed = game_seed
        self.state = _engine.new_state(self.table, game_seed)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[AgentID, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = self._agent(_engine.to_move(self.state)[0])

    def observe(self, agent: AgentID) -> Observation:
        seat = self.possible_agents.index(agent)
        observation = _engine.observe(self.state, seat)
        legal = observation["legal_actions"] if agent == self.agent_selection else ()
        return {"observation": self.encoder.encode(observation), "action_mask": self.mask(legal)}

    def mask(self, legal: Any) -> Mask:
        return self.actions.mask(legal)

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to move: step() needs an action index, got None")
        seat = self.possible_agents.index(agent)
        text = self.actions.actions[int(action)]
        legal = _engine.legal_actions(self.state, seat)
        if text not in legal:
            raise ValueError(f"{agent} cannot take {text!r} (index {action}) now; legal: {legal}")
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        _engine.apply(self.state, text, seat)
        ranks = _engine.ranks(self.state)
        if ranks is None:
            self.agent_selection = self._agent(_engine.to_move(self.state)[0])
        else:
            for other, reward in zip(self.possible_agents, pairwise_returns(ranks), strict=True):
                self.rewards[other] = reward
            self.terminations = dict.fromkeys(self.agents, True)
            self._accumulate_rewards()
            self.agent_selection = self._agent((seat + 1) % self.table.seats)
        if self.render_mode == "human":
            self.render()

    def _agent(self, seat: int) -> AgentID:
        return self.possible_agents[seat]

    def render(self) -> str | None:
        """``ansi``: the selected seat's view as text; ``human``: printed instead."""
        if self.render_mode is None:
            return None
        seat = self.possible_agents.index(self.agent_selection)
        observation = _engine.observe(self.state, seat)
        text = (
            f"{self.table.rules} round {observation['round']}/{observation['rounds']}, "
            f"to move {observation['to_move']} ({observation['decision']}), "
            f"money {observation['money']}; {self.agent_selection} may "
            f"{', '.join(observation['legal_actions']) or 'do nothing'}"
        )
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release: the game lives in memory."""


def _copy_space(space: spaces.Dict) -> spaces.Dict:
    """An equal space of its own: seeding one agent's space leaves the others'."""
    return spaces.Dict({name: _box(box) for name, box in space.spaces.items()})


def _box(box: spaces.Space[Any]) -> spaces.Box:
    assert isinstance(box, spaces.Box)
    return spaces.Box(box.low.copy(), box.high.copy(), box.shape, box.dtype)


__all__ = ["Vector", "env", "raw_env"]
