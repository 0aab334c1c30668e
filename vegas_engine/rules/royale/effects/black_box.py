"""Black Box (G1): after its casino pays, its winner takes one of two token piles.

The winner's left neighbour splits the tokens (``black_box_tokens``) into two
face-down piles of the sizes ``black_box_sizes`` allows; the winner takes one
and is paid its sum (amounts in ``paid_as_chips`` as chips). Nothing happens
when activated, nor when no seat won here. State: ``_bb_split`` (the index of
the split made, -1).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....state import Action
from ..common import PILE_ACTIONS, RoyaleDecision
from ..tiles import Tile
from .base import Choice, TileEffect

if TYPE_CHECKING:
    from ..game import RoyaleGame

D = RoyaleDecision


def reset(game: RoyaleGame) -> None:
    game._bb_split = -1


def payout(game: RoyaleGame, casino: int, awards: list[tuple[int, int]]) -> None:
    """The seat that took the higher card (an imaginary owner takes no pile)."""
    n = game._n
    if awards and awards[0][0] < n:
        winner = awards[0][0]
        game._offer(D.SPLIT, (winner + 1) % n, (casino, winner))


def legal_split(game: RoyaleGame) -> tuple[Action, ...]:
    """Pile 1 is the larger pile; 3 + 3 splits are listed in both orders."""
    return game._setup.split_actions


def split(game: RoyaleGame, action: Action) -> None:
    casino, winner = game._ctx
    game._bb_split = game._setup.split_index[action]
    game._offer(D.PILE, winner, (casino, game._current))


def legal_pile(game: RoyaleGame) -> tuple[Action, ...]:
    return PILE_ACTIONS


def pick_pile(game: RoyaleGame, action: Action) -> None:
    casino, splitter = game._ctx
    winner = game._current
    split = game._setup.splits[game._bb_split]
    game._bb_split = -1
    pick = PILE_ACTIONS.index(action)
    game._emit(
        {
            "type": "black_box",
            "casino": casino + 1,
            "winner": winner,
            "splitter": splitter,
            "piles": [list(split[0]), list(split[1])],
            "pick": pick + 1,
        }
    )
    total = sum(split[pick])
    game._reward(winner, game._setup.rules.tiles.as_reward(total), "Black Box")


EFFECT = TileEffect(
    Tile.BLACK_BOX,
    reset=reset,
    payout=payout,
    decisions={
        D.SPLIT: Choice(legal_split, split),
        D.PILE: Choice(legal_pile, pick_pile),
    },
)
