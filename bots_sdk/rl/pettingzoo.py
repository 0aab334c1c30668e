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
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

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
    """The environment, checked as PettingZoo's classic games are: an illegal
    action ends the game with -1 for the seat that took it, an action outside
    the space fails an assertion, and the order of calls is enforced."""
    return CheckedEnv(raw_env(rules, seats, options, render_mode), illegal_reward=-1)


#: What OrderEnforcingWrapper refuses to show before the first reset.
_NEEDS_RESET = frozenset(
    ("rewards", "terminations", "truncations", "infos", "agent_selection", "num_agents", "agents")
)


class CheckedEnv(OrderEnforcingWrapper[AgentID, Observation, int]):  # type: ignore[misc]
    """PettingZoo's three checks of its classic games in one wrapper.

    It behaves as ``OrderEnforcingWrapper(AssertOutOfBoundsWrapper(
    TerminateIllegalWrapper(game, illegal_reward)))``: calls in order, an
    action inside the space, an illegal action ending the game with
    ``illegal_reward`` for its taker (and a warning). Stacked, those three
    forward every attribute through three ``__getattr__`` calls and cost
    several times the engine's own step; here each check is made once, and
    legality is asked of the engine instead of a kept mask.
    """

    def __init__(self, game: raw_env, illegal_reward: float) -> None:
        super().__init__(game)
        self.game = game
        self._illegal_reward = float(illegal_reward)
        self._actions = len(game.actions)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") and name != "_cumulative_rewards":
            raise AttributeError(f"accessing private attribute '{name}' is prohibited")
        if not self._has_reset and name in _NEEDS_RESET:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self.game, name)

    # The attributes a loop reads every step, without going through __getattr__.
    @property
    def agents(self) -> list[AgentID]:
        if not self._has_reset:
            raise AttributeError("agents cannot be accessed before reset")
        return self.game.agents

    @property
    def agent_selection(self) -> AgentID:
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.game.agent_selection

    def observe(self, agent: AgentID) -> Observation | None:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self.game.observe(agent)

    def last(self, observe: bool = True) -> tuple[Observation | None, float, bool, bool, Any]:
        game, agent = self.game, self.agent_selection  # before reset: AttributeError
        return (
            game.observe(agent) if observe else None,
            game._cumulative_rewards[agent],
            game.terminations[agent],
            game.truncations[agent],
            game.infos[agent],
        )

    def step(self, action: int | None) -> None:
        game = self.game
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        self._has_updated = True
        if not game.agents:
            EnvLogger.warn_step_after_terminated_truncated()
            return
        agent = game.agent_selection
        if game.terminations[agent] or game.truncations[agent]:
            assert action is None or 0 <= action < self._actions, "action is not in action space"
            game.step(action)
            return
        assert action is not None and 0 <= action < self._actions, "action is not in action space"
        if game.is_legal(action):
            game.step(action)
            return
        EnvLogger.warn_on_illegal_move()
        game._cumulative_rewards[agent] = 0
        game.terminations = dict.fromkeys(game.agents, True)
        game.truncations = dict.fromkeys(game.agents, True)
        game.rewards = dict.fromkeys(game.agents, 0.0)
        game.rewards[agent] = self._illegal_reward
        game._accumulate_rewards()
        game._deads_step_first()


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
        self._seat_of = {agent: seat for seat, agent in enumerate(self.possible_agents)}
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
        seat = self._seat_of[agent]
        legal = self._legal(seat) if agent == self.agent_selection else ()
        vector = self.encoder.encode_state(self.state, seat)
        return {"observation": vector, "action_mask": self.actions.mask(legal)}

    def mask(self, legal: Any) -> Mask:
        return self.actions.mask(legal)

    def is_legal(self, action: int) -> bool:
        """Whether the selected agent may take ``action`` now."""
        seat = self._seat_of[self.agent_selection]
        return self.actions.actions[int(action)] in self._legal(seat)

    def _legal(self, seat: int) -> tuple[str, ...]:
        if self.terminations[self.possible_agents[seat]]:
            return ()
        return _engine.legal_actions(self.state, seat)

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to move: step() needs an action index, got None")
        seat = self._seat_of[agent]
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
        seat = self._seat_of[self.agent_selection]
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


__all__ = ["CheckedEnv", "Vector", "env", "raw_env"]
