"""Knockout? (E2): each opponent in turn puts a remaining die into the bar.

Opponents are asked in seat order from the activator's left, each while it
holds dice and its bar holds fewer than ``knockout_bar``; after the last the
dice go back to their owners' hands (frames ``knockout`` and
``knockout_back``). State: ``_bar`` (each seat's dice and Biggies there).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....position import check_list, check_total
from ....state import Action
from ..common import (
    BAR_ACTIONS,
    BIGGIE,
    DIE,
    KIND_NAMES,
    OP_KNOCKOUT,
    OP_KNOCKOUT_BACK,
    Frame,
    RoyaleDecision,
)
from ..tiles import Tile
from .base import Choice, StateCheck, TileEffect, check_dice

if TYPE_CHECKING:
    from ..game import RoyaleGame

D = RoyaleDecision


def reset(game: RoyaleGame) -> None:
    game._bar = [[0, 0] for _ in range(game._n)]


def activate(game: RoyaleGame, casino: int, seat: int) -> None:
    n = game._n
    stack = game._stack
    stack.append((OP_KNOCKOUT_BACK, seat))
    for step in range(n - 1, 0, -1):
        stack.append((OP_KNOCKOUT, (seat + step) % n, seat, casino))


def legal_bar(game: RoyaleGame) -> tuple[Action, ...]:
    hand = game._hands[game._current]
    return tuple(BAR_ACTIONS[kind] for kind in (DIE, BIGGIE) if hand[kind])


def bar_die(game: RoyaleGame, action: Action) -> None:
    seat = game._current
    kind = BAR_ACTIONS.index(action)
    game._hands[seat][kind] -= 1
    game._bar[seat][kind] += 1
    game._emit_move(seat, KIND_NAMES[kind], 1, "hand", "bar")


def knock_out(game: RoyaleGame, frame: Frame) -> None:
    _, opponent, activator, casino = frame
    hand = game._hands[opponent]
    bar = game._bar[opponent]
    if (hand[0] or hand[1]) and bar[0] + bar[1] < game._setup.rules.tiles.knockout_bar:
        game._offer(D.BAR, opponent, (activator, casino))


def give_back(game: RoyaleGame, frame: Frame) -> None:
    seat = frame[1]
    bar = game._bar[seat]
    hand = game._hands[seat]
    for kind in (DIE, BIGGIE):
        if bar[kind]:
            hand[kind] += bar[kind]
            game._emit_move(seat, KIND_NAMES[kind], bar[kind], "bar", "hand")
            bar[kind] = 0


def check_state(check: StateCheck) -> None:
    """Each seat's dice in the bar: at most ``knockout_bar``."""
    rules = check.setup.rules
    places = check_list(check.state["bar"], "tiles.bar", check.setup.seats)
    for seat, place in enumerate(places):
        held = check_dice(rules, place, f"tiles.bar[{seat}]")
        check.idle(f"bar[{seat}]", Tile.KNOCKOUT, held, [0, 0])
        check_total(f"tiles.bar[{seat}]", "dice in the bar", sum(held), rules.tiles.knockout_bar)


EFFECT = TileEffect(
    Tile.KNOCKOUT,
    reset=reset,
    activate=activate,
    decisions={D.BAR: Choice(legal_bar, bar_die)},
    frames={OP_KNOCKOUT: knock_out, OP_KNOCKOUT_BACK: give_back},
    check_state=check_state,
)
