"""The 16 royale tiles' effects: one module per tile side, one table to find them.

:data:`EFFECTS` holds each side's :class:`.base.TileEffect` by :class:`..tiles.Tile`
(A1 Lucky Punch ... H2 My Choice); the game (:mod:`..game`) calls its hooks
through the tables below, and the position checks (:mod:`..positions`) each
tile's ``check_state``.
"""

from __future__ import annotations

from ..common import RoyaleDecision
from ..tiles import Tile
from . import (
    bad_luck,
    black_box,
    block_it,
    double_down,
    fifty_fifty,
    handicap,
    high_five,
    jackpot,
    knockout,
    lucky_punch,
    my_choice,
    nice_dice,
    no_entry,
    pay_day,
    power_play,
    prime_time,
)
from .base import Activation, AtCasino, Choice, GameHook, Op, StateCheck, StateChecker, TileEffect

EFFECTS: tuple[TileEffect, ...] = (
    lucky_punch.EFFECT,
    jackpot.EFFECT,
    prime_time.EFFECT,
    fifty_fifty.EFFECT,
    high_five.EFFECT,
    bad_luck.EFFECT,
    pay_day.EFFECT,
    power_play.EFFECT,
    no_entry.EFFECT,
    knockout.EFFECT,
    block_it.EFFECT,
    handicap.EFFECT,
    black_box.EFFECT,
    double_down.EFFECT,
    nice_dice.EFFECT,
    my_choice.EFFECT,
)
if [effect.tile for effect in EFFECTS] != list(Tile):
    raise RuntimeError("EFFECTS must list one effect per tile side, in Tile order")

#: Round-end hooks in this order: credits before debits (the golden space can pay Bad Luck).
ROUND_END_ORDER: tuple[Tile, ...] = (Tile.MY_CHOICE, Tile.BAD_LUCK)
if {effect.tile for effect in EFFECTS if effect.round_end} != set(ROUND_END_ORDER):
    raise RuntimeError("ROUND_END_ORDER must list every tile with a round-end hook")

#: Position checks of the tiles' state in this order (the order of the position's
#: ``tiles`` fields, mostly): the first field refused is the one reported.
STATE_CHECK_ORDER: tuple[Tile, ...] = (
    Tile.JACKPOT,
    Tile.FIFTY_FIFTY,
    Tile.HIGH_FIVE,
    Tile.POWER_PLAY,
    Tile.NO_ENTRY,
    Tile.KNOCKOUT,
    Tile.DOUBLE_DOWN,
    Tile.BLOCK_IT,
    Tile.HANDICAP,
    Tile.NICE_DICE,
    Tile.MY_CHOICE,
    Tile.BAD_LUCK,
)
if {effect.tile for effect in EFFECTS if effect.check_state} != set(STATE_CHECK_ORDER):
    raise RuntimeError("STATE_CHECK_ORDER must list every tile with a position check")

#: The tables the game dispatches through (by tile index, or in a fixed order).
RESETS: tuple[GameHook, ...] = tuple(effect.reset for effect in EFFECTS if effect.reset)
ACTIVATIONS: tuple[Activation, ...] = tuple(effect.activate for effect in EFFECTS)
BEFORE_PAYOUT: tuple[AtCasino | None, ...] = tuple(effect.before_payout for effect in EFFECTS)
ROUND_END: tuple[GameHook, ...] = tuple(
    hook for tile in ROUND_END_ORDER if (hook := EFFECTS[tile].round_end) is not None
)

STATE_CHECKS: tuple[StateChecker, ...] = tuple(
    check for tile in STATE_CHECK_ORDER if (check := EFFECTS[tile].check_state) is not None
)


def tile_decisions() -> dict[RoyaleDecision, Choice]:
    """Every decision a tile asks, with its legal actions and handler (each asked by one tile)."""
    choices: dict[RoyaleDecision, Choice] = {}
    for effect in EFFECTS:
        for decision, choice in effect.decisions.items():
            if decision in choices:
                raise RuntimeError(f"two tiles ask the decision {decision.value}")
            choices[decision] = choice
    return choices


def tile_frames() -> dict[int, Op]:
    """The frames of the game's machine that tiles carry out, by frame number."""
    return {op: run for effect in EFFECTS for op, run in effect.frames.items()}


__all__ = [
    "ACTIVATIONS",
    "BEFORE_PAYOUT",
    "EFFECTS",
    "RESETS",
    "ROUND_END",
    "ROUND_END_ORDER",
    "STATE_CHECKS",
    "STATE_CHECK_ORDER",
    "StateCheck",
    "TileEffect",
    "tile_decisions",
    "tile_frames",
]
