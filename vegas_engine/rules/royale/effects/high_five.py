"""High Five (C1): the first seat with ``high_five_count`` dice here takes the token.

A Biggie counts 2. The token's holder is paid ``high_five`` when the casino
pays out, even if the casino was closed after the token was taken. State:
``_high_five`` (the holder, -1 while the token is on the tile).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....position import check_seat
from ..common import RoyaleDecision
from ..tiles import TILE_CODES, Tile
from .base import StateCheck, TileEffect

if TYPE_CHECKING:
    from ..game import RoyaleGame

D = RoyaleDecision


def reset(game: RoyaleGame) -> None:
    game._high_five = -1


def activate(game: RoyaleGame, casino: int, seat: int) -> None:
    data = game._setup.rules.tiles
    if game._high_five < 0 and game._counts[casino][seat] >= data.high_five_count:
        game._high_five = seat
        game._emit(
            {
                "type": "token",
                "tile": TILE_CODES[Tile.HIGH_FIVE],
                "holder": seat,
                "casino": casino + 1,
            }
        )


def payout(game: RoyaleGame, casino: int, awards: list[tuple[int, int]]) -> None:
    """A taken token is its holder's: it pays even if the casino is closed."""
    if game._high_five >= 0:
        game._reward(game._high_five, game._setup.rules.tiles.high_five, "High Five")


def check_state(check: StateCheck) -> None:
    state = check.state
    if state["high_five"] is not None:
        check_seat(state["high_five"], "tiles.high_five", check.setup.seats)
    check.idle("high_five", Tile.HIGH_FIVE, state["high_five"], None)


EFFECT = TileEffect(
    Tile.HIGH_FIVE,
    reset=reset,
    activate=activate,
    payout=payout,
    pays_when_closed=True,
    check_state=check_state,
)
