"""determinize(): a searching bot's state must match everything its seat saw."""

from __future__ import annotations

import json
import random

import pytest

from vegas_engine import describe, determinize, new_game

GAMES = [
    ("classic", 4, {}),
    ("classic", 3, {"neutral_dice": True}),
    ("boulevard", 2, {}),
    ("boulevard", 4, {}),
    ("boulevard", 6, {}),
]


@pytest.mark.parametrize(("rules", "seats", "options"), GAMES)
def test_determinized_state_shows_the_seat_exactly_what_it_saw(
    rules: str, seats: int, options: dict[str, bool]
) -> None:
    for game in range(6):
        state = new_game(describe(rules, seats, options), game, log=False)
        chooser = random.Random(game)
        while not state.is_terminal():
            seat = state.to_move()[0]
            seen = state.observe(seat)
            sampled = determinize(seen, seed=1000 + game)
            assert sampled.observe(seat) == seen
            state.apply_action(chooser.choice(state.legal_actions()))
        assert determinize(state.observe(0), seed=1).observe(0) == state.observe(0)


def test_observation_never_reveals_the_seed_or_the_pile_order() -> None:
    state = new_game(describe("boulevard", 4), 424242)
    text = json.dumps(state.observe(0))
    assert "424242" not in text
    assert "seed" not in text
    assert "pile" not in json.dumps(sorted(state.observe(0))).replace("pile_size", "")


def test_determinized_states_with_different_seeds_differ_only_in_hidden_chance() -> None:
    state = new_game(describe("classic", 4), 3, log=False)
    seen = state.observe(0)
    first, second = determinize(seen, seed=1), determinize(seen, seed=2)
    finals = []
    for sampled in (first, second):
        chooser = random.Random(0)
        while not sampled.is_terminal():
            sampled.apply_action(chooser.choice(sampled.legal_actions()))
        result = sampled.result()
        assert result is not None
        finals.append([seat.money for seat in result])
    # Different seeds give different futures (pile order and dice): a searching
    # bot really samples, it does not replay the true game.
    assert finals[0] != finals[1]
