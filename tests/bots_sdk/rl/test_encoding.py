"""The fixed action spaces, the observation vectors and the returns the RL bridges share."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("numpy", reason="the rl extra is not installed: pip install '.[rl]'")

import numpy as np

from bots_sdk.rl import _engine
from bots_sdk.rl.encoding import (
    ActionSpace,
    ActionSpaceError,
    ObservationEncoder,
    action_space,
    main,
    pairwise_returns,
)
from tests.bots_sdk.random_games import CONFIGS, config_id, observations
from tests.bots_sdk.rl.reference_encoding import ReferenceEncoder
from vegas_engine import describe, new_game
from vegas_engine.rules.cardgame import card_text

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_every_observation_fits_the_vector_and_every_legal_action_the_space(
    config: tuple[str, int, dict[str, Any]],
) -> None:
    rules, seats, options = config
    table = _engine.table(rules, seats, options)
    encoder, space = ObservationEncoder(table), action_space(table)
    assert sum(segment.size for segment in encoder.segments) == encoder.size
    assert len({segment.name for segment in encoder.segments}) == len(encoder.segments)
    vectors = set()
    for observation in observations(rules, seats, options, games=4):
        vector = encoder.encode(observation)
        assert vector.shape == (encoder.size,) and vector.dtype == np.float32
        assert np.all(vector >= encoder.low) and np.all(vector <= encoder.high)
        mask = space.mask(observation["legal_actions"])
        assert [space.actions[i] for i in np.flatnonzero(mask)] == sorted(
            observation["legal_actions"], key=space.index
        )
        vectors.add(vector.tobytes())
    assert len(vectors) > 50  # the vector follows the game


def test_seats_are_counted_from_the_observer() -> None:
    table = _engine.table("classic", 3)
    encoder = ObservationEncoder(table)
    money = next(s for s in encoder.segments if s.name == "money")
    observation = _engine.observe(_engine.new_state(table, 1), 1)
    observation = {**observation, "money": [100_000, 200_000, 300_000]}
    vector = encoder.encode(observation)
    # Seat 1 observes: itself first, then seat 2, then seat 0.
    assert vector[money.start : money.start + 3].tolist() == pytest.approx([0.2, 0.3, 0.1])


def test_action_spaces_hold_what_each_table_allows() -> None:
    classic = action_space(_engine.table("classic", 2))
    assert classic.actions == tuple(f"place {face}" for face in range(1, 7))
    boulevard = action_space(_engine.table("boulevard", 5))
    assert {"kick 4 biggie", "kick neutral die", "slot 6"} <= set(boulevard.actions)
    plain = action_space(_engine.table("boulevard", 5, {"neutral_dice": False, "biggies": False}))
    assert "kick 4 die" in plain.actions
    assert not {"kick 4 biggie", "kick neutral die"} & set(plain.actions)
    cards = action_space(_engine.table("cardgame", 3)).actions
    assert len(cards) == 12 + 72 + 30  # 1 card, 2 cards, 3-5 cards of one face
    assert "play 4 4 4 4 4D" in cards and "play 4D 4D" not in cards  # one double per face
    assert len(action_space(_engine.table("royale", 3, {"tiles": 0}))) == 8
    with pytest.raises(ActionSpaceError, match="'slot 3' is not in this table's action space"):
        classic.index("slot 3")


def test_returns_are_zero_sum_pairwise_comparisons() -> None:
    assert pairwise_returns([1, 2]) == [1.0, -1.0]
    assert pairwise_returns([1, 1]) == [0.0, 0.0]
    assert pairwise_returns([2, 1, 3, 3]) == pytest.approx([1 / 3, 1.0, -2 / 3, -2 / 3])
    for ranks in ([1, 2, 3], [1, 1, 3], [3, 1, 2, 2, 5]):
        assert sum(pairwise_returns(ranks)) == pytest.approx(0.0)


def test_docs_name_every_segment_of_every_table() -> None:
    """docs/rl.md's tables list exactly the segments the encoder writes."""
    text = (Path(__file__).resolve().parents[3] / "docs" / "rl.md").read_text()
    section = text.split("## The observation vector")[1].split("\n## ")[0]
    documented = {
        name
        for row in re.findall(r"^\| (`[^|]*) \|", section, re.M)
        for name in re.findall(r"`([a-z_.C]+)`", row)
    }
    written = {
        re.sub(r"casino\d", "casinoC", segment.name)
        for rules, seats, options in CONFIGS
        for segment in ObservationEncoder(_engine.table(rules, seats, options)).segments
    }
    assert documented == written


def test_the_layout_command_prints_segments_and_actions(capsys: pytest.CaptureFixture[str]) -> None:
    main(["--rules", "classic", "--seats", "2", "--options", '{"chips": true}'])
    printed = capsys.readouterr().out
    assert "observation vector: 167 values" in printed and "chips.held" in printed
    assert "actions: 12" in printed and "chip none" in printed


def test_an_observation_of_another_table_is_refused() -> None:
    encoder = ObservationEncoder(_engine.table("classic", 2))
    observation = _engine.observe(_engine.new_state(_engine.table("classic", 3), 0), 0)
    with pytest.raises(
        ValueError, match="classic with 3 seats; this encoder is for classic with 2"
    ):
        encoder.encode(observation)


#: The tables of the random games plus more seat counts and options, so each
#: rule system is compared at several tables.
EQUIVALENCE_CONFIGS: list[tuple[str, int, dict[str, Any]]] = [
    *CONFIGS,
    ("classic", 4, {"neutral_dice": True}),
    ("boulevard", 4, {"slot_machine": False, "kickers": False}),
    ("boulevard", 5, {"biggies": False, "neutral_dice": False}),
    ("cardgame", 4, {"sequential": True, "chips": True}),
    ("sixdice", 3, {}),
    ("sixdice", 5, {"slot_machine": True}),
    ("sixdice", 4, {"neutral_dice": True}),
    ("royale", 4, {}),
    ("royale", 2, {"tiles": 6}),
]


def reference_mask(space: ActionSpace, legal: list[str]) -> np.ndarray[Any, Any]:
    """The mask as it was built before masks were kept: one array per call."""
    mask = np.zeros(len(space), dtype=np.int8)
    mask[[space.actions.index(action) for action in legal]] = 1
    return mask


def random_states(rules: str, seats: int, options: dict[str, Any], games: int) -> Iterator[Any]:
    """Every state of ``games`` random games, the final ones included."""
    for seed in range(games):
        state = new_game(describe(rules, seats, options), seed, log=False)
        rng = random.Random(seed)
        yield state
        while movers := state.to_move():
            seat = rng.choice(movers)
            state.apply_action(rng.choice(state.legal_actions(seat)), seat)
            yield state


@pytest.mark.parametrize("config", EQUIVALENCE_CONFIGS, ids=config_id)
def test_the_fast_encoder_writes_exactly_the_reference_vector(
    config: tuple[str, int, dict[str, Any]],
) -> None:
    """Every seat's view of every state of random games: the same float32 vector,
    bit for bit, as the reference encoder of the seat's observation, whether the
    fast encoder reads the observation, the state (a dice game's own numbers) or
    a batch of states; the same layout and the same masks."""
    rules, seats, options = config
    table = _engine.table(rules, seats, options)
    fast, reference = ObservationEncoder(table), ReferenceEncoder(table)
    space = action_space(table)
    assert fast.segments == reference.segments and fast.size == reference.size
    assert np.array_equal(fast.low, reference.low) and np.array_equal(fast.high, reference.high)
    buffer = np.full(fast.size, -7.0, dtype=np.float32)
    batch = np.full((seats, fast.size), -7.0, dtype=np.float32)
    compared = 0
    for state in random_states(rules, seats, options, games=3):
        fast.encode_states([(state, seat) for seat in range(seats)], batch)
        for seat in range(seats):
            observation = state.observe(seat)
            expected = reference.encode(observation)
            assert np.array_equal(fast.encode(observation), expected)
            assert np.array_equal(fast.encode(observation, out=buffer), expected)
            assert np.array_equal(fast.encode_state(state, seat), expected)
            assert np.array_equal(batch[seat], expected)
            legal = observation["legal_actions"]
            mask = space.mask(legal)
            assert mask.dtype == np.int8 and np.array_equal(mask, reference_mask(space, legal))
            mask[:] = 1  # a caller's change to its mask must not reach the next one
            assert np.array_equal(space.mask(tuple(legal)), reference_mask(space, legal))
            compared += 1
    assert compared > 100


def test_a_dice_games_numbers_are_read_only_where_the_observation_shows_them() -> None:
    """The dice view the fast encoder reads says what the observation says."""
    table = _engine.table("boulevard", 3)
    state = _engine.new_state(table, 4)
    view = _engine.dice_view(state)
    assert view is not None
    observation = state.observe(1)
    assert (view.round, view.start, view.current) == (
        observation["round"],
        observation["start_player"],
        observation["current_player"],
    )
    assert view.pile_size == observation["pile_size"] and view.decision == observation["decision"]
    assert _engine.dice_view(_engine.new_state(_engine.table("royale", 3), 4)) is None


def test_a_card_games_view_holds_the_seats_own_cards_and_only_sizes_of_the_others() -> None:
    table = _engine.table("cardgame", 3)
    state = _engine.new_state(table, 4)
    seat = state.to_move()[0]
    state.apply_action(state.legal_actions(seat)[0], seat)  # a hidden choice
    for observer in range(3):
        view = _engine.card_view(state, observer)
        assert view is not None
        observation = state.observe(observer)
        assert sorted(card_text(card) for card in view.hand) == sorted(observation["hand"])
        assert view.my_choice == observation["my_choice"]
        assert view.hand_sizes == observation["hand_sizes"]
    assert _engine.card_view(state, 1) != _engine.card_view(state, 2)
    assert _engine.card_view(_engine.new_state(_engine.table("classic", 3), 4), 0) is None


def test_royales_view_shows_the_lucky_punchs_tokens_to_their_hider_only() -> None:
    """The one number of a Royale view that differs by seat: found in random games."""
    for state in random_states("royale", 3, {"tiles": 6}, games=40):
        if state.decision().value == "guess":
            break
    else:
        pytest.fail("no random game reached a Lucky Punch guess")
    views = [_engine.royale_view(state, seat) for seat in range(3)]
    punches = [view.lucky_punch for view in views if view is not None]
    hider = state.observe(0)["tiles"]["lucky_punch"]["hider"]
    for seat, punch in enumerate(punches):
        assert punch is not None and punch[0] == hider
        assert (punch[1] is not None) == (seat == hider)
        assert punch[1] == state.observe(seat)["tiles"]["lucky_punch"]["tokens"]
