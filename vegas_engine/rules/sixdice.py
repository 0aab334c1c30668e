"""`sixdice`: the three-round edition with 6 dice and a Biggie per colour (seed 004).

Pure data for :class:`~vegas_engine.rules.dice.DiceGame`: two bills per
casino, unwon bills back to the box, and the last seat to roll starts the
next round.
"""

from __future__ import annotations

import functools

from ..description import GameDescription
from ..system import OptionSpec, RuleSystem
from .dice import (
    DiceDecision,
    DiceGame,
    DiceRules,
    DiceSetup,
    NextStart,
    UnwonNotes,
    dice_position,
    new_dice_game,
)

SIXDICE_RULES = DiceRules(
    notes={
        10_000: 4,
        20_000: 4,
        30_000: 5,
        40_000: 5,
        50_000: 6,
        60_000: 6,
        70_000: 6,
        80_000: 4,
        90_000: 4,
        100_000: 4,
    },
    rounds=3,
    dice_per_seat=7,  # 6 dice and the Biggie
    notes_per_casino=2,
    neutral_held_by_seats={2: 3, 3: 2, 4: 1},
    unwon_to=UnwonNotes.BOX,
    next_start=NextStart.LAST_ROLLER,
)


def _setup(description: GameDescription) -> DiceSetup:
    on = description.options
    return _setup_of(description.seats, bool(on["neutral_dice"]), bool(on["slot_machine"]))


# Built once for each seat count and options, as classic's (rules/classic.py).
@functools.cache
def _setup_of(seats: int, neutral_dice: bool, slot_machine: bool) -> DiceSetup:
    return DiceSetup.build(
        SIXDICE_RULES,
        seats,
        biggies=True,
        neutral_dice=neutral_dice,
        slot_machine=slot_machine,
    )


SIXDICE = RuleSystem(
    id="sixdice",
    title="Las Vegas, the three-round edition with 6 dice and a Biggie",
    seeds=("004",),
    seats=(2, 3, 4, 5, 6),
    rounds=3,
    options=(
        OptionSpec(
            "neutral_dice",
            False,
            "Neutral dice as an imaginary player: 3 per seat with 2 seats, 2 with 3, 1 with 4; "
            "their winnings go to the box.",
            seats=(2, 3, 4),
        ),
        OptionSpec(
            "slot_machine",
            False,
            "The one-armed bandit: a 7th casino with 2 bills taking any face not yet on it.",
            seats=(5, 6),
        ),
    ),
    decisions=DiceDecision,
    new_state=lambda description, seed, log, chance: new_dice_game(
        description, seed, _setup(description), log, chance
    ),
    from_observation=lambda description, seed, seen: DiceGame.from_observation(
        description, seed, _setup(description), seen
    ),
    from_position=lambda description, seed, position, log, chance: dice_position(
        description, seed, _setup(description), position, log, chance
    ),
)
