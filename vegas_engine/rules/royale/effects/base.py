"""What a tile's effect is made of: :class:`TileEffect`, a few hooks the game calls.

Each tile side has one module in this package that holds all of its rules:
how its state is set up, what activating it does, the decisions it asks
(their legal actions and what each action does), its part of the payout and
of the round end, and what a position may hold of its state. The state
itself lives in the game's slots (each module says which are its own), so
that cloning a game stays one flat copy; the hooks are plain functions of
the game.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from ....position import check_choice, check_int, check_object, check_seat, refuse
from ....state import Action
from ..common import KIND_NAMES, Frame, RoyaleDecision, RoyaleSetup
from ..tiles import TILE_NAMES, RoyaleRules, Tile

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


@dataclass(frozen=True)
class StateCheck:
    """What a tile's position check reads (see :mod:`..positions`).

    ``state`` is the position's ``tiles`` object and ``casinos`` its casinos,
    both checked as objects with their fields; ``at`` says where each tile in
    play lies. A check refuses what no game can reach (``InvalidPositionError``).
    """

    setup: RoyaleSetup
    state: Mapping[str, Any]
    casinos: list[Any]
    at: Mapping[Tile, int]

    def idle(self, field: str, tile: Tile, value: Any, rest: Any) -> None:
        """A tile's state stays as set up while the tile is not in play."""
        if tile not in self.at and value != rest:
            refuse(f"tiles.{field}", f"{TILE_NAMES[tile]} is not in play: {rest!r}")


#: A tile's position check.
StateChecker = Callable[[StateCheck], None]


def check_dice(rules: RoyaleRules, value: Any, field: str) -> list[int]:
    """A seat's dice somewhere ({die, biggie}), at most what it has of each."""
    dice = check_object(value, field, KIND_NAMES)
    return [
        check_int(dice["die"], f"{field}.die", 0, rules.dice_per_seat),
        check_int(dice["biggie"], f"{field}.biggie", 0, rules.biggies_per_seat),
    ]


def check_space(value: Any, field: str, seats: int) -> None:
    """A die on a tile's space: its owner and kind."""
    die = check_object(value, field, ("owner", "die"))
    check_seat(die["owner"], f"{field}.owner", seats)
    check_choice(die["die"], f"{field}.die", KIND_NAMES)


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
    #: A position's state of the tile (``tiles.*``) checked (in ``STATE_CHECK_ORDER``).
    check_state: StateChecker | None = None
