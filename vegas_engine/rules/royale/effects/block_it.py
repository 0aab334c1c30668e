"""Block It! (F1): the activator puts one group of grey dice on an open casino.

Nothing is asked once every group is used. State: ``_groups`` (the group
sizes left on the tile).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....state import Action
from ..common import CASINOS, RoyaleDecision
from ..tiles import Tile
from .base import Choice, TileEffect
from .power_play import check_power

if TYPE_CHECKING:
    from ..game import RoyaleGame

D = RoyaleDecision


def reset(game: RoyaleGame) -> None:
    in_play = game._tile_at[Tile.BLOCK_IT] >= 0
    game._groups = list(game._setup.rules.tiles.block_it_groups) if in_play else []


def activate(game: RoyaleGame, casino: int, seat: int) -> None:
    if game._groups:
        game._offer(D.BLOCK, seat, (casino,))


def legal_block(game: RoyaleGame) -> tuple[Action, ...]:
    return tuple(
        f"block {size} {casino + 1}"
        for size in sorted(set(game._groups))
        for casino in range(CASINOS)
        if casino != game._closed
    )


def block(game: RoyaleGame, action: Action) -> None:
    _, size_text, casino_text = action.split()
    size, casino = int(size_text), int(casino_text) - 1
    game._groups.remove(size)
    game._counts[casino][game._n + 1] += size
    game._emit_move(game._n + 1, "grey", size, "tile", f"casino {casino + 1}")
    if casino == game._power_casino:
        check_power(game)


EFFECT = TileEffect(
    Tile.BLOCK_IT,
    reset=reset,
    activate=activate,
    decisions={D.BLOCK: Choice(legal_block, block)},
)
