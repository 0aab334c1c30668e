"""Every engine call the RL bridges make, in one place.

The bridges (PettingZoo, OpenSpiel, Gymnasium) never touch ``vegas_engine``
directly: they start, step, observe and score games through this module, so
a change of the engine's API is adapted here in a few lines.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from vegas_engine import RULE_SYSTEMS, OptionSpec, OptionValue, State, describe, new_game

#: Seeds the engine takes: 0 .. 2**63 - 1.
MAX_SEED = 2**63 - 1

JsonDict = dict[str, Any]


@dataclass(frozen=True)
class Table:
    """What a game is played with: rule system, seats and every option resolved."""

    rules: str
    seats: int
    options: Mapping[str, OptionValue] = field(default_factory=dict)

    def option(self, name: str) -> OptionValue:
        return self.options[name]

    def __hash__(self) -> int:
        return hash((self.rules, self.seats, tuple(sorted(self.options.items()))))


def table(rules: str, seats: int, options: Mapping[str, object] | None = None) -> Table:
    """Validate a table with the engine (it raises a clear error) and resolve its options."""
    description = describe(rules, seats, options)
    return Table(description.rules, description.seats, dict(description.options))


def rule_systems() -> tuple[str, ...]:
    return tuple(RULE_SYSTEMS)


def seat_counts(rules: str) -> tuple[int, ...]:
    return RULE_SYSTEMS[rules].seats


def rounds(rules: str) -> int:
    return RULE_SYSTEMS[rules].rounds


def options(rules: str) -> tuple[OptionSpec, ...]:
    return RULE_SYSTEMS[rules].options


def new_state(table: Table, seed: int) -> State:
    """A new game of ``table``; ``seed`` fixes all its chance. No log is kept."""
    return new_game(describe(table.rules, table.seats, table.options), seed, log=False)


def to_move(state: State) -> tuple[int, ...]:
    return state.to_move()


def legal_actions(state: State, seat: int) -> tuple[str, ...]:
    return state.legal_actions(seat)


def apply(state: State, action: str, seat: int) -> None:
    """Apply a legal action (chance, and forced decisions, resolve inside)."""
    state.apply_action(action, seat)


def observe(state: State, seat: int) -> JsonDict:
    return state.observe(seat)


def clone(state: State) -> State:
    return state.clone()


def ranks(state: State) -> list[int] | None:
    """Each seat's final rank (1 best, ties shared), or None while the game goes on."""
    result = state.result()
    return None if result is None else [entry.rank for entry in result]


class Playthrough:
    """A game with its seed and every move so far: cloned fast, pickled as its moves.

    ``copy.deepcopy`` clones the engine state (OpenSpiel clones states that
    way); ``pickle`` stores the table, the seed and the moves, and rebuilds
    the state by replaying them (the engine is deterministic given its seed),
    so a serialized game stays small and never depends on engine internals.
    """

    __slots__ = ("moves", "seed", "state", "table")

    def __init__(self, table: Table, seed: int, moves: list[tuple[int, str]] | None = None):
        self.table, self.seed = table, seed
        self.state = new_state(table, seed)
        self.moves: list[tuple[int, str]] = []
        for seat, action in moves or ():
            self.apply(action, seat)

    def apply(self, action: str, seat: int) -> None:
        apply(self.state, action, seat)
        self.moves.append((seat, action))

    def __deepcopy__(self, memo: dict[int, object]) -> Playthrough:
        copied = Playthrough.__new__(Playthrough)
        copied.table, copied.seed = self.table, self.seed
        copied.state = clone(self.state)
        copied.moves = list(self.moves)
        return copied

    def __reduce__(self) -> tuple[type[Playthrough], tuple[Table, int, list[tuple[int, str]]]]:
        return Playthrough, (self.table, self.seed, list(self.moves))
