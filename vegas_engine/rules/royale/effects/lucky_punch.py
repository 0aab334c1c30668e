"""Lucky Punch (A1): the activator hides 1-3 tokens, its left neighbour guesses.

A wrong guess pays the hider the reward for the count hidden
(``TileRules.lucky_punch``); a right one pays nothing. Only the hider sees the
count until the guess. State: ``_lp_tokens`` (the count hidden, 0 at rest).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....state import Action
from ..common import RoyaleDecision
from ..tiles import Tile
from .base import Choice, TileEffect

if TYPE_CHECKING:
    from ..game import RoyaleGame

D = RoyaleDecision


def reset(game: RoyaleGame) -> None:
    game._lp_tokens = 0


def activate(game: RoyaleGame, casino: int, seat: int) -> None:
    game._offer(D.HIDE, seat, (casino,))


def legal_hide(game: RoyaleGame) -> tuple[Action, ...]:
    return game._setup.hide_actions


def hide_tokens(game: RoyaleGame, action: Action) -> None:
    seat = game._current
    game._lp_tokens = int(action.split()[1])
    game._offer(D.GUESS, (seat + 1) % game._n, (seat, game._ctx[0]))


def legal_guess(game: RoyaleGame) -> tuple[Action, ...]:
    return game._setup.guess_actions


def guess_tokens(game: RoyaleGame, action: Action) -> None:
    guess = int(action.split()[1])
    hider = game._ctx[0]
    tokens = game._lp_tokens
    game._lp_tokens = 0
    won = guess != tokens
    game._emit(
        {
            "type": "lucky_punch",
            "seat": hider,
            "guesser": game._current,
            "tokens": tokens,
            "guess": guess,
            "won": won,
        }
    )
    if won:
        game._reward(hider, game._setup.rules.tiles.lucky_punch[tokens], "Lucky Punch")


EFFECT = TileEffect(
    Tile.LUCKY_PUNCH,
    reset=reset,
    activate=activate,
    decisions={
        D.HIDE: Choice(legal_hide, hide_tokens),
        D.GUESS: Choice(legal_guess, guess_tokens),
    },
)
