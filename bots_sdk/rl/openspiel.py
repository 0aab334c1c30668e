"""OpenSpiel python games, one per rule system (``pip install '.[rl]'``).

Importing this module registers ``python_vegas_classic``,
``python_vegas_boulevard``, ``python_vegas_cardgame``, ``python_vegas_sixdice``
and ``python_vegas_royale`` with ``pyspiel``::

    import pyspiel
    import bots_sdk.rl.openspiel  # registers the games

    game = pyspiel.load_game("python_vegas_classic", {"players": 3, "chips": True})
    state = game.new_initial_state()

Parameters: ``players`` (the seats) and every option of the rule system
under its own name (``python -m vegas_engine rules``).

Chance is explicit: the game runs the engine's explicit-chance mode, and
each of its chance nodes (a roll of one kind of die, one card drawn, a tile)
is an OpenSpiel chance node with the engine's outcomes and their exact
probabilities. A chance action is the outcome's place in
:func:`~bots_sdk.rl._engine.chance_outcomes_of`, a fixed list per rule
system, so ``max_chance_outcomes`` is that list's length.

Dynamics are sequential: the card game's simultaneous turns are played one
seat after another (``to_move`` order), each choice hidden from the others'
observations until all have chosen. Observations are the vectors of
:class:`~bots_sdk.rl.encoding.ObservationEncoder` and, as strings, the
observation JSON; there is no perfect-recall information state. Returns are
:func:`~bots_sdk.rl.encoding.pairwise_returns` (zero-sum, in [-1, 1]).
"""

from __future__ import annotations

import functools
import json
from typing import Any

import numpy as np
import pyspiel

from . import _engine
from ._engine import CHANCE, Playthrough, Table
from .encoding import ActionSpace, ObservationEncoder, action_space, pairwise_returns

#: Decisions per seat and round no game exceeds (the engine never asks a
#: forced one): dice and card games stay far below 40, royale's tiles add a
#: few decisions per placement.
DECISIONS_PER_SEAT_ROUND = {"royale": 100}
DEFAULT_DECISIONS_PER_SEAT_ROUND = 40


@functools.cache
def chance_actions(rules: str) -> dict[str, int]:
    """Each chance outcome of ``rules``'s games with its chance action."""
    outcomes = _engine.chance_outcomes_of(rules)
    return {outcome: action for action, outcome in enumerate(outcomes)}


def short_name(rules: str) -> str:
    return f"python_vegas_{rules}"


def _game_type(rules: str) -> pyspiel.GameType:
    seats = _engine.seat_counts(rules)
    parameters: dict[str, Any] = {"players": seats[0]}
    parameters.update({spec.name: spec.default for spec in _engine.options(rules)})
    return pyspiel.GameType(
        short_name=short_name(rules),
        long_name=f"Las Vegas ({rules})",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max(seats),
        min_num_players=min(seats),
        provides_information_state_string=False,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameters,
    )


class VegasGame(pyspiel.Game):  # type: ignore[misc]  # pyspiel has no type stubs
    """One table of a rule system; ``new_initial_state`` starts a new game."""

    rules = ""  # set by each registered subclass

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        seats = int(params.get("players", _engine.seat_counts(self.rules)[0]))
        # Options left at their defaults are not passed: the engine resolves a
        # default that does not apply to this seat count (switched off).
        given = {
            spec.name: params[spec.name]
            for spec in _engine.options(self.rules)
            if spec.name in params and params[spec.name] != spec.default
        }
        self.table: Table = _engine.table(self.rules, seats, given)
        self.actions: ActionSpace = action_space(self.table)
        self.encoder = ObservationEncoder(self.table)
        decisions = DECISIONS_PER_SEAT_ROUND.get(self.rules, DEFAULT_DECISIONS_PER_SEAT_ROUND)
        info = pyspiel.GameInfo(
            num_distinct_actions=len(self.actions),
            max_chance_outcomes=len(_engine.chance_outcomes_of(self.rules)),
            num_players=seats,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=decisions * seats * _engine.rounds(self.rules),
        )
        super().__init__(_game_type(self.rules), info, params)

    def new_initial_state(self) -> VegasState:
        return VegasState(self)

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: Any = None
    ) -> VegasObserver:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        if iig_obs_type is not None and (
            iig_obs_type.perfect_recall
            or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
            or not iig_obs_type.public_info
        ):
            raise ValueError(
                "python_vegas games observe one seat's view (public and its private "
                "information, no perfect recall): use the default observation type"
            )
        return VegasObserver(self)


class VegasState(pyspiel.State):  # type: ignore[misc]  # pyspiel has no type stubs
    """A game in progress: the seats' decisions and chance's outcomes, as the engine asks."""

    def __init__(self, game: VegasGame) -> None:
        super().__init__(game)
        self._table = game.table
        self._playthrough = Playthrough(game.table)

    @property
    def _actions(self) -> ActionSpace:
        # Looked up, not kept: a state's attributes are copied at every clone.
        return action_space(self._table)

    @property
    def _chance_outcomes(self) -> tuple[str, ...]:
        return _engine.chance_outcomes_of(self._table.rules)

    def current_player(self) -> int:
        state = self._playthrough.state
        if _engine.is_chance_node(state):
            return int(pyspiel.PlayerId.CHANCE)
        movers = _engine.to_move(state)
        return movers[0] if movers else int(pyspiel.PlayerId.TERMINAL)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [
            (self._chance_action(outcome), float(probability))
            for outcome, probability in _engine.chance_outcomes(self._playthrough.state)
        ]

    def _chance_action(self, outcome: str) -> int:
        actions = chance_actions(self._table.rules)
        if outcome not in actions:  # the index space of _engine.chance_outcomes_of is short
            raise ValueError(
                f"the engine's chance outcome {outcome!r} has no chance action in "
                f"python_vegas_{self._table.rules}: add it to bots_sdk.rl._engine"
            )
        return actions[outcome]

    def _legal_actions(self, player: int) -> list[int]:
        if player != self.current_player():
            return []  # a sequential game: only the seat to move has actions
        if player == pyspiel.PlayerId.CHANCE:
            return sorted(action for action, _ in self.chance_outcomes())
        legal = _engine.legal_actions(self._playthrough.state, player)
        return sorted(self._actions.indices(legal))

    def _apply_action(self, action: int) -> None:
        if self.is_chance_node():
            self._playthrough.apply(self._chance_outcomes[action], CHANCE)
        else:
            self._playthrough.apply(self._actions.actions[action], self.current_player())

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return self._chance_outcomes[action]
        return self._actions.actions[action]

    def is_terminal(self) -> bool:
        return _engine.is_terminal(self._playthrough.state)

    def returns(self) -> list[float]:
        ranks = _engine.ranks(self._playthrough.state)
        if ranks is None:
            return [0.0] * self._table.seats
        return pairwise_returns(ranks)

    def observation_json(self, player: int) -> dict[str, Any]:
        """``player``'s observation (at a chance node too: what it saw so far)."""
        return _engine.observe(self._playthrough.state, player)

    def __str__(self) -> str:
        # The moves fix the state exactly: chance's outcomes are among them.
        moves = " ".join(
            f"{'chance' if seat == CHANCE else seat}:{action.replace(' ', '_')}"
            for seat, action in self._playthrough.moves
        )
        return f"moves [{moves}]"


class VegasObserver:
    """OpenSpiel's observer: one seat's observation as the encoder's vector and as JSON."""

    def __init__(self, game: VegasGame) -> None:
        self.encoder = game.encoder
        self.tensor = np.zeros(self.encoder.size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: VegasState, player: int) -> None:
        self.encoder.encode(state.observation_json(player), out=self.tensor)

    def string_from(self, state: VegasState, player: int) -> str:
        return json.dumps(state.observation_json(player), sort_keys=True)


def _register(rules: str) -> type[VegasGame]:
    game_class = type(f"Vegas{rules.capitalize()}Game", (VegasGame,), {"rules": rules})
    pyspiel.register_game(_game_type(rules), game_class)
    return game_class


#: The registered game class of each rule system.
GAMES: dict[str, type[VegasGame]] = {rules: _register(rules) for rules in _engine.rule_systems()}
