"""Power Play (D2): the token, and the turn it gives.

A seat activating the casino with the sole majority there (imaginary owners
included) takes the token, from the tile or its holder. At the start of the
holder's next turn it may roll as usual or turn one remaining die to any face
and place it (``power``). The token returns to the tile when nobody has a
clear majority there (:func:`check_power`, after any die comes or goes).
State: ``_power`` (the holder, -1 on the tile), ``_power_ready`` (the option is
offered at its next turn) and ``_power_casino`` (the tile's casino, -1).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....position import check_bool, check_object, check_seat, refuse
from ....state import Action
from ..common import KIND_NAMES, OP_TURN, ROLL, RoyaleDecision
from ..tiles import TILE_CODES, Tile, sole_majority
from .base import Choice, StateCheck, TileEffect

if TYPE_CHECKING:
    from ..game import RoyaleGame

D = RoyaleDecision


def reset(game: RoyaleGame) -> None:
    game._power = -1
    game._power_ready = False
    game._power_casino = game._tile_at[Tile.POWER_PLAY]


def activate(game: RoyaleGame, casino: int, seat: int) -> None:
    if sole_majority(game._counts[casino]) == seat:
        game._power = seat
        game._power_ready = True
        game._emit(
            {
                "type": "token",
                "tile": TILE_CODES[Tile.POWER_PLAY],
                "holder": seat,
                "casino": casino + 1,
            }
        )


def legal_power(game: RoyaleGame) -> tuple[Action, ...]:
    return (ROLL, *game._turn_options(game._current))


def power_turn(game: RoyaleGame, action: Action) -> None:
    seat = game._current
    if action == ROLL:
        game._roll(seat)
        return
    _, kind_name, face_text = action.split()
    kind = KIND_NAMES.index(kind_name)
    face = int(face_text)
    casino = face - 1
    game._hands[seat][kind] -= 1
    game._add_die(seat, kind, casino)
    game._placed = [casino, face, 1 - kind, kind]
    if game._log is not None:
        game._log_place(seat, casino, 1 - kind, kind)
    game._stack.append((OP_TURN, (seat + 1) % game._n))
    if casino == game._power_casino:
        check_power(game)
    if game._tiles[casino] >= 0:
        game._activate(casino, seat)


def check_power(game: RoyaleGame) -> None:
    """RULES.md: the Power Play token returns to the tile when no player (imaginary
    ones included) has a clear majority there. A clear majority of another
    player leaves it with its holder: only activating the casino takes it."""
    casino = game._power_casino
    if game._power >= 0 and sole_majority(game._counts[casino]) < 0:
        game._power = -1
        game._power_ready = False
        game._emit(
            {
                "type": "token",
                "tile": TILE_CODES[Tile.POWER_PLAY],
                "holder": None,
                "casino": casino + 1,
            }
        )


def check_state(check: StateCheck) -> None:
    """A holder, if any; only a holder may have the option ready."""
    power = check_object(check.state["power_play"], "tiles.power_play", ("holder", "ready"))
    if power["holder"] is not None:
        check_seat(power["holder"], "tiles.power_play.holder", check.setup.seats)
    if check_bool(power["ready"], "tiles.power_play.ready") and power["holder"] is None:
        refuse("tiles.power_play.ready", "only a holder may use the token")
    check.idle("power_play", Tile.POWER_PLAY, dict(power), {"holder": None, "ready": False})


EFFECT = TileEffect(
    Tile.POWER_PLAY,
    reset=reset,
    activate=activate,
    decisions={D.POWER: Choice(legal_power, power_turn)},
    check_state=check_state,
)
