"""Block It! (F1): the activator puts one group of grey dice on an open casino.

Nothing is asked once every group is used. State: ``_groups`` (the group
sizes left on the tile).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....position import check_list, refuse
from ....state import Action
from ..common import CASINOS, RoyaleDecision
from ..tiles import Tile
from .base import Choice, StateCheck, TileEffect
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


def check_state(check: StateCheck) -> None:
    """The groups left are some of the tile's, in their order."""
    sizes = check.setup.rules.tiles.block_it_groups
    groups = check_list(check.state["block_it"], "tiles.block_it")
    left = iter(sizes)
    if not all(any(group == size for size in left) for group in groups):
        refuse("tiles.block_it", f"{groups} is not what is left of {list(sizes)}")
    check.idle("block_it", Tile.BLOCK_IT, groups, [])


EFFECT = TileEffect(
    Tile.BLOCK_IT,
    reset=reset,
    activate=activate,
    decisions={D.BLOCK: Choice(legal_block, block)},
    check_state=check_state,
)
