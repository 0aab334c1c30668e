"""Fifty Fifty (B2): roll the black dice, then stop or call higher or lower.

State: ``_fifty_step`` (the counter's step, 0 when not played) and
``_fifty_sum`` (the last roll's sum).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....position import check_int, check_object, refuse
from ....state import Action
from ..common import HIGHER, LOWER, STOP, RoyaleDecision
from ..tiles import Tile
from .base import Choice, StateCheck, TileEffect

if TYPE_CHECKING:
    from ..game import RoyaleGame

D = RoyaleDecision


def reset(game: RoyaleGame) -> None:
    game._fifty_step = 0
    game._fifty_sum = 0


def activate(game: RoyaleGame, casino: int, seat: int) -> None:
    """The first roll puts the counter on step 1 (reward ``fifty_fifty[0]``, $0).

    Each right call (strictly higher / lower sum than the previous roll)
    moves one step on; a wrong call or an equal sum ends with nothing; on
    the last step the seat must stop.
    """
    dice = game._roll_black(seat, Tile.FIFTY_FIFTY)
    game._fifty_step = 1
    game._fifty_sum = sum(dice)
    game._emit(
        {
            "type": "fifty_fifty",
            "seat": seat,
            "call": None,
            "dice": dice,
            "step": 1,
            "outcome": "rolled",
        }
    )
    game._offer(D.GAMBLE, seat, (casino,))


def legal_gamble(game: RoyaleGame) -> tuple[Action, ...]:
    if game._fifty_step < len(game._setup.rules.tiles.fifty_fifty):
        return (STOP, HIGHER, LOWER)
    return (STOP,)


def gamble(game: RoyaleGame, action: Action) -> None:
    seat = game._current
    steps = game._setup.rules.tiles.fifty_fifty
    if action == STOP:
        reward = steps[game._fifty_step - 1]
        game._emit(
            {
                "type": "fifty_fifty",
                "seat": seat,
                "call": None,
                "dice": [],
                "step": game._fifty_step,
                "outcome": "stop",
            }
        )
        game._fifty_step = game._fifty_sum = 0
        game._reward(seat, reward, "Fifty Fifty")
        return
    before = game._fifty_sum
    dice = game._roll_black(seat, Tile.FIFTY_FIFTY)
    total = sum(dice)
    won = total > before if action == HIGHER else total < before
    game._fifty_step += 1
    game._emit(
        {
            "type": "fifty_fifty",
            "seat": seat,
            "call": action,
            "dice": dice,
            "step": game._fifty_step,
            "outcome": "won" if won else "lost",
        }
    )
    if won:
        game._fifty_sum = total
        game._offer(D.GAMBLE, seat, game._ctx)
    else:
        game._fifty_step = game._fifty_sum = 0


def check_state(check: StateCheck) -> None:
    """A step of the counter and a sum of the black dice, both 0 while not played."""
    data = check.setup.rules.tiles
    fifty = check_object(check.state["fifty_fifty"], "tiles.fifty_fifty", ("step", "sum"))
    step = check_int(fifty["step"], "tiles.fifty_fifty.step", 0, len(data.fifty_fifty))
    total = check_int(fifty["sum"], "tiles.fifty_fifty.sum", 0, 6 * data.black_dice)
    if (step == 0) != (total == 0) or 0 < total < data.black_dice:
        refuse("tiles.fifty_fifty.sum", f"{total} is no sum of the black dice at step {step}")
    check.idle("fifty_fifty", Tile.FIFTY_FIFTY, step, 0)


EFFECT = TileEffect(
    Tile.FIFTY_FIFTY,
    reset=reset,
    activate=activate,
    decisions={D.GAMBLE: Choice(legal_gamble, gamble)},
    check_state=check_state,
)
