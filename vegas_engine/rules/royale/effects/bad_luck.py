"""Bad Luck (C2): the seats with the fewest dice here pay ``bad_luck`` at round end.

They are found before payout (a seat with no die here counts, with 0) and
pay the bank after the round-end credits (``bank_payment``: money first,
then chips). State: ``_bad_luck`` (the seats that will pay).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..common import RoyaleDecision
from ..tiles import Tile
from .base import TileEffect

if TYPE_CHECKING:
    from ..game import RoyaleGame

D = RoyaleDecision


def reset(game: RoyaleGame) -> None:
    game._bad_luck = []


def before_payout(game: RoyaleGame, casino: int) -> None:
    n = game._n
    counts = game._counts[casino]
    fewest = min(counts[:n])
    seats = [seat for seat in range(n) if counts[seat] == fewest]
    game._bad_luck = seats
    game._emit({"type": "bad_luck", "casino": casino + 1, "counts": counts[:n], "seats": seats})


def round_end(game: RoyaleGame) -> None:
    due = game._setup.rules.tiles.bad_luck
    for seat in game._bad_luck:
        game._pay_bank(seat, due, "Bad Luck")
    game._bad_luck = []


EFFECT = TileEffect(
    Tile.BAD_LUCK,
    reset=reset,
    before_payout=before_payout,
    round_end=round_end,
)
