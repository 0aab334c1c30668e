"""The Las Vegas engine: exact, deterministic rule systems of the Las Vegas games.

Typical use::

    from vegas_engine import describe, new_game, observe

    game = describe("classic", seats=4)   # names a game: what a ladder plays
    state = new_game(game, seed=7)        # deals one game of it
    while not state.is_terminal():
        seat = state.to_move()[0]
        state.apply_action(state.legal_actions(seat)[0], seat)
    print(state.result())

Chance, made explicit (OpenSpiel's chance nodes; by default the seed's tape
rolls and draws)::

    state = new_game(game, seed=7, chance="explicit")
    state.chance_outcomes()            # [("note 10000", Fraction(1, 9)), ...]
    state.apply_chance("note 90000")

A position (as a FEN): ``state.position()`` is the whole state as JSON, and
``from_position(game, position, seed)`` goes on from it. ``docs/engine.md``
has the details.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import position as positions
from .chance import ChanceMode
from .description import GameDescription, OptionValue, check_seed
from .errors import (
    CorruptLogError,
    GameOverError,
    IllegalActionError,
    InvalidDescriptionError,
    InvalidPositionError,
    LogError,
    ReplayMismatchError,
    VegasError,
)
from .registry import RULE_SYSTEMS, describe, rule_system, validate
from .rules.cardgame import CardDecision
from .rules.dice import DiceDecision
from .rules.royale import RoyaleDecision
from .state import Action, Decision, JsonDict, LogMode, MoveRecord, SeatResult, State
from .system import OptionSpec, RuleSystem
from .version import __version__


def new_game(
    game: GameDescription,
    seed: int,
    *,
    log: LogMode | bool | str = True,
    chance: ChanceMode | str = "tape",
) -> State:
    """Deal one game of ``game`` with ``seed``, keeping its log as ``log`` says.

    The seed fixes every roll and draw: the same game, seed and decisions give
    the same game, bit for bit. Players are never told it. With
    ``chance="explicit"`` the state stops at every chance node instead
    (:mod:`vegas_engine.chance`); the seed still deals what the tape would.
    ``log`` is a :class:`LogMode`: ``True`` (``"events"``) keeps every event,
    ``"moves"`` only the moves (the events are made from them on demand by
    :func:`vegas_engine.log.expand`), ``False`` (``"none"``) nothing.
    """
    if not isinstance(game, GameDescription):
        raise TypeError(
            f"new_game(game, seed) takes a description from describe(rules, seats, options), "
            f"got {game!r}"
        )
    game = validate(game)
    mode = LogMode.of(log)
    state = rule_system(game.rules).new_state(
        game, check_seed(seed), mode is LogMode.EVENTS, ChanceMode.of(chance)
    )
    if mode is LogMode.MOVES:
        state._record = MoveRecord(None, [])
    return state


def from_position(
    game: GameDescription,
    position: Mapping[str, Any],
    seed: int,
    *,
    log: LogMode | bool | str = True,
    chance: ChanceMode | str = "tape",
) -> State:
    """The game at ``position`` (a ``state.position()``), as ``chess.Board(fen)``.

    What nobody knows there (the order of unseen cards, the dice to come) is
    dealt anew from ``seed``; the rest goes on exactly. A malformed or
    impossible position raises :class:`InvalidPositionError` naming the field.
    The log, if kept, starts with a ``position`` event (or, of moves, with the position).
    """
    if not isinstance(game, GameDescription):
        raise TypeError(f"from_position takes a description from describe(), got {game!r}")
    game = validate(game)
    seed, mode, log_mode = check_seed(seed), ChanceMode.of(chance), LogMode.of(log)
    state = rule_system(game.rules).from_position(
        game, seed, positions.copy(position), log_mode is LogMode.EVENTS, mode
    )
    if log_mode is LogMode.MOVES:
        state._record = MoveRecord(positions.copy(position), [])
    return state


def determinize(observation: JsonDict, seed: int) -> State:
    """A state consistent with ``observation``, hidden parts sampled with ``seed``.

    For search: a bot clones and plays out such states. Everything the seat
    saw is kept exactly; what it could not see (the pile order) is drawn at
    random, and future chance follows ``seed``. The state keeps no log.
    """
    if observation["decision"] == "chance":
        raise ValueError("an observation at a chance node: apply the chance outcome first")
    description = describe(observation["rules"], observation["seats"], observation["options"])
    return rule_system(description.rules).from_observation(
        description, check_seed(seed), observation
    )


def observe(state: State, seat: int) -> JsonDict:
    """What ``seat`` may know of ``state``, as JSON; the one door to hidden information."""
    return state.observe(seat)


__all__ = [
    "RULE_SYSTEMS",
    "Action",
    "CardDecision",
    "ChanceMode",
    "CorruptLogError",
    "Decision",
    "DiceDecision",
    "GameDescription",
    "GameOverError",
    "IllegalActionError",
    "InvalidDescriptionError",
    "InvalidPositionError",
    "LogError",
    "LogMode",
    "OptionSpec",
    "OptionValue",
    "ReplayMismatchError",
    "RoyaleDecision",
    "RuleSystem",
    "SeatResult",
    "State",
    "VegasError",
    "__version__",
    "check_seed",
    "describe",
    "determinize",
    "from_position",
    "new_game",
    "observe",
    "rule_system",
]
