"""Chip cards (seed 000): an option of `cardgame` and of `classic`.

At the start of each round one chip card is put face up at each casino; they
accumulate. A seat that places at least two dice at one casino in one turn
may take one chip card of its choice from there at once. At the end, each
colour a seat holds scores by how many cards of it the seat has.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..position import (
    check_cards,
    check_choice,
    check_int,
    check_keys,
    check_list,
    refuse,
)
from ..state import Action


@dataclass(frozen=True)
class ChipRules:
    colours: tuple[str, ...] = ("blue", "gold", "green", "pink", "silver")
    cards_per_colour: int = 5
    #: Money for holding 1, 2, 3, ... cards of one colour.
    scores: tuple[int, ...] = (10_000, 30_000, 60_000, 100_000, 150_000)
    #: Dice (a double card or a Biggie counts 2) one seat must place at a casino in a turn.
    dice_to_take: int = 2

    def deck(self) -> list[int]:
        """Every chip card as a colour index, in canonical order (shuffled by the game)."""
        return [colour for colour in range(len(self.colours)) for _ in range(self.cards_per_colour)]

    def actions(self, at_casino: Sequence[int]) -> tuple[Action, ...]:
        """The choices at a casino holding ``at_casino``: one per colour there, or none."""
        present = sorted(set(at_casino))
        return (*(f"chip {self.colours[colour]}" for colour in present), "chip none")

    def colour(self, name: str) -> int:
        """The colour index of a colour's name."""
        return self.colours.index(name)

    def colour_of(self, action: Action) -> int | None:
        """The colour index an action takes, or None for ``chip none``."""
        name = action.removeprefix("chip ")
        return None if name == "none" else self.colours.index(name)

    def money(self, held: Sequence[int]) -> int:
        """End-of-game money for the chip cards a seat holds (colour indices)."""
        return sum(
            self.scores[min(held.count(colour), len(self.scores)) - 1] for colour in set(held)
        )

    def restore(
        self, seen: Mapping[str, Any], rng: random.Random
    ) -> tuple[list[list[int]], list[list[int]], list[int]]:
        """Chip cards at the casinos and held by seats, from an observation's ``chips``,
        and the face-down deck of the rest, shuffled with ``rng`` (its order is hidden)."""
        at_casinos = [[self.colours.index(c) for c in at] for at in seen["at_casinos"]]
        held = [
            [self.colours.index(name) for name, count in cards.items() for _ in range(count)]
            for cards in seen["held"]
        ]
        deck = self.deck()
        for chip in [c for cards in at_casinos + held for c in cards]:
            deck.remove(chip)
        rng.shuffle(deck)
        return at_casinos, held, deck

    def check_position(self, seen: Mapping[str, Any], seats: int, rounds_dealt: int) -> None:
        """A position's ``chips``: ``at_casinos`` (six lists of colours, one card dealt
        to each casino a round while the deck lasts, so all those dealt are there or
        held) and ``held`` (each seat's {colour: count}); no card more often than the
        deck has it."""
        at_casinos = check_list(seen["at_casinos"], "chips.at_casinos", 6)
        cards: list[str] = []
        for casino, at in enumerate(at_casinos):
            field = f"chips.at_casinos[{casino}]"
            for index, name in enumerate(check_list(at, field, most=rounds_dealt)):
                cards.append(check_choice(name, f"{field}[{index}]", self.colours))
        for seat, held in enumerate(check_list(seen["held"], "chips.held", seats)):
            field = f"chips.held[{seat}]"
            for name, count in check_keys(held, field, self.colours).items():
                cards += [name] * check_int(count, f"{field}.{name}", 1, self.cards_per_colour)
        deck = self.deck()
        check_cards("chips", cards, [self.colours[colour] for colour in deck])
        dealt = min(6 * rounds_dealt, len(deck))
        if len(cards) != dealt:
            refuse("chips", f"{len(cards)} chip cards, but one a casino and round makes {dealt}")

    def named(self, held: Sequence[int]) -> dict[str, int]:
        return {self.colours[colour]: held.count(colour) for colour in sorted(set(held))}


CHIPS = ChipRules()
