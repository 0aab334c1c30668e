"""`sixdice` (seed 004): 6 dice and a Biggie, 2 bills per casino, 3 rounds.

Personas from the rulebook's examples: Anna, Ben, Carla and Denny.
"""

from __future__ import annotations

import random

import pytest

from vegas_engine import InvalidDescriptionError, describe, new_game
from vegas_engine.rules.dice import rank_casino

ANNA, BEN, CARLA, DENNY = 0, 1, 2, 3


def finished_events(rules_options: dict[str, bool], seats: int, seed: int) -> list[dict]:
    state = new_game(describe("sixdice", seats, options=rules_options), seed)
    chooser = random.Random(seed)
    while not state.is_terminal():
        state.apply_action(chooser.choice(state.legal_actions()))
    events = state.events()
    assert events is not None
    return events


def test_004_tie_example_1_everyone_takes_their_dice_back() -> None:
    ranked, cancelled = rank_casino([2, 1, 2, 1])
    assert ranked == [] and cancelled == [[ANNA, CARLA], [BEN, DENNY]]


def test_004_tie_example_2_the_biggie_counts_two() -> None:
    # Anna: two dice and her Biggie (4); Ben and Carla three each; Denny one.
    ranked, cancelled = rank_casino([4, 3, 3, 1])
    assert ranked == [ANNA, DENNY] and cancelled == [[BEN, CARLA]]


def test_004_payout_example_2_the_second_bill_goes_back_to_the_box() -> None:
    for event in finished_events({}, 4, 1):
        if event["type"] == "payout":
            assert event["returned_to"] == "box"


def test_each_seat_rolls_six_dice_and_a_biggie() -> None:
    state = new_game(describe("sixdice", 3), 0)
    hands = state.observe(0)["hands"]
    assert hands == [{"die": 6, "biggie": 1, "kicker": 0, "neutral": 0}] * 3


def test_two_bills_per_casino_three_rounds() -> None:
    events = finished_events({}, 5, 2)
    stocks = [e for e in events if e["type"] == "stock"]
    assert len(stocks) == 3 * 6
    assert all(len(e["notes"]) == 2 for e in stocks)
    assert sum(e["type"] == "round_end" for e in events) == 3


def test_the_last_seat_to_roll_starts_the_next_round() -> None:
    events = finished_events({}, 4, 3)
    last_roller = None
    for event in events:
        if event["type"] == "roll":
            last_roller = event["seat"]
        if event["type"] == "round_start" and event["round"] > 1:
            assert event["start_player"] == last_roller


@pytest.mark.parametrize(("seats", "held"), [(2, 3), (3, 2), (4, 1)])
def test_neutral_dice_3_2_1_per_seat(seats: int, held: int) -> None:
    state = new_game(describe("sixdice", seats, options={"neutral_dice": True}), 0)
    assert state.observe(0)["hands"][0]["neutral"] == held


def test_neutral_dice_need_2_to_4_seats_and_the_bandit_5_or_6() -> None:
    with pytest.raises(InvalidDescriptionError, match="2-4"):
        describe("sixdice", 5, options={"neutral_dice": True})
    with pytest.raises(InvalidDescriptionError, match="5-6"):
        describe("sixdice", 4, options={"slot_machine": True})


def test_the_one_armed_bandit_is_stocked_with_two_bills() -> None:
    events = finished_events({"slot_machine": True}, 6, 4)
    bandit = [e for e in events if e["type"] == "stock" and e["casino"] == 7]
    assert len(bandit) == 3 and all(len(e["notes"]) == 2 for e in bandit)


def award(counts: list[int], bills: list[int]) -> list[tuple[int, int]]:
    """Who takes which bill at a casino: the ranking paired with the bills, highest first."""
    ranked, _ = rank_casino(counts)
    return list(zip(ranked, sorted(bills, reverse=True), strict=False))


def test_004_payout_example_1_anna_80k_and_denny_30k() -> None:
    # After tie example 2: Anna 4 (with her Biggie), Ben and Carla cancelled, Denny 1.
    assert award([4, 3, 3, 1], [30_000, 80_000]) == [(ANNA, 80_000), (DENNY, 30_000)]


def test_004_payout_example_3_carla_70k_ben_20k_denny_nothing() -> None:
    assert award([0, 2, 3, 1], [70_000, 20_000]) == [(CARLA, 70_000), (BEN, 20_000)]


def test_004_neutral_example_1_white_takes_80k_to_the_box_and_ben_30k() -> None:
    neutral = 4  # with four seats the neutral dice are owner 4
    assert award([0, 1, 0, 0, 3], [80_000, 30_000]) == [(neutral, 80_000), (BEN, 30_000)]


def test_004_neutral_example_2_carla_70k_green_40k_anna_nothing() -> None:
    neutral = 4
    assert award([1, 0, 3, 0, 2], [70_000, 40_000]) == [(CARLA, 70_000), (neutral, 40_000)]


def test_neutral_winnings_go_to_the_box_in_a_real_game() -> None:
    neutral_wins = 0
    for seed in range(10):
        for event in finished_events({"neutral_dice": True}, 2, seed):
            if event["type"] == "payout":
                for award_ in event["awards"]:
                    if award_["owner"] == "neutral":
                        neutral_wins += 1
                        assert award_["note"] in event["returned"]
                        assert event["returned_to"] == "box"
    assert neutral_wins > 0
