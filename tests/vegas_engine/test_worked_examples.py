"""Every worked example of the classic rulebook (seed 001) and the yucata Boulevard
rules (seed 002), one test each, named after the example.

Seed 002 repeats the examples of seed 001 word for word; those tests carry the
001 name and say so. Payout orders come from the pure ranking functions; the
flow of the game (placing all dice of a face, the neutral dice, forced turns,
kickers, the slot machine) is checked on positions set up as the example has
them (``dice_position``) and on real games found by bounded searches over seeds
(see ``conftest.py``), whose logs are also checked event by event by the
independent rulebook model.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from vegas_engine import DiceDecision, State, describe, new_game, observe
from vegas_engine.rules.dice import rank_casino, rank_slot
from vegas_engine.state import rank_seats

from .conftest import (
    ANNA,
    BENNO,
    BOULEVARD_MINIMUM,
    CARLA,
    CLASSIC_MINIMUM,
    CLASSIC_NOTES,
    DENNY,
    RulebookModel,
    Step,
    all_cards,
    dice_position,
    find_step,
    play_out,
    scan,
    steps,
    stock_value,
)

NEUTRAL_4P = 4  # owner index of the white dice with four seats


def pay(counts: list[int], notes: list[int]) -> tuple[dict[int, int], list[int]]:
    """The rulebook's payout at one casino, ordered by ``rank_casino``.

    ``counts[i]`` is owner i's dice there (the last index is white). Returns the
    note each seat wins and the notes that go back under the pile (white's win
    included).
    """
    white = len(counts) - 1
    ranked, _ = rank_casino(counts)
    ordered = sorted(notes, reverse=True)
    awards = dict(zip(ranked, ordered, strict=False))
    won = {owner: note for owner, note in awards.items() if owner != white}
    returned = [note for owner, note in awards.items() if owner == white]
    return won, returned + ordered[len(awards) :]


def roll_of(state: State) -> dict[str, list[int]]:
    seat = state.to_move()[0]
    roll = observe(state, seat)["roll"]
    assert roll is not None and roll["seat"] == seat
    dice: dict[str, list[int]] = roll["dice"]
    return dice


def apply_on_clone(state: State, action: str) -> tuple[State, list[dict[str, Any]]]:
    other = state.clone()
    events = other.events()
    assert events is not None
    first = len(events)
    other.apply_action(action)
    return other, events[first:]


def casino_dice(state: State, casino: int) -> dict[str, int]:
    dice: dict[str, int] = observe(state, 0)["casinos"][casino - 1]["dice"]
    return dice


# ---------------------------------------------------------------- seed 001


def test_001_setup_54_notes_and_at_least_50k_per_casino() -> None:
    """Setup: 54 shuffled notes; each casino gets notes until it holds $50,000 or more."""
    for seed in range(5):
        state = new_game(describe("classic", 4), seed)
        events = state.events()
        assert events is not None
        stocks = [e for e in events if e["type"] == "stock"]
        assert [e["casino"] for e in stocks] == [1, 2, 3, 4, 5, 6]
        for stock in stocks:
            values = [stock_value(note) for note in stock["notes"]]
            assert sum(values) >= CLASSIC_MINIMUM
            assert sum(values[:-1]) < CLASSIC_MINIMUM, "no note beyond the one reaching $50,000"
        view = observe(state, 0)
        on_casinos = sum(len(c["notes"]) for c in view["casinos"])
        assert view["pile_size"] + on_casinos == 54
        first_roll = next(e for e in events if e["type"] == "roll")
        assert first_roll["seat"] == ANNA and first_roll["dice"].keys() == {"die"}
        assert len(first_roll["dice"]["die"]) == 8
    # Whole games: every draw is consistent with the printed 54 notes.
    for seed in range(10):
        RulebookModel("classic", 4).follow(play_out("classic", 4, seed).events() or [])


def test_001_benno_rolls_four_3s_and_a_5_and_must_place_all_four_3s() -> None:
    """Benno rolls four 3s and a 5, places all four 3s (never one, two or three of
    them), and on his next turn simply rolls and places his last die.
    Seed 002 repeats this example."""
    state = dice_position(
        "classic", 4, mover=BENNO, roll={"die": [3, 3, 3, 3, 5]}, hands={CARLA: {"die": 2}}
    )
    assert state.to_move() == (BENNO,)
    assert state.legal_actions() == ("place 3", "place 5")
    before = casino_dice(state, 3).get(str(BENNO), 0)

    after, events = apply_on_clone(state, "place 3")
    place = next(e for e in events if e["type"] == "place")
    assert place == {"type": "place", "seat": BENNO, "casino": 3, "face": 3, "dice": {"die": 4}}
    assert casino_dice(after, 3)[str(BENNO)] == before + 4
    assert observe(after, BENNO)["hands"][BENNO]["die"] == 1

    # His next turn: one die, one face, no decision asked.
    rng = random.Random(0)
    log = after.events()
    assert log is not None
    seen = len(log)
    while True:
        assert not after.is_terminal()
        new = log[seen:]
        rolls = [i for i, e in enumerate(new) if e["type"] == "roll" and e["seat"] == BENNO]
        if rolls:
            roll = new[rolls[0]]
            assert len(roll["dice"]["die"]) == 1
            decision = new[rolls[0] + 1]
            face = roll["dice"]["die"][0]
            assert decision == {
                "type": "decision",
                "seat": BENNO,
                "action": f"place {face}",
                "forced": True,
            }
            break
        seen = len(log)
        after.apply_action(rng.choice(after.legal_actions()))

    # Placing the 5 instead spends exactly the one 5.
    other, events = apply_on_clone(state, "place 5")
    assert next(e for e in events if e["type"] == "place")["dice"] == {"die": 1}
    assert observe(other, BENNO)["hands"][BENNO]["die"] == 4


def test_001_a_player_out_of_dice_passes_and_the_last_player_rolls_alone() -> None:
    """Out of dice: you pass for the rest of the round, so one player may take
    several turns in a row at the end of a round."""

    def alone_again(model: RulebookModel, event: dict[str, Any]) -> bool:
        return (
            event["type"] == "roll"
            and model.last_placer == event["seat"]
            and model.held(event["seat"]) > 0
        )

    found = scan("classic", 4, None, alone_again, seeds=range(50))
    seat = found.event["seat"]
    others = [s for s in range(4) if s != seat]
    assert all(found.model.held(s) == 0 for s in others)
    # Everything else about who rolls when is checked by the model, whole game long.
    found.model.follow(found.events[found.index :])
    assert found.model.finished


def test_001_tie_example_1_benno_and_carla_cancel() -> None:
    """Anna 5 dice, Benno and Carla 3 each, Denny 1: Benno and Carla take their dice back."""
    ranked, cancelled = rank_casino([5, 3, 3, 1, 0])
    assert ranked == [ANNA, DENNY]
    assert [set(group) for group in cancelled] == [{BENNO, CARLA}]


def test_001_tie_example_2_everyone_cancels() -> None:
    """Anna and Carla 2 dice each, Benno and Denny 1 each: all take their dice back."""
    ranked, cancelled = rank_casino([2, 1, 2, 1, 0])
    assert ranked == []
    assert sorted(map(sorted, cancelled)) == [[ANNA, CARLA], [BENNO, DENNY]]


def test_001_payout_example_1_anna_80k_denny_30k_and_10k_to_the_pile_bottom() -> None:
    """(Tie example 1's casino.) Anna gets $80,000, Denny $30,000; the $10,000 note
    goes back to the bottom of the pile."""
    won, returned = pay([5, 3, 3, 1, 0], [30_000, 10_000, 80_000])
    assert won == {ANNA: 80_000, DENNY: 30_000}
    assert returned == [10_000]

    # The example in a game, at casino 2: Denny's last die goes to casino 6 and ends the round.
    payout = example_payout(2, {"0": 5, "1": 3, "2": 3, "3": 1}, [80_000, 30_000, 10_000])
    assert payout["awards"] == [
        {"owner": ANNA, "note": 80_000},
        {"owner": DENNY, "note": 30_000},
    ]
    assert payout["cancelled"] == [[BENNO, CARLA]]
    assert payout["returned"] == [10_000] and payout["returned_to"] == "pile"

    # "To the bottom": the notes under the pile come out once the unseen ones run out.
    assert_drawn_from_the_bottom()


def example_payout(casino: int, dice: dict[str, int], notes: list[int]) -> dict[str, Any]:
    """The payout at ``casino`` holding ``dice`` and ``notes`` when Denny's last die
    (a 6, to casino 6) ends a classic round."""
    state = dice_position(
        "classic", 4, mover=DENNY, roll={"die": [6]}, dice={casino: dice}, notes={casino: notes}
    )
    events = state.events() or []
    payout: dict[str, Any] = next(
        e for e in events if e["type"] == "payout" and e["casino"] == casino
    )
    return payout


def assert_drawn_from_the_bottom() -> None:
    """One unseen note left, three under the pile: the next round draws the unseen
    one first, then the three in the order they went under."""
    notes = [value for value, count in CLASSIC_NOTES.items() for _ in range(count)]
    for kept in (90_000, 10_000, 20_000, 30_000):
        notes.remove(kept)
    state = dice_position(
        "classic",
        2,
        mover=ANNA,
        roll={"die": [1]},
        notes={casino: [] for casino in range(1, 7)},
        won=[notes, []],
        under_pile=[10_000, 20_000, 30_000],
    )
    stocked = [e["notes"] for e in state.events() or [] if e["type"] == "stock"]
    assert stocked == [[90_000], [10_000, 20_000, 30_000], [], [], [], []]


def test_001_payout_example_2_benno_takes_one_40k_the_other_goes_back() -> None:
    """Benno gets one of the two $40,000 notes; the other goes back under the pile."""
    won, returned = pay([1, 2, 1, 0, 0], [40_000, 40_000])
    assert won == {BENNO: 40_000}
    assert returned == [40_000]

    # The example at casino 4; Denny's last die goes to casino 6 and ends the round.
    state = dice_position(
        "classic",
        4,
        mover=DENNY,
        roll={"die": [6]},
        dice={4: {"0": 1, "1": 2, "2": 1}},
        notes={4: [40_000, 40_000]},
    )
    payout = next(e for e in state.events() or [] if e["type"] == "payout" and e["casino"] == 4)
    assert payout["awards"] == [{"owner": BENNO, "note": 40_000}]
    assert payout["cancelled"] == [[ANNA, CARLA]]
    assert payout["returned"] == [40_000] and payout["returned_to"] == "pile"
    assert state.position()["won"][BENNO] == [40_000]


def test_001_payout_example_3_carla_70k_benno_20k_denny_nothing() -> None:
    """Carla gets $70,000, Benno $20,000; Denny, third, gets nothing."""
    won, returned = pay([0, 2, 3, 1, 0], [20_000, 70_000])
    assert won == {CARLA: 70_000, BENNO: 20_000}
    assert DENNY not in won
    assert returned == []

    payout = example_payout(5, {"1": 2, "2": 3, "3": 1}, [70_000, 20_000])
    assert payout["awards"] == [
        {"owner": CARLA, "note": 70_000},
        {"owner": BENNO, "note": 20_000},
    ]
    assert payout["cancelled"] == [] and payout["returned"] == []


def test_001_next_round_resupplies_and_passes_the_start_player_left() -> None:
    """Next round: every casino is restocked to $50,000 or more and the player to
    the left of the previous start player starts."""
    state = play_out("classic", 4, 3)
    events = state.events()
    assert events is not None
    starts = [e["start_player"] for e in events if e["type"] == "round_start"]
    assert starts == [0, 1, 2, 3]
    for index, event in enumerate(events):
        if event["type"] == "round_start":
            first_roll = next(e for e in events[index:] if e["type"] == "roll")
            assert first_roll["seat"] == event["start_player"]
            stocks = events[index + 1 : index + 7]
            assert [e["casino"] for e in stocks if e["type"] == "stock"] == [1, 2, 3, 4, 5, 6]
            assert all(
                sum(stock_value(n) for n in stock["notes"]) >= CLASSIC_MINIMUM for stock in stocks
            )
    RulebookModel("classic", 4).follow(events)


def test_001_game_end_most_money_then_most_notes_then_shared_win() -> None:
    """Most money wins; on equal money the most notes; still equal: several winners."""
    by_seat = {r.seat: r.rank for r in rank_seats([300_000, 300_000, 250_000], [4, 5, 9])}
    assert by_seat == {1: 1, 0: 2, 2: 3}
    shared = {r.seat: r.rank for r in rank_seats([300_000, 300_000, 90_000], [4, 4, 1])}
    assert shared == {0: 1, 1: 1, 2: 3}
    for seed in range(5):
        state = play_out("classic", 3, seed)
        result = state.result()
        assert result is not None
        events = state.events()
        assert events is not None
        assert events[-1] == {"type": "game_end", "result": [r.to_json() for r in result]}
        RulebookModel("classic", 3).follow(events)


def test_001_neutral_variant_white_dice_per_player_and_three_player_pre_roll() -> None:
    """Variant: 4 white dice each with 2 players, 2 each with 3-4; with 3 players the
    start player rolls the 2 leftover white dice at the start of each round."""
    for seats, white in ((2, 4), (3, 2), (4, 2)):
        state = new_game(describe("classic", seats, {"neutral_dice": True}), 11)
        events = state.events()
        assert events is not None
        view = observe(state, 0)
        placed = {e["seat"] for e in events if e["type"] == "place"}
        for seat in set(range(seats)) - placed:
            assert view["hands"][seat] == {"die": 8, "biggie": 0, "kicker": 0, "neutral": white}
        pre_rolls = [e for e in events if e["type"] == "neutral_roll"]
        if seats == 3:
            assert len(pre_rolls) == 1 and pre_rolls[0]["seat"] == 0
            assert len(pre_rolls[0]["dice"]) == 2
            if not placed:
                on_casinos = Counter(
                    {c["casino"]: c["dice"].get("neutral", 0) for c in view["casinos"]}
                )
                assert +on_casinos == Counter(pre_rolls[0]["dice"])
        else:
            assert pre_rolls == []
        game = play_out("classic", seats, 11, {"neutral_dice": True})
        RulebookModel("classic", seats, {"neutral_dice": True}).follow(game.events() or [])


def test_001_neutral_roll_example_carla_may_place_the_three_1s_her_5_or_the_white_6() -> None:
    """Carla rolls two 1s and a 5 of her colour, a white 1 and a white 6: she may
    place all three 1s, her own 5, or the white 6. Seed 002 repeats this example."""
    state = dice_position(
        "classic",
        4,
        {"neutral_dice": True},
        mover=CARLA,
        roll={"die": [1, 1, 5], "neutral": [1, 6]},
        dice={1: {"0": 1, "neutral": 1}, 6: {"3": 2}},
    )
    assert state.to_move() == (CARLA,)
    assert state.legal_actions() == ("place 1", "place 5", "place 6")

    def placed(action: str) -> tuple[dict[str, int], dict[str, int], dict[str, int]]:
        casino = int(action.split()[1])
        after, events = apply_on_clone(state, action)
        place = next(e for e in events if e["type"] == "place")
        assert place["seat"] == CARLA and place["casino"] == casino
        return place["dice"], casino_dice(state, casino), casino_dice(after, casino)

    dice, before, after = placed("place 1")
    assert dice == {"die": 2, "neutral": 1}
    assert after.get("2", 0) == before.get("2", 0) + 2
    assert after.get("neutral", 0) == before.get("neutral", 0) + 1
    dice, before, after = placed("place 5")
    assert dice == {"die": 1}
    assert after.get("neutral", 0) == before.get("neutral", 0)
    dice, before, after = placed("place 6")
    assert dice == {"neutral": 1}
    assert after.get("2", 0) == before.get("2", 0)
    assert after.get("neutral", 0) == before.get("neutral", 0) + 1


def test_001_neutral_example_1_white_wins_80k_to_the_pile_bottom_benno_30k() -> None:
    """$80,000 goes to white, so under the pile; Benno receives the $30,000 note.
    Seed 002 repeats this example."""
    assert rank_casino([0, 2, 0, 0, 3]) == ([NEUTRAL_4P, BENNO], [])
    won, returned = pay([0, 2, 0, 0, 3], [80_000, 30_000])
    assert won == {BENNO: 30_000}
    assert returned == [80_000]

    def white_then_benno(model: RulebookModel, event: dict[str, Any]) -> bool:
        return event["type"] == "payout" and [a["owner"] for a in event["awards"]] == [
            "neutral",
            BENNO,
        ]

    found = scan("classic", 4, {"neutral_dice": True}, white_then_benno, seeds=range(300))
    payout = found.event
    white_note, benno_note = (a["note"] for a in payout["awards"])
    assert white_note >= benno_note
    assert white_note in payout["returned"] and payout["returned_to"] == "pile"
    before = sum(found.model.won[BENNO])
    found.model.feed(payout)
    assert sum(found.model.won[BENNO]) == before + benno_note
    found.model.follow(found.events[found.index + 1 :])

    # White's note really goes under the pile, to be drawn once the unseen notes run out.
    state = dice_position(
        "classic",
        4,
        {"neutral_dice": True},
        mover=DENNY,
        roll={"die": [6]},
        dice={2: {"1": 2, "neutral": 3}},
        notes={2: [80_000, 30_000]},
    )
    payout = next(e for e in state.events() or [] if e["type"] == "payout" and e["casino"] == 2)
    assert payout["awards"] == [
        {"owner": "neutral", "note": 80_000},
        {"owner": BENNO, "note": 30_000},
    ]
    # Under the pile, in the order of the payouts (the other casinos' unwon notes too).
    payouts = [e for e in state.events() or [] if e["type"] == "payout"]
    under = [note for event in payouts for note in event["returned"]]
    assert 80_000 in under and state.position()["under_pile"] == under


def test_001_neutral_example_2_carla_70k_white_40k_anna_nothing() -> None:
    """Carla receives $70,000, white $40,000 (under the pile); Anna receives nothing.
    Seed 002 repeats this example."""
    assert rank_casino([1, 0, 3, 0, 2]) == ([CARLA, NEUTRAL_4P, ANNA], [])
    won, returned = pay([1, 0, 3, 0, 2], [70_000, 40_000])
    assert won == {CARLA: 70_000}
    assert returned == [40_000]

    def carla_then_white_anna_left(model: RulebookModel, event: dict[str, Any]) -> bool:
        return (
            event["type"] == "payout"
            and [a["owner"] for a in event["awards"]] == [CARLA, "neutral"]
            and str(ANNA) in event["counts"]
            and not any(ANNA in group for group in event["cancelled"])
        )

    # The example at casino 3: Anna 1 die, Carla 3, white 2; Denny's last die ends the round.
    state = dice_position(
        "classic",
        4,
        {"neutral_dice": True},
        mover=DENNY,
        roll={"die": [6]},
        dice={3: {"0": 1, "2": 3, "neutral": 2}},
        notes={3: [70_000, 40_000]},
    )
    payout = next(e for e in state.events() or [] if e["type"] == "payout" and e["casino"] == 3)
    assert carla_then_white_anna_left(RulebookModel("classic", 4), payout)
    assert payout["counts"] == {"0": 1, "2": 3, "neutral": 2}
    assert payout["returned"] == [40_000]
    assert state.position()["won"][ANNA] == []


# ---------------------------------------------------------------- seed 002


def test_002_neutral_dice_two_each_with_three_to_six_players() -> None:
    """Boulevard neutral dice: 4 each with 2 players, 2 each with 3 to 6 players;
    with 3 players 2 more are rolled by the start player."""
    for seats in range(2, 7):
        state = new_game(describe("boulevard", seats), 5)
        events = state.events()
        assert events is not None
        placed = {e["seat"] for e in events if e["type"] == "place"}
        view = observe(state, 0)
        for seat in set(range(seats)) - placed:
            assert view["hands"][seat]["neutral"] == (4 if seats == 2 else 2)
        pre_rolls = [e for e in events if e["type"] == "neutral_roll"]
        assert len(pre_rolls) == (1 if seats == 3 else 0)


def test_002_minimum_amount_by_player_count() -> None:
    """Minimum per casino: 2 players $30,000, 3 $40,000, 4 $50,000, 5 $60,000, 6 $70,000."""
    assert BOULEVARD_MINIMUM == {2: 30_000, 3: 40_000, 4: 50_000, 5: 60_000, 6: 70_000}
    for seats, minimum in BOULEVARD_MINIMUM.items():
        for seed in range(3):
            events = play_out("boulevard", seats, seed).events()
            assert events is not None
            stocks = [e for e in events if e["type"] == "stock"]
            assert len(stocks) == 4 * 7
            for stock in stocks:
                values = [stock_value(note) for note in stock["notes"]]
                assert sum(values) >= minimum
                assert sum(values[:-1]) < minimum
            RulebookModel("boulevard", seats).follow(events)


def test_002_five_100k_notes_are_shuffled_in() -> None:
    """Five $100,000 notes join the pile (and only with the big_notes module)."""
    seen_big = 0
    for seed in range(20):
        state = new_game(describe("boulevard", 4), seed)
        view = observe(state, 0)
        on_casinos = [note for c in view["casinos"] for note in c["notes"]]
        assert view["pile_size"] + len(on_casinos) == 54 + 5 + 6
        seen_big += on_casinos.count(100_000)
        plain = observe(new_game(describe("boulevard", 4, {"big_notes": False}), seed), 0)
        assert 100_000 not in [note for c in plain["casinos"] for note in c["notes"]]
        assert plain["pile_size"] + sum(len(c["notes"]) for c in plain["casinos"]) == 54 + 6
    assert seen_big > 0
    cards = all_cards(big_notes=True, rainbow=True)
    assert cards[100_000] == 5 and sum(cards.values()) == 65


def test_002_biggie_replaces_a_die_and_counts_two_at_scoring() -> None:
    """Each player swaps one die for a Biggie (still 8 dice); it counts as two dice."""
    state = new_game(describe("boulevard", 4), 2)
    view = observe(state, 0)
    assert view["hands"][3] == {"die": 5, "biggie": 1, "kicker": 2, "neutral": 2}
    assert sum(view["hands"][3][k] for k in ("die", "biggie", "kicker")) == 8

    def biggie_alone(step: Step) -> bool:
        types = [e["type"] for e in step.events]
        return (
            "kick" not in types
            and "round_end" not in types
            and any(e["type"] == "place" and e["dice"] == {"biggie": 1} for e in step.events)
        )

    step = find_step("boulevard", 4, None, biggie_alone, keep_before=True, seeds=range(100))
    assert step.before is not None
    place = next(e for e in step.events if e["type"] == "place")
    seat, casino = place["seat"], place["casino"]
    before = observe(step.before, 0)["casinos"][casino - 1]
    after = observe(step.state, 0)["casinos"][casino - 1]
    assert after["dice"][str(seat)] == before["dice"].get(str(seat), 0) + 2
    assert after["biggies"][str(seat)] == before["biggies"].get(str(seat), 0) + 1
    # At payout the model counts a Biggie as two dice, games long.
    for seed in range(5):
        RulebookModel("boulevard", 4).follow(play_out("boulevard", 4, seed).events() or [])


def test_002_kickers_two_each_below_six_players_one_with_six() -> None:
    """Each player trades one die for a kicker, two dice for two kickers below 6 players."""
    for seats in range(2, 7):
        state = new_game(describe("boulevard", seats, {"biggies": False}), 1)
        events = state.events()
        assert events is not None
        placed = {e["seat"] for e in events if e["type"] == "place"}
        kickers = 2 if seats < 6 else 1
        view = observe(state, 0)
        for seat in set(range(seats)) - placed:
            assert view["hands"][seat]["kicker"] == kickers
            assert view["hands"][seat]["die"] == 8 - kickers


def _kick_decision_on_a_casino(step: Step) -> bool:
    state = step.state
    if state.is_terminal() or state.decision() is not DiceDecision.KICK:
        return False
    kick = observe(state, 0)["kick"]
    legal = state.legal_actions()
    seat = state.to_move()[0]
    others = [a for a in legal if not a.startswith(f"kick {seat} ")]
    return kick["casino"] <= 6 and len(legal) >= 3 and bool(others)


def test_002_kicker_removes_one_die_of_the_placers_choice_and_never_stays() -> None:
    """A kicker and one die of the placer's choice (own or another's) leave the casino
    at once; the die goes back to its owner, the kicker is out for the round."""
    step = find_step("boulevard", 4, None, _kick_decision_on_a_casino, seeds=range(100))
    state = step.state
    seat = state.to_move()[0]
    view = observe(state, seat)
    casino = view["kick"]["casino"]
    table = view["casinos"][casino - 1]
    expected = set()
    for name, count in table["dice"].items():
        big = table["biggies"].get(name, 0)
        if count - 2 * big > 0:
            expected.add(f"kick {name} die")
        if big:
            expected.add(f"kick {name} biggie")
    assert set(state.legal_actions()) == expected
    assert view["kickers_used"][seat] >= 1
    checked = 0
    for action in state.legal_actions():
        after, events = apply_on_clone(state, action)
        _, owner_text, kind = action.split()
        kick = next(e for e in events if e["type"] == "kick")
        owner: int | str = owner_text if owner_text == "neutral" else int(owner_text)
        assert kick == {
            "type": "kick",
            "seat": seat,
            "casino": casino,
            "kicked": {"owner": owner, "die": kind},
        }
        if any(e["type"] in ("place", "round_end") for e in events):
            continue  # forced moves followed: the casino changed again
        seen = observe(after, 0)
        weight = 2 if kind == "biggie" else 1
        dice_after = seen["casinos"][casino - 1]["dice"]
        assert dice_after.get(owner_text, 0) == table["dice"][owner_text] - weight
        assert seen["kickers_used"][seat] == view["kickers_used"][seat]
        assert seen["hands"][seat]["kicker"] == view["hands"][seat]["kicker"]
        if owner_text == "neutral":
            assert seen["neutral_out"] == view["neutral_out"] + 1
        else:
            assert seen["hands"][int(owner_text)][kind] == view["hands"][int(owner_text)][kind] + 1
        checked += 1
    assert checked >= 1


def test_002_kicked_back_die_brings_a_player_without_dice_back_in() -> None:
    """A player without dice who has a die kicked back is in the game again."""

    def kicks_an_empty_hand(model: RulebookModel, event: dict[str, Any]) -> bool:
        if event["type"] != "kick" or event["kicked"] is None:
            return False
        owner = event["kicked"]["owner"]
        return owner != "neutral" and owner != event["seat"] and model.held(owner) == 0

    found = scan("boulevard", 4, None, kicks_an_empty_hand, seeds=range(200))
    owner = found.event["kicked"]["owner"]
    kind = found.event["kicked"]["die"]
    found.model.feed(found.event)
    assert found.model.hands[owner][kind] == 1 and found.model.held(owner) == 1
    rolls = [e for e in found.rest_of_round() if e["type"] == "roll" and e["seat"] == owner]
    assert rolls, "the player with a kicked-back die must roll it again this round"
    assert sum(len(faces) for faces in rolls[0]["dice"].values()) >= 1
    found.model.follow(found.events[found.index + 1 :])


def test_002_kicker_on_an_empty_casino_has_no_effect() -> None:
    """A kicker placed on an empty casino (or slot machine) has no effect."""

    def kicker_alone_on_empty(model: RulebookModel, event: dict[str, Any]) -> bool:
        if event["type"] != "place" or set(event["dice"]) != {"kicker"}:
            return False
        return not any(model.counts[event["casino"] - 1])

    found = scan("boulevard", 4, None, kicker_alone_on_empty, seeds=range(100))
    kicks = found.events[found.index + 1 : found.index + 1 + found.event["dice"]["kicker"]]
    assert [e["type"] for e in kicks] == ["kick"] * len(kicks)
    assert all(e["kicked"] is None for e in kicks)
    found.model.follow(found.events[found.index :])


def test_002_rainbow_card_counts_40k_while_stocking() -> None:
    """A rainbow card dealt to a casino during set-up counts as $40,000."""

    def rainbow_alone(model: RulebookModel, event: dict[str, Any]) -> bool:
        return bool(event["type"] == "stock" and event["notes"] == ["rainbow"])

    # Two players: $30,000 minimum, so a rainbow card alone is enough.
    scan("boulevard", 2, None, rainbow_alone, seeds=range(100))

    def rainbow_then_10k(model: RulebookModel, event: dict[str, Any]) -> bool:
        return bool(event["type"] == "stock" and event["notes"] == ["rainbow", 10_000])

    # Four players: $50,000 minimum, reached by the rainbow card and a $10,000 note.
    scan("boulevard", 4, None, rainbow_then_10k, seeds=range(300))


def test_002_rainbow_cards_are_replaced_before_scoring() -> None:
    """After the last die and before scoring, each rainbow card is discarded and
    replaced by a note from the top of the pile."""

    def rainbow(model: RulebookModel, event: dict[str, Any]) -> bool:
        return bool(event["type"] == "rainbow")

    found = scan("boulevard", 4, None, rainbow, seeds=range(50))
    assert all(found.model.held(seat) == 0 for seat in range(4))
    assert found.model.paid == 0
    drawn = found.event["drawn"]
    found.model.feed(found.event)
    payout = next(
        e
        for e in found.rest_of_round()
        if e["type"] == "payout" and e["casino"] == found.event["casino"]
    )
    assert "rainbow" not in payout["notes"]
    if drawn != "rainbow":
        assert drawn in payout["notes"]
    state = found.state
    assert "rainbow" in observe(state, 0)["discarded"]
    found.model.follow(found.events[found.index + 1 :])


def _slot_lover(state: State, seat: int, rng: random.Random) -> str:
    legal = state.legal_actions(seat)
    slots = [action for action in legal if action.startswith("slot")]
    if slots and rng.random() < 0.6:
        return rng.choice(slots)
    return rng.choice(legal)


def _face_on_slot_then_rolled(owner: int, face: int, roller_is_owner: bool) -> Any:
    def predicate(step: Step) -> bool:
        state = step.state
        if state.is_terminal() or state.decision() is not DiceDecision.PLACE:
            return False
        seat = state.to_move()[0]
        if (seat == owner) != roller_is_owner:
            return False
        view = observe(state, seat)
        slot = view["casinos"][6]["faces"]
        rolled = {f for faces in view["roll"]["dice"].values() for f in faces}
        return face in rolled and any(d["owner"] == owner and d["face"] == face for d in slot)

    return predicate


def _assert_face_closed(state: State, face: int) -> None:
    view = observe(state, state.to_move()[0])
    rolled = {f for faces in view["roll"]["dice"].values() for f in faces}
    used = {d["face"] for d in view["casinos"][6]["faces"]}
    legal = state.legal_actions()
    assert f"place {face}" in legal
    assert f"slot {face}" not in legal
    assert {a for a in legal if a.startswith("slot")} == {f"slot {f}" for f in rolled - used}


def test_002_slot_machine_anna_placed_4s_nobody_may_place_4s_there_again() -> None:
    """Anna has placed 4s on the slot machine: no one else may place 4s there,
    including Anna."""
    for roller_is_anna, hint in ((True, 0), (False, 0)):
        step = find_step(
            "boulevard",
            4,
            None,
            _face_on_slot_then_rolled(ANNA, 4, roller_is_anna),
            seeds=[hint, *range(300)],
            policy=_slot_lover,
        )
        _assert_face_closed(step.state, 4)


def test_002_slot_machine_example_carla_first_denny_second_ben_third() -> None:
    """Denny three 3s, Ben two 6s, Carla two 4s and later a 1: Carla and Denny have
    three dice and sum 9 each, Carla's highest die (4) wins; then Denny, then Ben.
    Denny may not place 3s on the slot machine again."""
    dice = [(DENNY, 3, 1)] * 3 + [(BENNO, 6, 1)] * 2 + [(CARLA, 4, 1)] * 2 + [(CARLA, 1, 1)]
    ranked, cancelled = rank_slot(dice)
    assert ranked == [CARLA, DENNY, BENNO]
    assert cancelled == []
    step = find_step(
        "boulevard",
        4,
        None,
        _face_on_slot_then_rolled(DENNY, 3, True),
        seeds=range(300),
        policy=_slot_lover,
    )
    _assert_face_closed(step.state, 3)


def test_002_slot_machine_takes_any_face_and_pays_like_a_casino() -> None:
    """Any face may go to the slot machine; the most dice choose first (the engine
    gives the highest note), nobody wins two notes there, unwon notes go under the pile."""
    faces: set[int] = set()
    returned = False
    for seed in range(30):
        state = play_out("boulevard", 4, seed, policy=_slot_lover)
        events = state.events()
        assert events is not None
        RulebookModel("boulevard", 4).follow(events)
        faces |= {e["face"] for e in events if e["type"] == "place" and e["casino"] == 7}
        for payout in (e for e in events if e["type"] == "payout" and e["casino"] == 7):
            owners = [a["owner"] for a in payout["awards"]]
            assert len(owners) == len(set(owners))
            assert [a["note"] for a in payout["awards"]] == payout["notes"][: len(owners)]
            returned |= bool(payout["returned"])
    assert faces == {1, 2, 3, 4, 5, 6}
    assert returned


def test_002_single_choice_turn_is_performed_automatically() -> None:
    """When only one die is left or all dice show one number, the turn is played
    automatically (and shows in the log)."""
    forced = 0
    for seed in range(10):
        for step in steps("boulevard", 4, seed):
            if not step.state.is_terminal():
                assert len(step.state.legal_actions()) >= 2, "a single choice was offered"
            decisions = [e for e in step.events if e["type"] == "decision"]
            if step.action is not None:
                assert decisions[0] == {
                    "type": "decision",
                    "seat": step.seat,
                    "action": step.action,
                    "forced": False,
                }
                decisions = decisions[1:]
            assert all(e["forced"] for e in decisions)
            forced += len(decisions)
    assert forced > 0


def test_002_clarification_kicked_neutral_die_is_out_for_the_round() -> None:
    """When a kicker kicks a neutral die, it is out of the game for this round."""

    def kicks_white(model: RulebookModel, event: dict[str, Any]) -> bool:
        return (
            event["type"] == "kick"
            and event["kicked"] is not None
            and event["kicked"]["owner"] == "neutral"
        )

    found = scan("boulevard", 4, None, kicks_white, seeds=range(50))
    model = found.model
    white_held = [model.hands[seat]["neutral"] for seat in range(4)]
    casino = found.event["casino"]
    on_casino = model.counts[casino - 1][4]
    model.feed(found.event)
    assert [model.hands[seat]["neutral"] for seat in range(4)] == white_held
    assert model.counts[casino - 1][4] == on_casino - 1
    assert model.neutral_out >= 1
    # Nobody rolls more white dice than they held: the kicked one never comes back.
    model.follow(found.events[found.index + 1 :])


def test_002_clarification_neutral_dice_tied_on_the_slot_machine_cancel() -> None:
    """Neutral dice on the slot machine can tie despite all tie-breakers: the tied
    dice cancel before scoring."""
    white = 4
    ranked, cancelled = rank_slot([(ANNA, 5, 1), (white, 5, 1), (BENNO, 2, 1)])
    assert ranked == [BENNO]
    assert [set(group) for group in cancelled] == [{ANNA, white}]

    def white_tie(model: RulebookModel, event: dict[str, Any]) -> bool:
        return (
            event["type"] == "payout"
            and event["casino"] == 7
            and any("neutral" in group for group in event["cancelled"])
        )

    found = scan("boulevard", 4, None, white_tie, seeds=range(300), policy=_slot_lover)
    group = next(g for g in found.event["cancelled"] if "neutral" in g)
    assert all(a["owner"] not in group for a in found.event["awards"])
    found.model.follow(found.events[found.index :])


def test_002_clarification_kicker_on_the_slot_machine_kicks_only_this_turns_dice() -> None:
    """A kicker placed on the slot machine must kick one of the dice placed there in
    the same turn, never one already there."""

    def slot_kick_with_older_dice(step: Step) -> bool:
        state = step.state
        if state.is_terminal() or state.decision() is not DiceDecision.KICK:
            return False
        view = observe(state, 0)
        if view["kick"]["casino"] != 7:
            return False
        seat = state.to_move()[0]
        slot = view["casinos"][6]["faces"]
        return any(d["owner"] not in (seat, "neutral") for d in slot)

    step = find_step(
        "boulevard", 4, None, slot_kick_with_older_dice, seeds=range(300), policy=_slot_lover
    )
    state = step.state
    seat = state.to_move()[0]
    place = next(e for e in reversed(state.events() or []) if e["type"] == "place")
    assert place["seat"] == seat and place["casino"] == 7
    allowed = set()
    if place["dice"].get("die"):
        allowed.add(f"kick {seat} die")
    if place["dice"].get("biggie"):
        allowed.add(f"kick {seat} biggie")
    if place["dice"].get("neutral"):
        allowed.add("kick neutral die")
    assert set(state.legal_actions()) <= allowed

    # Whole games: every slot-machine kick takes a die placed in that same turn.
    def slot_kick(model: RulebookModel, event: dict[str, Any]) -> bool:
        return event["type"] == "kick" and event["casino"] == 7 and event["kicked"] is not None

    found = scan("boulevard", 4, None, slot_kick, seeds=range(100), policy=_slot_lover)
    found.model.follow(found.events[found.index :])
