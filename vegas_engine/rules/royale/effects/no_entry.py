"""No Entry! (E1): the activator closes another casino with the token, or keeps it.

Closing moves the track on (cyclic) and pays its space's reward. A closed
casino takes and gives no dice and its tile is inactive. State: ``_closed``
(the closed casino, -1) and ``_no_entry_track`` (moves of the track).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....state import Action
from ..common import CASINOS, CLOSE_ACTIONS, KEEP, RoyaleDecision
from ..tiles import Tile
from .base import Choice, TileEffect

if TYPE_CHECKING:
    from ..game import RoyaleGame

D = RoyaleDecision


def reset(game: RoyaleGame) -> None:
    game._closed = -1
    game._no_entry_track = 0


def activate(game: RoyaleGame, casino: int, seat: int) -> None:
    game._offer(D.CLOSE, seat, (casino,))


def legal_close(game: RoyaleGame) -> tuple[Action, ...]:
    own = game._ctx[0]
    return (
        *(
            CLOSE_ACTIONS[casino + 1]
            for casino in range(CASINOS)
            if casino not in (own, game._closed)
        ),
        KEEP,
    )


def close(game: RoyaleGame, action: Action) -> None:
    seat = game._current
    if action == KEEP:
        game._emit(
            {"type": "no_entry", "seat": seat, "closed": None, "track": game._no_entry_track}
        )
        return
    game._closed = int(action.split()[1]) - 1
    game._no_entry_track += 1
    track = game._setup.rules.tiles.no_entry_track
    game._emit(
        {
            "type": "no_entry",
            "seat": seat,
            "closed": game._closed + 1,
            "track": game._no_entry_track,
        }
    )
    game._reward(seat, track[(game._no_entry_track - 1) % len(track)], "No Entry!")


EFFECT = TileEffect(
    Tile.NO_ENTRY,
    reset=reset,
    activate=activate,
    decisions={D.CLOSE: Choice(legal_close, close)},
)
