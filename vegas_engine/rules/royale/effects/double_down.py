"""Double Down (G2): the activator may move its dice here to the side bet.

The side bet pays like a casino (``double_down``, from the bank) right after
its casino pays out. State: ``_side`` (each seat's dice and Biggies there).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....position import check_list
from ....state import Action
from ...dice import rank_casino
from ..common import RoyaleDecision
from ..tiles import Reward, Tile
from .base import Choice, StateCheck, TileEffect, check_dice
from .power_play import check_power

if TYPE_CHECKING:
    from ..game import RoyaleGame

D = RoyaleDecision


def reset(game: RoyaleGame) -> None:
    game._side = [[0, 0] for _ in range(game._n)]


def activate(game: RoyaleGame, casino: int, seat: int) -> None:
    if game._counts[casino][seat]:
        game._offer(D.BET, seat, (casino,))


def legal_bet(game: RoyaleGame) -> tuple[Action, ...]:
    casino = game._ctx[0]
    seat = game._current
    biggies = game._big[casino][seat]
    dice = game._counts[casino][seat] - 2 * biggies
    legal: list[Action] = []
    for count in range(dice + 1):
        legal.append(f"bet {count}")
        if biggies:
            legal.append(f"bet {count} biggie")
    return tuple(legal)


def bet(game: RoyaleGame, action: Action) -> None:
    seat = game._current
    casino = game._ctx[0]
    parts = action.split()
    dice = int(parts[1])
    biggies = 1 if len(parts) > 2 else 0
    game._counts[casino][seat] -= dice + 2 * biggies
    game._big[casino][seat] -= biggies
    side = game._side[seat]
    side[0] += dice
    side[1] += biggies
    if dice:
        game._emit_move(seat, "die", dice, f"casino {casino + 1}", "side bet")
    if biggies:
        game._emit_move(seat, "biggie", 1, f"casino {casino + 1}", "side bet")
    if casino == game._power_casino:
        check_power(game)


def payout(game: RoyaleGame, casino: int, casino_awards: list[tuple[int, int]]) -> None:
    """The side bet pays like a casino, from the bank (whoever won the casino's cards)."""
    n = game._n
    counts = [pair[0] + 2 * pair[1] for pair in game._side]
    ranked, cancelled = rank_casino(counts)
    awards = list(zip(ranked, game._setup.rules.tiles.double_down, strict=False))
    game._emit(
        {
            "type": "side_bet",
            "casino": casino + 1,
            "counts": {str(seat): count for seat, count in enumerate(counts) if count},
            "cancelled": cancelled,
            "awards": [{"owner": seat, "money": money} for seat, money in awards],
        }
    )
    for seat, money in awards:
        if seat < n:
            game._reward(seat, Reward(money=money), "Double Down")


def check_state(check: StateCheck) -> None:
    places = check_list(check.state["side_bet"], "tiles.side_bet", check.setup.seats)
    for seat, place in enumerate(places):
        held = check_dice(check.setup.rules, place, f"tiles.side_bet[{seat}]")
        check.idle(f"side_bet[{seat}]", Tile.DOUBLE_DOWN, held, [0, 0])


EFFECT = TileEffect(
    Tile.DOUBLE_DOWN,
    reset=reset,
    activate=activate,
    decisions={D.BET: Choice(legal_bet, bet)},
    payout=payout,
    check_state=check_state,
)
