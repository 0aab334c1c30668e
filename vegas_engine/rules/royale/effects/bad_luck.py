"""Bad Luck (C2): the seats with the fewest dice here pay ``bad_luck`` at round end.

They are found before payout (a seat with no die here counts, with 0) and
pay the bank after the round-end credits (``bank_payment``: money first,
then chips). State: ``_bad_luck`` (the seats that will pay).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....position import check_list, check_seat, refuse
from ..common import RoyaleDecision
from ..tiles import Tile
from .base import StateCheck, TileEffect

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


def check_state(check: StateCheck) -> None:
    """The seats that will pay: distinct, low to high."""
    n = check.setup.seats
    bad_luck = [
        check_seat(seat, f"tiles.bad_luck[{i}]", n)
        for i, seat in enumerate(check_list(check.state["bad_luck"], "tiles.bad_luck"))
    ]
    if bad_luck != sorted(set(bad_luck)):
        refuse("tiles.bad_luck", f"{bad_luck} must be distinct seats, low to high")
    check.idle("bad_luck", Tile.BAD_LUCK, bad_luck, [])


EFFECT = TileEffect(
    Tile.BAD_LUCK,
    reset=reset,
    before_payout=before_payout,
    round_end=round_end,
    check_state=check_state,
)
