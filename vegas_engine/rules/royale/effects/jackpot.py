"""Jackpot (A2): the activator rolls the black dice for the pot.

A sum in ``jackpot_sums`` or a double takes the pot, which starts again at
``jackpot_start``; otherwise the pot grows by ``jackpot_step`` up to
``jackpot_max``. State: ``_jackpot`` (the pot).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....position import check_choice
from ..common import RoyaleDecision
from ..tiles import Reward, Tile
from .base import StateCheck, TileEffect

if TYPE_CHECKING:
    from ..game import RoyaleGame

D = RoyaleDecision


def reset(game: RoyaleGame) -> None:
    game._jackpot = game._setup.rules.tiles.jackpot_start


def activate(game: RoyaleGame, casino: int, seat: int) -> None:
    data = game._setup.rules.tiles
    dice = game._roll_black(seat, Tile.JACKPOT)
    hit = sum(dice) in data.jackpot_sums or (
        data.jackpot_doubles and len(dice) > 1 and len(set(dice)) == 1
    )
    if hit:
        pot = game._jackpot
        game._jackpot = data.jackpot_start
        game._emit(
            {
                "type": "jackpot_roll",
                "seat": seat,
                "dice": dice,
                "hit": True,
                "pot": game._jackpot,
            }
        )
        game._reward(seat, Reward(money=pot), "Jackpot")
    else:
        game._jackpot = min(game._jackpot + data.jackpot_step, data.jackpot_max)
        game._emit(
            {
                "type": "jackpot_roll",
                "seat": seat,
                "dice": dice,
                "hit": False,
                "pot": game._jackpot,
            }
        )


def check_state(check: StateCheck) -> None:
    """The pot is one the rolls can reach."""
    data = check.setup.rules.tiles
    steps = range(data.jackpot_start, data.jackpot_max, max(data.jackpot_step, 1))
    pots = sorted({*steps, data.jackpot_max})
    check.idle(
        "jackpot",
        Tile.JACKPOT,
        check_choice(check.state["jackpot"], "tiles.jackpot", pots),
        data.jackpot_start,
    )


EFFECT = TileEffect(Tile.JACKPOT, reset=reset, activate=activate, check_state=check_state)
