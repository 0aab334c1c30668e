"""Pay Day (D1): the activator is paid ``pay_day_per_casino`` per casino holding its dice.

Amounts in ``paid_as_chips`` are paid as chips. No state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..common import RoyaleDecision
from ..tiles import Tile
from .base import TileEffect

if TYPE_CHECKING:
    from ..game import RoyaleGame

D = RoyaleDecision


def activate(game: RoyaleGame, casino: int, seat: int) -> None:
    data = game._setup.rules.tiles
    present = sum(1 for row in game._counts if row[seat])
    if present:
        game._reward(seat, data.as_reward(present * data.pay_day_per_casino), "Pay Day")


EFFECT = TileEffect(Tile.PAY_DAY, activate=activate)
