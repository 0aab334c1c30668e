"""`classic` (alea 2012, seeds 001 and 002) and `boulevard` (yucata's modules).

Both are data for :class:`~vegas_engine.rules.dice.DiceGame`; every number the
rulebooks print lives here, not in the game code.
"""

from __future__ import annotations

import functools

from ..description import GameDescription
from ..system import OptionSpec, RuleSystem
from .chips import CHIPS
from .dice import (
    RAINBOW,
    DiceDecision,
    DiceGame,
    DiceRules,
    DiceSetup,
    dice_position,
    new_dice_game,
)

# Value (dollars) -> number of notes.
CLASSIC_NOTES: dict[int, int] = {
    10_000: 6,
    20_000: 8,
    30_000: 8,
    40_000: 6,
    50_000: 6,
    60_000: 5,
    70_000: 5,
    80_000: 5,
    90_000: 5,
}

CLASSIC_RULES = DiceRules(
    notes=CLASSIC_NOTES,
    rounds=4,
    dice_per_seat=8,
    minimum_by_seats={2: 50_000, 3: 50_000, 4: 50_000, 5: 50_000},
    neutral_held_by_seats={2: 4, 3: 2, 4: 2},
    neutral_preplaced_by_seats={3: 2},
    big_notes={100_000: 5},
    rainbow_cards=6,
    rainbow_stock_value=40_000,
)

BOULEVARD_RULES = DiceRules(
    notes=CLASSIC_NOTES,
    rounds=4,
    dice_per_seat=8,
    minimum_by_seats={2: 30_000, 3: 40_000, 4: 50_000, 5: 60_000, 6: 70_000},
    neutral_held_by_seats={2: 4, 3: 2, 4: 2, 5: 2, 6: 2},
    neutral_preplaced_by_seats={3: 2},
    big_notes={100_000: 5},
    rainbow_cards=6,
    rainbow_stock_value=40_000,
    kickers_by_seats={2: 2, 3: 2, 4: 2, 5: 2, 6: 1},
)


def _classic_setup(description: GameDescription) -> DiceSetup:
    on = description.options
    return _classic_setup_of(description.seats, bool(on["neutral_dice"]), bool(on["chips"]))


# A setup is immutable and depends on seats and options alone: built once for each
# (a few dozen at most), not at every game's start, where it cost every playout.
@functools.cache
def _classic_setup_of(seats: int, neutral_dice: bool, chips: bool) -> DiceSetup:
    return DiceSetup.build(
        CLASSIC_RULES, seats, neutral_dice=neutral_dice, chips=CHIPS if chips else None
    )


def _boulevard_setup(description: GameDescription) -> DiceSetup:
    on = description.options
    return _boulevard_setup_of(
        description.seats,
        neutral_dice=bool(on["neutral_dice"]),
        big_notes=bool(on["big_notes"]),
        biggies=bool(on["biggies"]),
        kickers=bool(on["kickers"]),
        rainbow=bool(on["rainbow"]),
        slot_machine=bool(on["slot_machine"]),
    )


@functools.cache  # as _classic_setup_of
def _boulevard_setup_of(
    seats: int,
    *,
    neutral_dice: bool,
    big_notes: bool,
    biggies: bool,
    kickers: bool,
    rainbow: bool,
    slot_machine: bool,
) -> DiceSetup:
    return DiceSetup.build(
        BOULEVARD_RULES,
        seats,
        neutral_dice=neutral_dice,
        big_notes=big_notes,
        biggies=biggies,
        kickers=kickers,
        rainbow=rainbow,
        slot_machine=slot_machine,
    )


NEUTRAL_DICE_DOC = (
    "White dice as an imaginary player: 4 per seat with 2 seats, 2 per seat otherwise; "
    "with 3 seats the start player pre-rolls 2 more onto the casinos each round."
)

CHIPS_DOC = (
    "Chip cards (from the card game): one face up at each casino per round; placing two "
    "or more dice at a casino lets the seat take one; each colour held scores "
    "$10k/30k/60k/100k/150k for 1-5 cards at the end."
)

CLASSIC = RuleSystem(
    id="classic",
    title="Las Vegas, the dice game (alea 2012)",
    seeds=("001", "002"),
    seats=(2, 3, 4, 5),
    rounds=4,
    options=(
        OptionSpec("neutral_dice", False, NEUTRAL_DICE_DOC, seats=(2, 3, 4)),
        OptionSpec("chips", False, CHIPS_DOC),
    ),
    decisions=DiceDecision,
    new_state=lambda description, seed, log, chance: new_dice_game(
        description, seed, _classic_setup(description), log, chance
    ),
    from_observation=lambda description, seed, seen: DiceGame.from_observation(
        description, seed, _classic_setup(description), seen
    ),
    from_position=lambda description, seed, position, log, chance: dice_position(
        description, seed, _classic_setup(description), position, log, chance
    ),
)

BOULEVARD = RuleSystem(
    id="boulevard",
    title="Las Vegas Boulevard: classic with yucata's expansion modules",
    seeds=("002",),
    seats=(2, 3, 4, 5, 6),
    rounds=4,
    options=(
        OptionSpec("big_notes", True, "Five $100,000 notes are shuffled into the pile."),
        OptionSpec("neutral_dice", True, NEUTRAL_DICE_DOC),
        OptionSpec("biggies", True, "Each seat swaps one die for a Biggie, counted twice."),
        OptionSpec(
            "kickers",
            True,
            "Each seat swaps one die (two with fewer than 6 seats) for a kicker, which "
            "removes one die of its placer's choice from its casino.",
        ),
        OptionSpec(
            "rainbow",
            True,
            "Six rainbow cards in the pile: worth $40,000 while stocking, replaced from "
            "the pile before payout.",
        ),
        OptionSpec(
            "slot_machine",
            True,
            "A 7th casino taking any face not yet on it; ties broken by pip sum, then "
            "the highest die.",
        ),
    ),
    decisions=DiceDecision,
    new_state=lambda description, seed, log, chance: new_dice_game(
        description, seed, _boulevard_setup(description), log, chance
    ),
    from_observation=lambda description, seed, seen: DiceGame.from_observation(
        description, seed, _boulevard_setup(description), seen
    ),
    from_position=lambda description, seed, position, log, chance: dice_position(
        description, seed, _boulevard_setup(description), position, log, chance
    ),
)

__all__ = ["BOULEVARD", "BOULEVARD_RULES", "CLASSIC", "CLASSIC_NOTES", "CLASSIC_RULES", "RAINBOW"]
