"""The Las Vegas engine: exact, deterministic rule systems of the Las Vegas games.

Typical use::

    from vegas_engine import describe, new_game, observe

    state = new_game(describe("classic", seats=4, seed=7))
    while not state.is_terminal():
        seat = state.to_move()[0]
        state.apply_action(state.legal_actions(seat)[0], seat)
    print(state.result())
"""

from __future__ import annotations

from .description import GameDescription, OptionValue
from .errors import (
    CorruptLogError,
    GameOverError,
    IllegalActionError,
    InvalidDescriptionError,
    LogError,
    ReplayMismatchError,
    VegasError,
)
from .registry import RULE_SYSTEMS, OptionSpec, RuleSystem, describe, rule_system, validate
from .state import Action, Decision, JsonDict, SeatResult, State
from .version import __version__


def new_game(description: GameDescription, *, log: bool = True) -> State:
    """Start a game; with ``log=False`` no events are kept (faster playouts)."""
    description = validate(description)
    return rule_system(description.rules).new_state(description, log)


def determinize(observation: JsonDict, seed: int) -> State:
    """A state consistent with ``observation``, hidden parts sampled with ``seed``.

    For search: a bot clones and plays out such states. Everything the seat
    saw is kept exactly; what it could not see (the pile order) is drawn at
    random, and future chance follows ``seed``. The state keeps no log.
    """
    description = describe(observation["rules"], observation["seats"], seed, observation["options"])
    return rule_system(description.rules).from_observation(description, observation)


def observe(state: State, seat: int) -> JsonDict:
    """What ``seat`` may know of ``state``, as JSON; the one door to hidden information."""
    return state.observe(seat)


__all__ = [
    "RULE_SYSTEMS",
    "Action",
    "CorruptLogError",
    "Decision",
    "GameDescription",
    "GameOverError",
    "IllegalActionError",
    "InvalidDescriptionError",
    "LogError",
    "OptionSpec",
    "OptionValue",
    "ReplayMismatchError",
    "RuleSystem",
    "SeatResult",
    "State",
    "VegasError",
    "__version__",
    "describe",
    "determinize",
    "new_game",
    "observe",
    "rule_system",
]
