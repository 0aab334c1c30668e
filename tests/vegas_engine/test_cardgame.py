"""`cardgame` (seed 000): selection rules, the 8-card stop, payout, chips, hidden information.

Personas from the rulebook's examples: Leo, Henry, Rebecca and Emily.
"""

from __future__ import annotations

import json
import random

import pytest

from vegas_engine import IllegalActionError, describe, determinize, new_game
from vegas_engine.log import game_log
from vegas_engine.rules.cardgame import RULES, CardDecision, CardGame, card_text
from vegas_engine.rules.chips import CHIPS
from vegas_engine.rules.dice import rank_casino

LEO, HENRY, REBECCA, EMILY = 0, 1, 2, 3


def cards(*texts: str) -> list[int]:
    return sorted(int(text[0]) * 2 + (1 if text.endswith("D") else 0) for text in texts)


def play_randomly(state: CardGame, seed: int) -> None:
    chooser = random.Random(seed)
    while not state.is_terminal():
        for seat in state.to_move():
            state.apply_action(chooser.choice(state.legal_actions(seat)), seat)


def test_each_seat_has_30_cards_four_singles_and_one_double_per_face() -> None:
    deck = RULES.deck()
    assert len(deck) == 30
    for face in range(1, 7):
        assert [card_text(card) for card in deck if card >> 1 == face] == [str(face)] * 4 + [
            f"{face}D"
        ]


def test_000_selection_example_leo_may_play_three_5s() -> None:
    plays = RULES.selections(cards("5", "5", "5", "2", "6"))
    assert "play 5 5 5" in plays
    assert "play 2 5" in plays  # any two cards
    assert "play 2 5 5" not in plays  # three cards must share a face


def test_000_selection_example_no_two_4s_and_a_2() -> None:
    plays = RULES.selections(cards("4", "4", "2", "1", "3D"))
    assert "play 2 4 4" not in plays
    assert {"play 4 4", "play 2 4", "play 1 3D", "play 3D"} <= set(plays)


def test_000_up_to_five_cards_of_one_face() -> None:
    plays = RULES.selections(cards("2", "2", "2", "2", "2D"))
    assert "play 2 2 2 2 2D" in plays
    assert all(len(play) <= 5 for play in plays.values())


def test_legal_plays_are_listed_in_a_stable_order() -> None:
    plays = list(RULES.selections(cards("1", "2", "3", "3", "3D")))
    assert plays[:4] == ["play 1", "play 2", "play 3", "play 3D"]
    assert plays[-1] == "play 3 3 3D"
    assert plays == list(RULES.selections(cards("3D", "3", "2", "1", "3")))


def test_000_casino_5_example_equal_dice_totals_cancel() -> None:
    # Leo three cards = 4 dice, Henry four cards = 4 dice, Rebecca one double = 2,
    # Emily two singles = 2: both pairs cancel and nobody wins at casino 5.
    ranked, cancelled = rank_casino([4, 4, 2, 2])
    assert ranked == []
    assert cancelled == [[LEO, HENRY], [REBECCA, EMILY]]


def test_000_chips_example_leo_two_pink_and_four_golden_is_130k() -> None:
    pink, gold = CHIPS.colours.index("pink"), CHIPS.colours.index("gold")
    assert CHIPS.money([pink, pink, gold, gold, gold, gold]) == 130_000
    assert [CHIPS.money([pink] * count) for count in range(1, 6)] == [
        10_000,
        30_000,
        60_000,
        100_000,
        150_000,
    ]


def test_simultaneous_choices_are_hidden_until_everyone_has_chosen() -> None:
    state = new_game(describe("cardgame", 3), 5)
    assert state.decision() is CardDecision.SELECT
    assert state.to_move() == (0, 1, 2)
    choice = state.legal_actions(1)[-1]
    state.apply_action(choice, 1)
    assert state.to_move() == (0, 2)
    for seat in (0, 2):
        seen = state.observe(seat)
        assert seen["chosen"] == [1]
        assert seen["my_choice"] is None  # another seat's choice is not shown
        assert seen["casinos"] == new_game(describe("cardgame", 3), 5).observe(seat)["casinos"]
    assert state.observe(1)["my_choice"] == choice
    with pytest.raises(IllegalActionError):
        state.apply_action(state.legal_actions(0)[0], 1)  # seat 1 already chose


def test_observations_never_show_other_hands_or_draw_orders() -> None:
    state = new_game(describe("cardgame", 4), 8)
    seen = state.observe(REBECCA)
    assert len(seen["hand"]) == 5
    assert seen["hand_sizes"] == [5, 5, 5, 5]
    text = json.dumps(seen)
    for seat in (LEO, HENRY, EMILY):
        other = state.observe(seat)["hand"]
        if sorted(other) != sorted(seen["hand"]):
            assert json.dumps(other)[1:-1] not in text


def test_states_differing_only_in_hidden_cards_look_identical_to_the_seat() -> None:
    """Two states that differ only in what seat k may not see give k equal observations."""
    for seed in range(20):
        state = new_game(describe("cardgame", 4, options={"chips": True}), seed)
        chooser = random.Random(seed)
        for _ in range(chooser.randrange(1, 40)):
            if state.is_terminal():
                break
            seat = chooser.choice(state.to_move())
            state.apply_action(chooser.choice(state.legal_actions(seat)), seat)
        for seat in range(4):
            seen = state.observe(seat)
            resampled = determinize(seen, seed=seed + 1)
            again = determinize(seen, seed=seed + 2)
            assert resampled.observe(seat) == seen == again.observe(seat)


def test_a_seat_with_8_cards_placed_is_finished_for_the_round() -> None:
    state = new_game(describe("cardgame", 2), 1)
    # Play as many cards as possible every turn: seats finish before turn 6.
    while state.observe(0)["round"] == 1 and not state.is_terminal():
        for seat in state.to_move():
            longest = max(state.legal_actions(seat), key=lambda action: action.count(" "))
            state.apply_action(longest, seat)
    events = state.events()
    assert events is not None
    finishes = [e for e in events if e["type"] == "finish"]
    assert finishes and all(e["cards_placed"] >= 8 for e in finishes)
    first_round = events[: next(i for i, e in enumerate(events) if e["type"] == "round_end")]
    for finish in finishes:
        if finish in first_round:
            after = first_round[first_round.index(finish) :]
            assert not [e for e in after if e["type"] == "play" and e["seat"] == finish["seat"]]


def test_each_casino_pays_its_two_notes_to_the_top_two_and_returns_the_rest_to_the_box() -> None:
    state = new_game(describe("cardgame", 5), 3)
    play_randomly(state, 3)
    events = state.events()
    assert events is not None
    payouts = [e for e in events if e["type"] == "payout"]
    assert len(payouts) == 6 * 4
    for payout in payouts:
        assert len(payout["notes"]) == 2
        assert len(payout["awards"]) <= 2
        assert payout["returned_to"] == "box"
        paid = [award["note"] for award in payout["awards"]]
        assert sorted(paid + payout["returned"]) == sorted(payout["notes"])
        # The higher note goes to the most dice.
        assert paid == sorted(paid, reverse=True)
    stocked = sorted(n for e in events if e["type"] == "stock" for n in e["notes"])
    assert stocked == sorted(value for value, count in RULES.notes for _ in range(count))


@pytest.mark.parametrize("options", [{}, {"sequential": True}, {"chips": True}])
def test_games_finish_replay_and_money_is_the_sum_of_awards(options: dict[str, bool]) -> None:
    from vegas_engine.log import check
    from vegas_engine.replay import replay

    for seed in range(4):
        state = new_game(describe("cardgame", 4, options=options), seed)
        play_randomly(state, seed)
        log = check(json.loads(json.dumps(game_log(state))))
        assert replay(log).result() == state.result()
        events = log["events"]
        won = [0] * 4
        for event in events:
            if event["type"] == "payout":
                for award in event["awards"]:
                    won[award["owner"]] += award["note"]
            if event["type"] == "chip_score":
                won[event["seat"]] += event["money"]
        result = state.result()
        assert result is not None
        assert [seat.money for seat in result] == won


def test_sequential_seats_choose_one_after_another_from_the_start_player() -> None:
    state = new_game(describe("cardgame", 3, options={"sequential": True}), 2)
    order = []
    while state.observe(0)["round"] == 1 and len(order) < 6:
        (seat,) = state.to_move()
        order.append(seat)
        state.apply_action(state.legal_actions(seat)[0], seat)
        if state.decision() is CardDecision.CHIP:
            break
    assert order[:3] == [0, 1, 2]


def test_chip_cards_are_offered_after_two_dice_at_one_casino() -> None:
    state = new_game(describe("cardgame", 2, options={"chips": True}), 4)
    seen = state.observe(0)
    assert [len(at) for at in seen["chips"]["at_casinos"]] == [1] * 6
    doubles = [a for a in state.legal_actions(0) if a.endswith("D") and a.count(" ") == 1]
    pairs = [
        a for a in state.legal_actions(0) if len(set(a.split()[1:])) == 1 and a.count(" ") == 2
    ]
    action = (doubles or pairs)[0]
    state.apply_action(action, 0)
    state.apply_action(state.legal_actions(1)[0], 1)
    while state.decision() is CardDecision.CHIP and state.to_move() != (0,):
        state.apply_action("chip none", state.to_move()[0])
    assert state.decision() is CardDecision.CHIP
    assert state.to_move() == (0,)
    assert state.legal_actions(0)[-1] == "chip none"
    taken = state.legal_actions(0)[0]
    state.apply_action(taken, 0)
    assert state.observe(0)["chips"]["held"][0] == {taken.split()[1]: 1}
