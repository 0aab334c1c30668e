"""What a tile's effect is made of: :class:`TileEffect`, a few hooks the game calls.

Each tile side has one module in this package that holds all of its rules:
how its state is set up, what activating it does, the decisions it asks
(their legal actions and what each action does), and its part of the
payout and of the round end. The state itself lives in the game's slots
(each module says which are its own), so that cloning a game stays one
flat copy; the hooks are plain functions of the game.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from ....state import Action
from ..common import Frame, RoyaleDecision
from ..tiles import Tile

if TYPE_CHECKING:
    from ..game import RoyaleGame

#: What an action of a decision does.
Handler = Callable[["RoyaleGame", Action], None]
#: A decision's legal actions, in their stable order.
Legal = Callable[["RoyaleGame"], tuple[Action, ...]]
#: A frame of the game's machine (see ``RoyaleGame._stack``) carried out.
Op = Callable[["RoyaleGame", Frame], None]
#: A hook that acts at one casino: ``(game, casino)``.
AtCasino = Callable[["RoyaleGame", int], None]
#: Activation: ``(game, casino, seat)``, the seat that activated the tile there.
Activation = Callable[["RoyaleGame", int, int], None]
#: A tile's payout: ``(game, casino, awards)``, the casino's (owner, card) awards.
Payout = Callable[["RoyaleGame", int, list[tuple[int, int]]], None]
#: A hook on the whole game (reset, round end).
GameHook = Callable[["RoyaleGame"], None]


class Choice(NamedTuple):
    """A decision a tile asks: its legal actions and what the chosen one does."""

    legal: Legal
    handle: Handler


def no_activation(game: RoyaleGame, casino: int, seat: int) -> None:
    """Placing on the tile does nothing at once (it acts around the payout)."""


@dataclass(frozen=True)
class TileEffect:
    """One tile side's rules, as hooks the game calls at fixed points.

    Every hook is optional. An inactive tile (its casino closed by No Entry!)
    is neither activated nor asked before payout, and pays nothing unless
    ``pays_when_closed``.
    """

    tile: Tile
    #: The tile's state back to rest: at every round start (in play or not) and at game end.
    reset: GameHook | None = None
    #: Round start, after every tile is on its casino, for a tile in play: ``(game, casino)``.
    setup: AtCasino | None = None
    #: Dice from a roll or a Power Play turn were placed on its casino (or My Choice's face 4).
    activate: Activation = no_activation
    #: The decisions it asks, each with its legal actions and handler.
    decisions: Mapping[RoyaleDecision, Choice] = field(default_factory=dict)
    #: Frames of its own on the game's machine, by frame number.
    frames: Mapping[int, Op] = field(default_factory=dict)
    #: When nobody holds dice, before any casino pays: ``(game, casino)``, in casino order.
    before_payout: AtCasino | None = None
    #: Right after its casino paid out.
    payout: Payout | None = None
    #: The payout acts even while the casino is closed (a token already taken).
    pays_when_closed: bool = False
    #: At round end, after the payouts (the order of the tiles is ``ROUND_END_ORDER``).
    round_end: GameHook | None = None
