"""Nice Dice (H1): the activator may put one die on the space of its face.

A die on a space bumps the one there back to its casino, and earns its
owner the space's reward (``nice_dice``) when this casino pays out. State:
``_nice`` (per face 1..6: owner * 2 + kind, -1 when free).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....position import check_keys
from ....state import Action
from ..common import BIGGIE, DIE, KIND_NAMES, NICE_NONE, RoyaleDecision
from ..tiles import Tile
from .base import Choice, StateCheck, TileEffect, check_space
from .power_play import check_power

if TYPE_CHECKING:
    from ..game import RoyaleGame

D = RoyaleDecision


def reset(game: RoyaleGame) -> None:
    game._nice = [-1] * 7


def activate(game: RoyaleGame, casino: int, seat: int) -> None:
    game._offer(D.NICE, seat, (casino,))
    if len(game._legal) == 1:  # no die can go on the tile: nothing to ask
        game._decision = D.NONE
        game._legal = ()


def legal_nice(game: RoyaleGame) -> tuple[Action, ...]:
    """Candidates: this turn's rolled dice not placed (any face, leaving the hand)
    and the dice just placed on the Nice Dice casino; a Biggie may go too. A
    space whose die would be bumped into a closed casino cannot be used."""
    casino = game._ctx[0]
    arena = game._arena
    placed_casino, placed_face, placed_dice, placed_biggies = game._placed
    here = placed_casino == casino
    legal = [NICE_NONE]
    for face in range(1, 7):
        bumped = game._nice[face]
        if bumped >= 0 and face - 1 == game._closed:
            continue  # the bumped die could not enter its closed casino
        on_casino = here and placed_face == face
        if arena[face * 2] or (on_casino and placed_dice):
            legal.append(f"nice {face}")
        if arena[face * 2 + 1] or (on_casino and placed_biggies):
            legal.append(f"nice {face} biggie")
    return tuple(legal)


def nice_pick(game: RoyaleGame, action: Action) -> None:
    if action == NICE_NONE:
        return
    seat = game._current
    casino = game._ctx[0]
    parts = action.split()
    face = int(parts[1])
    kind = BIGGIE if len(parts) > 2 else DIE
    arena = game._arena
    if arena[face * 2 + kind]:
        arena[face * 2 + kind] -= 1
        game._hands[seat][kind] -= 1
        source = "hand"
    else:
        game._remove_die(seat, kind, casino)
        game._placed[2 + kind] -= 1
        source = f"casino {casino + 1}"
    bumped = game._nice[face]
    if bumped >= 0:
        owner, bumped_kind = bumped >> 1, bumped & 1
        game._add_die(owner, bumped_kind, face - 1)
        game._emit_move(owner, KIND_NAMES[bumped_kind], 1, f"nice {face}", f"casino {face}")
        if face - 1 == game._power_casino:
            check_power(game)
    game._nice[face] = seat * 2 + kind
    game._emit_move(seat, KIND_NAMES[kind], 1, source, f"nice {face}")
    if casino == game._power_casino:
        check_power(game)


def payout(game: RoyaleGame, casino: int, awards: list[tuple[int, int]]) -> None:
    data = game._setup.rules.tiles
    for face in range(1, 7):
        die = game._nice[face]
        if die >= 0:
            game._reward(die >> 1, data.nice_dice[face - 1], "Nice Dice")


def check_state(check: StateCheck) -> None:
    faces = [str(face) for face in range(1, 7)]
    spaces = check_keys(check.state["nice_dice"], "tiles.nice_dice", faces)
    for face, die in spaces.items():
        check_space(die, f"tiles.nice_dice.{face}", check.setup.seats)
    check.idle("nice_dice", Tile.NICE_DICE, check.state["nice_dice"], {})


EFFECT = TileEffect(
    Tile.NICE_DICE,
    reset=reset,
    activate=activate,
    decisions={D.NICE: Choice(legal_nice, nice_pick)},
    payout=payout,
    check_state=check_state,
)
