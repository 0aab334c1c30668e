"""Every engine call the RL bridges make, in one place.

The bridges (PettingZoo, OpenSpiel, Gymnasium) never touch ``vegas_engine``
directly: they start, step, observe and score games through this module, so
a change of the engine's API is adapted here in a few lines.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from typing import Any

from vegas_engine import RULE_SYSTEMS, OptionSpec, OptionValue, State, describe, new_game
from vegas_engine.chance import dice_outcomes, ordered_dice_outcomes
from vegas_engine.rules.cardgame import CardGame
from vegas_engine.rules.cardgame import CardView as CardView
from vegas_engine.rules.dice import DiceGame
from vegas_engine.rules.dice import DiceView as DiceView
from vegas_engine.rules.royale.game import RoyaleGame
from vegas_engine.rules.royale.game import RoyaleView as RoyaleView
from vegas_engine.rules.royale.tiles import TILE_CODES

#: Seeds the engine takes: 0 .. 2**63 - 1.
MAX_SEED = 2**63 - 1

JsonDict = dict[str, Any]

#: The engine's state class, for the bridges' types.
GameState = State


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


def dice_view(state: State) -> DiceView | None:
    """A dice game's numbers as its observations show them (the same for every
    seat: nothing in a dice game is hidden); None for any other state, an
    explicit-chance one included."""
    return state.view() if type(state) is DiceGame else None


def card_view(state: State, seat: int) -> CardView | None:
    """A card game as ``seat`` sees it (its own cards, the others' sizes, the
    board), in the state's numbers; None for any other state."""
    return state.view(seat) if type(state) is CardGame else None


def royale_view(state: State, seat: int) -> RoyaleView | None:
    """A Royale game as ``seat`` sees it, in the state's numbers; None for any other state."""
    return state.view(seat) if type(state) is RoyaleGame else None


#: Royale's tiles by the index a RoyaleView gives them.
ROYALE_TILE_CODES: tuple[str, ...] = TILE_CODES


def clone(state: State) -> State:
    return state.clone()


def ranks(state: State) -> list[int] | None:
    """Each seat's final rank (1 best, ties shared), or None while the game goes on."""
    result = state.result()
    return None if result is None else [entry.rank for entry in result]


#: Dice chance rolls as the faces ascending, by rule system: the most dice of
#: each kind one chance node rolls (a seat's hand; the neutral dice rolled
#: onto the casinos).
_SORTED_DICE: dict[str, dict[str, int]] = {
    "classic": {"die": 8, "neutral": 4},
    "boulevard": {"die": 8, "biggie": 1, "kicker": 2, "neutral": 4},
    "cardgame": {},
    "sixdice": {"die": 6, "biggie": 1, "neutral": 3},
    "royale": {"die": 7, "biggie": 1, "neutral": 8},
}
#: Dice chance rolls in rolling order (royale's black dice).
_ORDERED_DICE: dict[str, dict[str, int]] = {"royale": {"black": 2}}
_NOTES = tuple(str(value * 10_000) for value in range(1, 11))
_CHIPS = ("blue", "gold", "green", "pink", "silver")
_ROYALE_CARDS = tuple(str(value * 10_000) for value in range(3, 11))
#: Cards chance draws, by rule system: each kind with every card it may be.
_CARDS: dict[str, dict[str, tuple[str, ...]]] = {
    "classic": {"note": _NOTES[:9], "chip": _CHIPS},
    "boulevard": {"note": (*_NOTES, "rainbow")},
    "cardgame": {
        "note": _NOTES[2:],
        "chip": _CHIPS,
        "card": tuple(f"{face}{double}" for face in range(1, 7) for double in ("", "D")),
    },
    "sixdice": {"note": _NOTES},
    "royale": {
        "card": _ROYALE_CARDS,
        "bank": _ROYALE_CARDS,
        "tile": tuple(f"{letter}{side}" for letter in "ABCDEFGH" for side in (1, 2)),
    },
}


@cache
def chance_outcomes_of(rules: str) -> tuple[str, ...]:
    """Every chance outcome a game of ``rules`` may list, in a fixed order.

    An outcome's place in it is its chance action in the OpenSpiel game; the
    order never depends on the table, so an index means the same at any table.
    """
    outcomes: list[str] = []
    for name, most in _SORTED_DICE[rules].items():
        for count in range(1, most + 1):
            outcomes += dice_outcomes(name, count)
    for name, count in _ORDERED_DICE.get(rules, {}).items():
        outcomes += ordered_dice_outcomes(name, count)
    for name, cards in _CARDS[rules].items():
        outcomes += (f"{name} {card}" for card in cards)
    return tuple(outcomes)


def new_explicit_state(table: Table) -> State:
    """A new game of ``table`` that stops at every chance node; no log is kept.

    The seed only names the tape's outcomes, which the caller never takes.
    """
    description = describe(table.rules, table.seats, table.options)
    return new_game(description, 0, log=False, chance="explicit")


def is_chance_node(state: State) -> bool:
    return state.is_chance_node()


def chance_outcomes(state: State) -> list[tuple[str, Fraction]]:
    return state.chance_outcomes()


def apply_chance(state: State, outcome: str) -> None:
    state.apply_chance(outcome)


def is_terminal(state: State) -> bool:
    return state.is_terminal()


#: The seat of a chance outcome in :attr:`Playthrough.moves`.
CHANCE = -1


class Playthrough:
    """An explicit-chance game with every move so far: cloned fast, pickled as its moves.

    A move is ``(seat, action)``, or ``(CHANCE, outcome)`` where chance acted.
    ``copy.deepcopy`` clones the engine state (OpenSpiel clones states that
    way); ``pickle`` stores the table and the moves and rebuilds the state by
    replaying them, so a serialized game stays small and never depends on
    engine internals.
    """

    __slots__ = ("moves", "state", "table")

    def __init__(self, table: Table, moves: list[tuple[int, str]] | None = None):
        self.table = table
        self.state = new_explicit_state(table)
        self.moves: list[tuple[int, str]] = []
        for seat, action in moves or ():
            self.apply(action, seat)

    def apply(self, action: str, seat: int) -> None:
        """Apply a seat's legal action, or with ``seat=CHANCE`` a listed chance outcome."""
        if seat == CHANCE:
            apply_chance(self.state, action)
        else:
            apply(self.state, action, seat)
        self.moves.append((seat, action))

    def __deepcopy__(self, memo: dict[int, object]) -> Playthrough:
        copied = Playthrough.__new__(Playthrough)
        copied.table = self.table
        copied.state = clone(self.state)
        copied.moves = list(self.moves)
        return copied

    def __reduce__(self) -> tuple[type[Playthrough], tuple[Table, list[tuple[int, str]]]]:
        return Playthrough, (self.table, list(self.moves))
