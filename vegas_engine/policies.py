"""Built-in policies for tests and demos: ``random`` and ``greedy``.

A policy picks one legal action for a seat. Its own randomness comes from the
``rng`` it is given, never from the game's generator, so policies cannot change
the dice.

``greedy`` is one-ply: for each legal action it asks the state for the money
the seat would gain if the round were scored right after that action
(:meth:`State.expected_gain`: the note it would win at the affected casino,
a rainbow card counted as the mean note left in the pile). It takes the
largest gain; on equal gain it spends the fewest dice, then takes the first
action in the legal order.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping

from .description import GameDescription
from .state import Action, State

Policy = Callable[[State, int, random.Random], Action]


def random_policy(state: State, seat: int, rng: random.Random) -> Action:
    return rng.choice(state.legal_actions(seat))


def greedy_policy(state: State, seat: int, rng: random.Random) -> Action:
    best: Action | None = None
    best_key = (0.0, 0)
    for action in state.legal_actions(seat):
        key = (state.expected_gain(action, seat), -state.dice_placed_by(action, seat))
        if best is None or key > best_key:
            best, best_key = action, key
    assert best is not None, "a seat that must decide always has a legal action"
    return best


POLICIES: Mapping[str, Policy] = {"random": random_policy, "greedy": greedy_policy}


def policy_rng(seed: int, seat: int) -> random.Random:
    """The generator a seat's policy uses: fixed by the game seed and the seat."""
    return random.Random(f"{seed}/{seat}")


def play(game: GameDescription, seed: int, policies: list[Policy], *, log: bool = True) -> State:
    """Play one game of ``game`` dealt by ``seed``, seat ``i`` deciding with ``policies[i]``."""
    from . import new_game

    if len(policies) != game.seats:
        raise ValueError(f"need one policy per seat ({game.seats}), got {len(policies)}")
    state = new_game(game, seed, log=log)
    rngs = [policy_rng(seed, seat) for seat in range(game.seats)]
    while True:
        movers = state.to_move()
        if not movers:
            return state
        for seat in movers:
            state.apply_action(policies[seat](state, seat, rngs[seat]), seat)
