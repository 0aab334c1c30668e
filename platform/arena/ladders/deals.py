"""Duplicate deals as Elo sees them: each bot's total over the deal, and its rank.

A duplicate ladder plays one seed once per seat rotation by the same bots
(``matches.services.match_create_deal``) and rates the deal once, on the
money each bot won over all its games. Pure functions: the rating service
loads the seats, this module only computes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

#: Ladders of at most this many seats play duplicate deals unless told otherwise:
#: there a deal tells two close bots apart in several times fewer games
#: (``bench/ratings.py``, its last part).
DUPLICATE_DEALS_UP_TO_SEATS = 2


def duplicate_deals_by_default(seats: int) -> bool:
    """Whether a new ladder of ``seats`` plays duplicate deals when its creator does not say."""
    return seats <= DUPLICATE_DEALS_UP_TO_SEATS


@dataclass(frozen=True)
class DealSeat:
    """One seat of one game of a deal."""

    #: Who played it (the bot version's id).
    player: int
    money: int
    forfeited: bool


@dataclass(frozen=True)
class DealTotal:
    """A player's result over a whole deal."""

    player: int
    money: int
    #: Forfeited at least one of the deal's games.
    forfeited: bool


def deal_totals(seats: Iterable[DealSeat]) -> list[DealTotal]:
    """Each player's money over the deal and whether it forfeited a game, in first-seen order."""
    money: dict[int, int] = {}
    forfeited: dict[int, bool] = {}
    for seat in seats:
        money[seat.player] = money.get(seat.player, 0) + seat.money
        forfeited[seat.player] = forfeited.get(seat.player, False) or seat.forfeited
    return [DealTotal(player, total, forfeited[player]) for player, total in money.items()]


def deal_ranks(totals: Sequence[DealTotal]) -> list[int]:
    """The rank of each total (1 is best), in the order given.

    More money ranks better; equal money shares the better rank. A forfeit
    in any game ranks below everyone who played the deal clean, as a forfeit
    ranks last in a single game (its seat's money was won by the random
    policy that finished the game for it).
    """
    keys = [(not total.forfeited, total.money) for total in totals]
    return [1 + sum(other > key for other in keys) for key in keys]


@dataclass(frozen=True)
class SeatResult:
    """One seat of one game of a rated unit, as the ratings read it."""

    player: int
    rank: int
    money: int
    forfeited: bool


def unit_standings(seats: Sequence[SeatResult], *, deal: bool) -> list[tuple[int, int]]:
    """Who Elo compares in a rated unit, with their ranks: (player, rank) in seat order.

    A single game: seat by seat, as the referee ranked them (a player at two
    seats twice; it is not rated against itself). A duplicate deal (every
    game's seats): each player once, ranked on its money over the deal.
    """
    if not deal:
        return [(seat.player, seat.rank) for seat in seats]
    totals = deal_totals(DealSeat(seat.player, seat.money, seat.forfeited) for seat in seats)
    return [(total.player, rank) for total, rank in zip(totals, deal_ranks(totals), strict=True)]
