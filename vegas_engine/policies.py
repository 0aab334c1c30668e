"""Built-in policies for tests and demos: ``random`` and ``greedy``, and greedy's valuations.

A policy picks one legal action for a seat. Its own randomness comes from the
``rng`` it is given, never from the game's generator, so policies cannot change
the dice.

``greedy`` is one-ply: for each legal action it asks :func:`expected_gain` for
the money the seat would gain if the round were scored right after that action
(the note it would win at the affected casino, a rainbow card counted as the
mean note left in the pile). It takes the largest gain; on equal gain it
spends the fewest dice (:func:`dice_spent`), then takes the first action in
the legal order.

The valuations are heuristics of these policies, not rules: each rule system
has its own here, found by rule id (:data:`VALUATIONS`). They read the game's
state as the rule classes keep it (the engine's own policies may), so greedy
stays fast enough for the Monte Carlo house bot's playouts, and they change
nothing.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from .description import GameDescription
from .rules.cardgame import CardDecision, CardGame, card_dice, card_face
from .rules.dice import (
    BIGGIE,
    KICK_TARGETS,
    NEUTRAL_OWNER,
    PLACE_TARGETS,
    RAINBOW,
    SLOT,
    DiceDecision,
    DiceGame,
    payout_order,
    rank_slot,
)
from .rules.royale.common import PASS, PLACE_FACE, RoyaleDecision
from .rules.royale.game import RoyaleGame
from .state import Action, LogMode, State

Policy = Callable[[State, int, random.Random], Action]


def random_policy(state: State, seat: int, rng: random.Random) -> Action:
    return rng.choice(state.legal_actions(seat))


def greedy_policy(state: State, seat: int, rng: random.Random) -> Action:
    valuation = VALUATIONS[state.description.rules]
    best: Action | None = None
    best_key = (0.0, 0)
    for action in state.legal_actions(seat):
        key = (valuation.gain(state, action, seat), -valuation.dice_spent(state, action, seat))
        if best is None or key > best_key:
            best, best_key = action, key
    assert best is not None, "a seat that must decide always has a legal action"
    return best


POLICIES: Mapping[str, Policy] = {"random": random_policy, "greedy": greedy_policy}


def policy_rng(seed: int, seat: int) -> random.Random:
    """The generator a seat's policy uses: fixed by the game seed and the seat."""
    return random.Random(f"{seed}/{seat}")


def play(
    game: GameDescription, seed: int, policies: list[Policy], *, log: LogMode | bool | str = True
) -> State:
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


# ---------------------------------------------------------------- valuations


@dataclass(frozen=True)
class Valuation:
    """Greedy's one-ply estimates for one rule system's states."""

    #: Money ``seat`` gains if the round were scored right after it takes ``action``.
    gain: Callable[[State, Action, int], float]
    #: How many dice ``action`` spends (greedy keeps dice on equal gain).
    dice_spent: Callable[[State, Action, int], int]


def expected_gain(state: State, action: Action, seat: int) -> float:
    """Money ``seat`` gains if the round were scored right after it takes ``action``."""
    return VALUATIONS[state.description.rules].gain(state, action, seat)


def dice_spent(state: State, action: Action, seat: int) -> int:
    """How many dice ``action`` takes out of ``seat``'s hand."""
    return VALUATIONS[state.description.rules].dice_spent(state, action, seat)


def _dice_gain(state: State, action: Action, seat: int) -> float:
    """Rainbow cards count as the mean note left in the pile: their expected replacement."""
    assert isinstance(state, DiceGame)
    if seat != state._current or action not in state._legal:
        return 0.0
    if state._decision is DiceDecision.CHIP:
        chips = state._setup.chips
        assert chips is not None
        colour = chips.colour_of(action)
        held = state._chips_held[seat]
        return 0.0 if colour is None else float(chips.money([*held, colour]) - chips.money(held))
    n = state._n
    if state._decision is DiceDecision.PLACE:
        casino, face = PLACE_TARGETS[action]
        dice, biggies, _, neutral = state._shown(face)
        counts = state._counts[casino][:]
        counts[seat] += dice + 2 * biggies
        counts[n] += neutral
        slot = state._slot
        if casino == SLOT:
            slot = (
                slot
                + [(seat, face, 1)] * dice
                + [(seat, face, 2)] * biggies
                + [(n, face, 1)] * neutral
            )
    else:
        owner, kind = KICK_TARGETS[action]
        owner = n if owner == NEUTRAL_OWNER else owner
        casino = state._kick_casino
        counts = state._counts[casino][:]
        counts[owner] -= 2 if kind == BIGGIE else 1
        slot = state._slot
        if casino == SLOT:
            slot = slot[:]
            weight = 2 if kind == BIGGIE else 1
            for index in range(len(slot) - 1, state._slot_from - 1, -1):
                if slot[index][0] == owner and slot[index][2] == weight:
                    del slot[index]
                    break
    before = _dice_award(state, seat, casino, state._counts[casino], state._slot)
    return _dice_award(state, seat, casino, counts, slot) - before


def _dice_award(
    state: DiceGame, seat: int, casino: int, counts: list[int], slot: list[tuple[int, int, int]]
) -> float:
    ranked = rank_slot(slot)[0] if casino == SLOT else payout_order(counts)
    if seat not in ranked:
        return 0.0
    place = ranked.index(seat)
    notes = state._notes[casino]
    if place >= len(notes):
        return 0.0
    if RAINBOW not in notes:
        return float(sorted(notes, reverse=True)[place])
    pile = [note for note in state._pile if note != RAINBOW]
    rainbow = sum(pile) / len(pile) if pile else 0.0
    values = sorted((rainbow if note == RAINBOW else float(note) for note in notes), reverse=True)
    return values[place]


def _dice_spent(state: State, action: Action, seat: int) -> int:
    assert isinstance(state, DiceGame)
    if action not in PLACE_TARGETS:
        return 0
    return sum(state._shown(PLACE_TARGETS[action][1]))


def _card_gain(state: State, action: Action, seat: int) -> float:
    """Other seats' hidden choices this turn are not known, so they are not counted."""
    assert isinstance(state, CardGame)
    if action not in state._legal.get(seat, ()):
        return 0.0
    if state._decision is CardDecision.CHIP:
        chips = state._chips
        assert chips is not None
        colour = chips.colour_of(action)
        held = state._chips_held[seat]
        return 0.0 if colour is None else float(chips.money([*held, colour]) - chips.money(held))
    played = state._legal[seat][action]
    gain = 0.0
    for casino in {card_face(card) - 1 for card in played}:
        counts = [sum(card_dice(c) for c in cards) for cards in state._placed[casino]]
        before = _card_award(state, seat, casino, counts)
        for card in played:
            if card_face(card) - 1 == casino:
                counts[seat] += card_dice(card)
        gain += _card_award(state, seat, casino, counts) - before
    return gain


def _card_award(state: CardGame, seat: int, casino: int, counts: list[int]) -> float:
    # The payout order alone (not rank_casino's cancelled groups), and the notes sorted
    # only for a seat that is paid: this runs for every action of every playout.
    ranked = payout_order(counts)
    if seat not in ranked:
        return 0.0
    place = ranked.index(seat)
    notes = state._notes[casino]
    return float(sorted(notes, reverse=True)[place]) if place < len(notes) else 0.0


def _card_spent(state: State, action: Action, seat: int) -> int:
    return action.count(" ") if action.startswith("play ") else 0


def _royale_gain(state: State, action: Action, seat: int) -> float:
    """Card value won at the casino; a chip pass costs the chip's value; tiles count 0."""
    assert isinstance(state, RoyaleGame)
    if state._decision is not RoyaleDecision.PLACE or seat != state._current:
        return 0.0
    if action == PASS:
        return -float(state._setup.rules.chip_value)
    face = PLACE_FACE.get(action)
    if face is None:
        return 0.0
    casino = face - 1
    counts = state._counts[casino][:]
    counts[seat] += state._arena[face * 2] + 2 * state._arena[face * 2 + 1]
    return _royale_award(state, seat, casino, counts) - _royale_award(
        state, seat, casino, state._counts[casino]
    )


def _royale_award(state: RoyaleGame, seat: int, casino: int, counts: list[int]) -> float:
    ranked = payout_order(counts)
    if seat not in ranked:
        return 0.0
    place = ranked.index(seat)
    cards = sorted(state._cards[casino], reverse=True)
    return float(cards[place]) if place < len(cards) else 0.0


def _royale_spent(state: State, action: Action, seat: int) -> int:
    assert isinstance(state, RoyaleGame)
    face = PLACE_FACE.get(action)
    if face is None or state._decision is not RoyaleDecision.PLACE or seat != state._current:
        return 0
    return state._arena[face * 2] + state._arena[face * 2 + 1]


_DICE = Valuation(_dice_gain, _dice_spent)

#: Each rule system's valuation, by rule id.
VALUATIONS: Mapping[str, Valuation] = {
    "classic": _DICE,
    "boulevard": _DICE,
    "sixdice": _DICE,
    "cardgame": Valuation(_card_gain, _card_spent),
    "royale": Valuation(_royale_gain, _royale_spent),
}
