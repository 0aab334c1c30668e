"""My Choice (H2): roll the black dice and take the effect of one face.

Faces (``my_choice``): a reward, activate another casino's tile (face 4),
move a die (face 5: as Handicap's move) or put a remaining die on the golden
space (face 6), which pays ``golden`` at round end while this casino is open.
State: ``_gold`` (the golden space's die: owner * 2 + kind, -1 when free).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....state import Action
from ..common import BIGGIE, CASINOS, DIE, GOLD_ACTIONS, KIND_NAMES, RoyaleDecision
from ..tiles import ACTIVATE, GOLD, MOVE, Reward, Tile
from .base import Choice, StateCheck, TileEffect, check_space

if TYPE_CHECKING:
    from ..game import RoyaleGame

D = RoyaleDecision


def reset(game: RoyaleGame) -> None:
    game._gold = -1


def activate(game: RoyaleGame, casino: int, seat: int) -> None:
    game._roll_black(seat, Tile.MY_CHOICE)
    game._offer(D.CHOOSE, seat, (casino,))


def legal_choose(game: RoyaleGame) -> tuple[Action, ...]:
    return tuple(f"choose {face}" for face in sorted(set(game._black)))


def choose(game: RoyaleGame, action: Action) -> None:
    """Any rolled face may be chosen; an effect that cannot happen (no other
    active tile, no move possible, no die in hand or the golden space taken)
    does nothing."""
    seat = game._current
    casino = game._ctx[0]
    effect = game._setup.rules.tiles.my_choice[int(action.split()[1]) - 1]
    if isinstance(effect, Reward):
        game._reward(seat, effect, "My Choice")
    elif effect == ACTIVATE:
        if activatable(game, casino):
            game._offer(D.ACTIVATE, seat, (casino,))
    elif effect == MOVE:
        if game._move_options(seat):
            game._offer(D.MOVE, seat, (casino,))
    elif effect == GOLD:
        hand = game._hands[seat]
        if game._gold < 0 and (hand[0] or hand[1]):
            game._offer(D.GOLD, seat, (casino,))


def activatable(game: RoyaleGame, casino: int) -> list[int]:
    return [
        other
        for other in range(CASINOS)
        if other != casino and other != game._closed and game._tiles[other] >= 0
    ]


def legal_activate(game: RoyaleGame) -> tuple[Action, ...]:
    return tuple(f"activate {other + 1}" for other in activatable(game, game._ctx[0]))


def activate_other(game: RoyaleGame, action: Action) -> None:
    game._activate(int(action.split()[1]) - 1, game._current)


def legal_gold(game: RoyaleGame) -> tuple[Action, ...]:
    hand = game._hands[game._current]
    return tuple(GOLD_ACTIONS[kind] for kind in (DIE, BIGGIE) if hand[kind])


def gold_die(game: RoyaleGame, action: Action) -> None:
    seat = game._current
    kind = GOLD_ACTIONS.index(action)
    game._hands[seat][kind] -= 1
    game._take_from_arena(kind)
    game._gold = seat * 2 + kind
    game._emit_move(seat, KIND_NAMES[kind], 1, "hand", "gold")


def round_end(game: RoyaleGame) -> None:
    """The golden space pays; like the rest of the tile, not while its casino is closed."""
    if game._gold >= 0 and game._tile_at[Tile.MY_CHOICE] != game._closed:
        game._reward(game._gold >> 1, Reward(money=game._setup.rules.tiles.golden), "My Choice")


def check_state(check: StateCheck) -> None:
    golden = check.state["golden"]
    if golden is not None:
        check_space(golden, "tiles.golden", check.setup.seats)
    check.idle("golden", Tile.MY_CHOICE, golden, None)


EFFECT = TileEffect(
    Tile.MY_CHOICE,
    reset=reset,
    activate=activate,
    decisions={
        D.CHOOSE: Choice(legal_choose, choose),
        D.ACTIVATE: Choice(legal_activate, activate_other),
        D.GOLD: Choice(legal_gold, gold_die),
    },
    round_end=round_end,
    check_state=check_state,
)
