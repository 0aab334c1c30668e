"""Handicap (F2): grey dice at set-up, and a reward for moving one onto the tile.

At round start grey dice go onto casinos 1..6 (``handicap_setup``). The
activator may move a grey die from an open casino onto a free reward space:
a chip, money, or a move (turn a remaining die and place it, or take one
back; offered only when one is possible). State: ``_handicap`` (free spaces
per kind).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....position import check_int, check_object
from ....state import Action
from ..common import CASINOS, TAKE_NONE, RoyaleDecision
from ..tiles import HANDICAP_KINDS, MOVE, Tile
from .base import Choice, StateCheck, TileEffect
from .power_play import check_power

if TYPE_CHECKING:
    from ..game import RoyaleGame

D = RoyaleDecision


def reset(game: RoyaleGame) -> None:
    data = game._setup.rules.tiles
    game._handicap = (
        [data.handicap_spaces.get(kind, 0) for kind in HANDICAP_KINDS]
        if game._tile_at[Tile.HANDICAP] >= 0
        else [0, 0, 0]
    )


def setup(game: RoyaleGame, casino: int) -> None:
    """The grey dice go onto the casinos (whichever casino the tile is at)."""
    grey = game._n + 1
    for where, count in enumerate(game._setup.rules.tiles.handicap_setup):
        if count:
            game._counts[where][grey] += count
            game._emit_move(grey, "grey", count, "tile", f"casino {where + 1}")


def activate(game: RoyaleGame, casino: int, seat: int) -> None:
    game._offer(D.HANDICAP, seat, (casino,))


def legal_take(game: RoyaleGame) -> tuple[Action, ...]:
    seat = game._current
    grey = game._n + 1
    free = game._handicap
    can_move = bool(game._move_options(seat))
    legal = [
        f"take {casino + 1} {kind}"
        for casino in range(CASINOS)
        if casino != game._closed and game._counts[casino][grey]
        for index, kind in enumerate(HANDICAP_KINDS)
        if free[index] and (kind != MOVE or can_move)
    ]
    legal.append(TAKE_NONE)
    return tuple(legal)


def take_grey(game: RoyaleGame, action: Action) -> None:
    if action == TAKE_NONE:
        return
    seat = game._current
    _, casino_text, kind = action.split()
    casino = int(casino_text) - 1
    grey = game._n + 1
    game._counts[casino][grey] -= 1
    game._handicap[HANDICAP_KINDS.index(kind)] -= 1
    game._emit_move(grey, "grey", 1, f"casino {casino + 1}", f"handicap {kind}")
    if casino == game._power_casino:
        check_power(game)
    if kind == MOVE:
        game._offer(D.MOVE, seat, game._ctx)
    else:
        game._reward(seat, game._setup.rules.tiles.handicap_rewards[kind], "Handicap")


def check_state(check: StateCheck) -> None:
    spaces = check.setup.rules.tiles.handicap_spaces
    handicap = check_object(check.state["handicap"], "tiles.handicap", HANDICAP_KINDS)
    for kind in HANDICAP_KINDS:
        check_int(handicap[kind], f"tiles.handicap.{kind}", 0, spaces.get(kind, 0))
    check.idle("handicap", Tile.HANDICAP, dict(handicap), dict.fromkeys(HANDICAP_KINDS, 0))


EFFECT = TileEffect(
    Tile.HANDICAP,
    reset=reset,
    setup=setup,
    activate=activate,
    decisions={D.HANDICAP: Choice(legal_take, take_grey)},
    check_state=check_state,
)
