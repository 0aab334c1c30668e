"""Prime Time (B1): before payout, the seat about to win here adds black dice.

That seat rolls the black dice and adds none, one or both of them to the
casinos of their faces (open ones). Nothing happens when activated, nor when
no seat is about to win a card here. No state of its own (the black dice are
the game's ``_black``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....state import Action
from ...dice import rank_casino
from ..common import ADD_NONE, RoyaleDecision
from ..tiles import Tile
from .base import Choice, TileEffect
from .power_play import check_power

if TYPE_CHECKING:
    from ..game import RoyaleGame

D = RoyaleDecision


def before_payout(game: RoyaleGame, casino: int) -> None:
    """The seat about to take the higher card rolls the black dice."""
    ranked, _ = rank_casino(game._counts[casino])
    if not ranked or not game._cards[casino] or ranked[0] >= game._n:
        return
    winner = ranked[0]
    game._roll_black(winner, Tile.PRIME_TIME)
    game._offer(D.ADD, winner, (casino,))


def legal_add(game: RoyaleGame) -> tuple[Action, ...]:
    dice = sorted(game._black)
    closed = game._closed
    legal = [ADD_NONE]
    for index, face in enumerate(dice):
        if face - 1 != closed and face not in dice[:index]:
            legal.append(f"add {face}")
    if len(dice) == 2 and all(face - 1 != closed for face in dice):
        legal.append(f"add {dice[0]} {dice[1]}")
    return tuple(legal)


def add_black(game: RoyaleGame, action: Action) -> None:
    if action == ADD_NONE:
        return
    seat = game._current
    casinos = [int(face_text) - 1 for face_text in action.split()[1:]]
    for casino in casinos:
        game._counts[casino][seat] += 1
        game._emit_move(seat, "black", 1, "black", f"casino {casino + 1}")
    # Both dice are added at once: the token is checked once they are there.
    if game._power_casino in casinos:
        check_power(game)


EFFECT = TileEffect(
    Tile.PRIME_TIME,
    before_payout=before_payout,
    decisions={D.ADD: Choice(legal_add, add_black)},
)
