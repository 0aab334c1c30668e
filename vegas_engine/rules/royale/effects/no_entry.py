"""No Entry! (E1): the activator closes another casino with the token, or keeps it.

Closing moves the track on (cyclic) and pays its space's reward. A closed
casino takes and gives no dice and its tile is inactive. State: ``_closed``
(the closed casino, -1) and ``_no_entry_track`` (moves of the track).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....position import check_equal, check_int, check_object, refuse
from ....state import Action
from ..common import CASINOS, CLOSE_ACTIONS, KEEP, RoyaleDecision
from ..tiles import Tile
from .base import Choice, StateCheck, TileEffect

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


def check_state(check: StateCheck) -> None:
    """The closed casino (not its own; closing moves the track), as the casinos say."""
    at = check.at
    no_entry = check_object(check.state["no_entry"], "tiles.no_entry", ("closed", "track"))
    track = check_int(no_entry["track"], "tiles.no_entry.track", 0)
    closed = no_entry["closed"]
    if closed is not None:
        closed = check_int(closed, "tiles.no_entry.closed", 1, CASINOS)
        if Tile.NO_ENTRY in at and closed == at[Tile.NO_ENTRY] + 1:
            refuse("tiles.no_entry.closed", "No Entry! closes another casino than its own")
        if track < 1:
            refuse("tiles.no_entry.track", "closing a casino moves the track on")
    check.idle("no_entry", Tile.NO_ENTRY, dict(no_entry), {"closed": None, "track": 0})
    for index, entry in enumerate(check.casinos):
        check_equal(
            entry["closed"], f"casinos[{index}].closed", closed == index + 1, "as No Entry! says"
        )


EFFECT = TileEffect(
    Tile.NO_ENTRY,
    reset=reset,
    activate=activate,
    decisions={D.CLOSE: Choice(legal_close, close)},
    check_state=check_state,
)
