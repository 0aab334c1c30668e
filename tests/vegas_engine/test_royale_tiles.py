"""`royale` action tiles (seed 003, RULES.md): every tile, each of its outcomes.

Each test builds a position with ``position`` (see ``test_royale.py``): the
seat to move has just rolled, the tile sits at a chosen casino; ``play`` gives
the black dice (``black(3, 4)``) right after the placement that rolls them.
Every decision is checked to be asked of the right seat.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from tests.vegas_engine.test_royale import K, events_of, play, position
from vegas_engine import State, describe, determinize, new_game
from vegas_engine.rules.royale import ROYALE_RULES, RoyaleDecision

D = RoyaleDecision


def rewards(state: State, source: str) -> list[tuple[int, int, int]]:
    """(seat, chips, money) of each reward from ``source``, in order."""
    return [
        (event["seat"], event["chips"], event["money"])
        for event in events_of(state, "reward")
        if event["source"] == source
    ]


def black(first: int, second: int) -> str:
    """The outcome of royale's two black dice, in rolling order."""
    return f"black {first} {second}"


def asks(state: State, seat: int, decision: RoyaleDecision) -> None:
    assert state.to_move() == (seat,)
    assert state.decision() is decision  # type: ignore[comparison-overlap]


# ------------------------------------------------------------ A1 Lucky Punch


@pytest.mark.parametrize("tokens", [1, 2, 3])
@pytest.mark.parametrize("right", [True, False])
def test_lucky_punch_hide_and_left_neighbour_guesses(tokens: int, right: bool) -> None:
    state = position(3, tiles={1: "A1"}, mover=1, roll=(1,))
    play(state, "place 1")
    asks(state, 1, D.HIDE)
    assert state.legal_actions() == ("hide 1", "hide 2", "hide 3")
    play(state, f"hide {tokens}")
    asks(state, 2, D.GUESS)  # the left neighbour of seat 1
    assert state.legal_actions() == ("guess 1", "guess 2", "guess 3")
    # Nobody but the hider sees the tokens before the guess resolves.
    assert state.observe(2)["tiles"]["lucky_punch"] == {"hider": 1, "tokens": None}
    assert state.observe(0)["tiles"]["lucky_punch"] == {"hider": 1, "tokens": None}
    assert state.observe(1)["tiles"]["lucky_punch"] == {"hider": 1, "tokens": tokens}
    guess = tokens if right else tokens % 3 + 1
    play(state, f"guess {guess}")
    expected = {1: (1, 2, 0), 2: (1, 0, 30 * K), 3: (1, 0, 40 * K)}[tokens]
    assert rewards(state, "Lucky Punch") == ([] if right else [expected])
    (event,) = events_of(state, "lucky_punch")
    assert event["tokens"] == tokens and event["guess"] == guess and event["won"] is not right
    assert state.observe(0)["tiles"]["lucky_punch"] is None


def test_lucky_punch_with_two_seats_the_other_seat_guesses() -> None:
    state = position(2, tiles={2: "A1"}, mover=1, roll=(2,))
    play(state, "place 2", "hide 2")
    asks(state, 0, D.GUESS)


# --------------------------------------------------------------- A2 Jackpot


@pytest.mark.parametrize(
    ("dice", "hit"),
    [((3, 4), True), ((5, 5), True), ((1, 1), True), ((1, 2), False), ((6, 5), False)],
)
def test_jackpot_seven_or_double_takes_the_pot(dice: tuple[int, int], hit: bool) -> None:
    state = position(3, tiles={1: "A2"}, roll=(1,), tile_state={"jackpot": 50 * K})
    play(state, "place 1", black(*dice))
    (event,) = events_of(state, "jackpot_roll")
    assert event["dice"] == list(dice) and event["hit"] is hit
    if hit:
        assert rewards(state, "Jackpot") == [(0, 0, 50 * K)]
        assert event["pot"] == 30 * K  # back to the first space
    else:
        assert rewards(state, "Jackpot") == []
        assert event["pot"] == 60 * K


def test_jackpot_grows_10k_per_miss_up_to_80k() -> None:
    pots = []
    for pot in (30, 40, 50, 60, 70, 80):
        state = position(3, tiles={1: "A2"}, roll=(1,), tile_state={"jackpot": pot * K})
        play(state, "place 1", "black 1 2")
        pots.append(events_of(state, "jackpot_roll")[0]["pot"] // K)
    assert pots == [40, 50, 60, 70, 80, 80]


def test_jackpot_pot_carries_from_one_activation_to_the_next() -> None:
    state = position(3, tiles={1: "A2"}, roll=(1, 2), hands=[(2, 0), (1, 0), (0, 0)])
    # Black dice 1 + 2 (miss), seat 1 then rolls a 1, then black dice 2 + 3 (miss).
    play(state, "place 1", "black 1 2", "die 1")
    assert state.observe(0)["tiles"]["jackpot"] == 40 * K
    play(state, "place 1", "black 2 3")
    assert state.observe(0)["tiles"]["jackpot"] == 50 * K


# ------------------------------------------------------------ B1 Prime Time


def prime_time_position() -> State:
    return position(
        3,
        tiles={2: "B1"},
        roll=(6,),
        dice={2: {1: 2, 2: 1}, 5: {2: 1}},
        cards={2: [70 * K, 40 * K], 5: [90 * K, 50 * K], 6: [], 4: [80 * K, 30 * K]},
    )


def test_prime_time_winner_adds_zero_one_or_both_black_dice_before_payout() -> None:
    state = prime_time_position()
    play(state, "place 6", "black 5 2")
    asks(state, 1, D.ADD)  # seat 1 is about to take the higher card at casino 2
    assert events_of(state, "black_dice")[0]["dice"] == [5, 2]
    assert state.legal_actions() == ("add none", "add 2", "add 5", "add 2 5")
    play(state, "add 2 5")
    assert payout(state, 2)["counts"] == {"1": 3, "2": 1}
    # At casino 5 seat 1's black die ties seat 2's die: both removed.
    assert payout(state, 5)["cancelled"] == [[1, 2]]


def payout(state: State, casino: int) -> dict[str, Any]:
    return next(event for event in events_of(state, "payout") if event["casino"] == casino)


def test_prime_time_a_double_may_add_one_or_both() -> None:
    state = prime_time_position()
    play(state, "place 6", "black 4 4")
    assert state.legal_actions() == ("add none", "add 4", "add 4 4")
    play(state, "add 4 4")
    assert payout(state, 4)["awards"] == [{"owner": 1, "note": 80 * K}]


def test_prime_time_adding_none_changes_nothing() -> None:
    state = prime_time_position()
    play(state, "place 6", "black 3 4", "add none")
    assert payout(state, 2)["counts"] == {"1": 2, "2": 1}


def test_prime_time_without_a_winner_rolls_nothing() -> None:
    state = position(3, tiles={2: "B1"}, roll=(6,), dice={2: {1: 2, 2: 2}})
    play(state, "place 6")
    assert not events_of(state, "black_dice")
    assert state.observe(0)["round"] == 2


# ----------------------------------------------------------- B2 Fifty Fifty


def fifty(first: tuple[int, int]) -> State:
    state = position(3, tiles={3: "B2"}, mover=2, roll=(3,))
    play(state, "place 3", black(*first))
    asks(state, 2, D.GAMBLE)
    return state


def test_fifty_fifty_stop_after_the_first_roll_pays_nothing() -> None:
    state = fifty((2, 3))
    assert state.legal_actions() == ("stop", "higher", "lower")
    play(state, "stop")
    assert rewards(state, "Fifty Fifty") == []
    assert [event["outcome"] for event in events_of(state, "fifty_fifty")] == ["rolled", "stop"]


@pytest.mark.parametrize(
    ("calls", "expected"),
    [
        ([("higher", (4, 4))], (2, 1, 0)),  # step 2: 1 chip
        ([("higher", (4, 4)), ("lower", (1, 3))], (2, 0, 30 * K)),
        ([("lower", (1, 1)), ("higher", (2, 2)), ("higher", (6, 1))], (2, 0, 40 * K)),
    ],
)
def test_fifty_fifty_right_calls_climb_the_track(
    calls: list[tuple[str, tuple[int, int]]], expected: tuple[int, int, int]
) -> None:
    state = fifty((2, 3))
    for call, dice in calls:
        play(state, call, black(*dice))
        asks(state, 2, D.GAMBLE)
    play(state, "stop")
    assert rewards(state, "Fifty Fifty") == [expected]


def test_fifty_fifty_four_right_calls_reach_60k_and_stop_by_force() -> None:
    state = fifty((2, 3))  # 5
    for call, dice in (
        ("higher", (4, 4)),
        ("lower", (1, 3)),
        ("higher", (5, 4)),
        ("lower", (1, 2)),
    ):
        play(state, call, black(*dice))
    assert rewards(state, "Fifty Fifty") == [(2, 0, 60 * K)]
    stops = [event for event in events_of(state, "fifty_fifty") if event["outcome"] == "stop"]
    assert stops[0]["step"] == 5
    forced = [event for event in events_of(state, "decision") if event["action"] == "stop"]
    assert forced[0]["forced"] is True


@pytest.mark.parametrize(
    ("call", "dice"), [("higher", (1, 1)), ("lower", (6, 6)), ("higher", (1, 4)), ("lower", (4, 1))]
)
def test_fifty_fifty_wrong_call_or_same_sum_ends_with_nothing(
    call: str, dice: tuple[int, int]
) -> None:
    state = fifty((2, 3))
    play(state, call, black(*dice))
    assert rewards(state, "Fifty Fifty") == []
    assert events_of(state, "fifty_fifty")[-1]["outcome"] == "lost"
    assert state.observe(0)["tiles"]["fifty_fifty"] == {"step": 0, "sum": 0}


# ------------------------------------------------------------- C1 High Five


def test_high_five_fifth_die_takes_the_token_and_pays_100k_at_payout() -> None:
    state = position(
        3, tiles={2: "C1"}, roll=(2, 2, 2, 4), hands=[(4, 0), (0, 0), (0, 0)], dice={2: {0: 2}}
    )
    play(state, "place 2", "die 4")  # seat 0's next roll: its last die
    assert state.observe(0)["tiles"]["high_five"] == 0
    play(state, "place 4")
    assert rewards(state, "High Five") == [(0, 0, 100 * K)]


def test_high_five_three_dice_and_the_biggie_count_five() -> None:
    state = position(3, tiles={2: "C1"}, roll=(2, 2, 2), biggie=2)
    play(state, "place 2")
    assert rewards(state, "High Five") == [(0, 0, 100 * K)]


def test_high_five_four_dice_are_not_enough_and_the_token_goes_once() -> None:
    state = position(3, tiles={2: "C1"}, roll=(2, 2, 2, 2))
    play(state, "place 2")
    assert rewards(state, "High Five") == []
    state = position(
        3, tiles={2: "C1"}, roll=(2,) * 5, tile_state={"high_five": 1}, dice={2: {1: 5}}
    )
    play(state, "place 2")
    assert rewards(state, "High Five") == [(1, 0, 100 * K)]


def test_high_five_token_pays_even_when_its_holder_is_tied_out() -> None:
    state = position(3, tiles={2: "C1"}, roll=(2,) * 5, dice={2: {1: 5}})
    play(state, "place 2")
    assert payout(state, 2)["cancelled"] == [[0, 1]]
    assert rewards(state, "High Five") == [(0, 0, 100 * K)]


# RULES.md: "when a player activates this casino (places dice there by a normal
# placement) and then has 5 or more dice there (Biggie 2), they take the token
# if it is still on the tile ... Dice that arrive by an effect that does not
# activate the casino ... count toward that player's total but do not by
# themselves take the token" (docs/rulings.md 31).


def high_five_position(
    tiles: Mapping[int, str], dice: Mapping[int, Mapping[int | str, int]], **kwargs: Any
) -> State:
    """High Five on casino 2, the other ``tiles`` elsewhere, ``dice`` already placed."""
    return position(3, tiles={2: "C1", **tiles}, dice=dice, **kwargs)


def high_five_tokens(state: State) -> list[int | None]:
    return [event["holder"] for event in events_of(state, "token") if event["tile"] == "C1"]


def test_high_five_a_turned_fifth_die_takes_nothing_until_the_seat_activates_the_casino() -> None:
    state = high_five_position({1: "F2"}, {2: {0: 4}}, roll=(1, 3, 5))
    # Handicap: turning a die onto casino 2 activates nothing; then seat 0's last roll.
    play(state, "place 1", "take 4 move", "turn die 2", "die 2")
    assert state.observe(0)["casinos"][1]["dice"]["0"] == 5
    assert high_five_tokens(state) == [] and state.observe(0)["tiles"]["high_five"] is None
    play(state, "place 2")  # now it activates the casino, with 6 dice
    assert high_five_tokens(state) == [0]
    assert rewards(state, "High Five") == [(0, 0, 100 * K)]


def test_high_five_prime_times_black_die_counts_but_takes_no_token() -> None:
    state = high_five_position(
        {1: "B1"}, {1: {1: 2}, 2: {1: 4}}, roll=(6,), cards={1: [60 * K, 30 * K]}
    )
    play(state, "place 6", "black 2 5", "add 2")
    assert payout(state, 2)["counts"] == {"1": 5}
    assert high_five_tokens(state) == [] and rewards(state, "High Five") == []


def test_high_five_my_choice_4_activates_it_as_if_dice_were_placed_there() -> None:
    state = high_five_position({1: "H2"}, {2: {0: 5}}, roll=(1,))
    play(state, "place 1", "black 4 1", "choose 4")  # "activate 2", the only other tile: forced
    assert [event["casino"] for event in events_of(state, "activate")] == [1, 2]
    assert high_five_tokens(state) == [0]
    assert rewards(state, "High Five") == [(0, 0, 100 * K)]


# -------------------------------------------------------------- C2 Bad Luck


def test_bad_luck_fewest_dice_before_tie_removal_pay_50k_at_round_end() -> None:
    state = position(
        3,
        tiles={1: "C2"},
        roll=(6,),
        dice={1: {0: 3, 1: 1, 2: 1}},
        won=[[50 * K], [40 * K], [100 * K]],
        cards={casino: [] for casino in range(1, 7)},
        chips=[2, 2, 0],
    )
    play(state, "place 6")
    (luck,) = events_of(state, "bad_luck")
    assert luck["seats"] == [1, 2] and luck["counts"] == [3, 1, 1]
    payments = [
        (e["seat"], e["due"], e["money"], e["chips"]) for e in events_of(state, "bank_payment")
    ]
    # Seat 1 has $40k: pays it and one chip; seat 2 pays from its $100k.
    assert payments == [(1, 50 * K, 40 * K, 1), (2, 50 * K, 50 * K, 0)]
    seen = state.observe(0)
    assert seen["money"] == [50 * K, 0, 50 * K]
    assert seen["chips"] == [4, 3, 2]  # after the 2 chips of round 2


def test_bad_luck_zero_dice_counts_and_biggie_counts_two() -> None:
    state = position(
        3,
        tiles={1: "C2"},
        roll=(6,),
        dice={1: {0: 2, 1: 2}},
        biggies={1: {0: 1}},
        cards={casino: [] for casino in range(1, 7)},
        chips=[2, 2, 1],
        won=[[], [], [30 * K]],
    )
    play(state, "place 6")
    assert events_of(state, "bad_luck")[0]["seats"] == [2]
    (payment,) = events_of(state, "bank_payment")
    # $30k and one chip ($10k) cover $40k of the $50k: everything, nothing below zero.
    assert (payment["money"], payment["chips"]) == (30 * K, 1)
    assert state.observe(0)["money"][2] == 0


def test_bad_luck_with_change_in_money_never_chips() -> None:
    state = position(
        2,
        tiles={1: "C2"},
        roll=(6,),
        dice={1: {0: 1}},
        cards={casino: [] for casino in range(1, 7)},
        chips=[2, 3],
        credit=[0, 45 * K],  # e.g. earlier bank rewards
    )
    play(state, "place 6")
    (payment,) = events_of(state, "bank_payment")
    assert (payment["seat"], payment["money"], payment["chips"]) == (1, 40 * K, 1)
    assert state.observe(0)["money"][1] == 5 * K


# --------------------------------------------------------------- D1 Pay Day


@pytest.mark.parametrize(
    ("others", "expected"),
    [
        ((), (0, 1, 0)),
        ((3,), (0, 2, 0)),
        ((3, 4), (0, 0, 30 * K)),
        ((2, 3, 4, 5, 6), (0, 0, 60 * K)),
    ],
)
def test_pay_day_10k_per_casino_with_your_dice_small_amounts_as_chips(
    others: tuple[int, ...], expected: tuple[int, int, int]
) -> None:
    state = position(3, tiles={1: "D1"}, roll=(1,), dice={c: {0: 1} for c in others})
    play(state, "place 1")
    assert rewards(state, "Pay Day") == [expected]


# ------------------------------------------------------------ D2 Power Play


def test_power_play_sole_majority_takes_the_token_and_next_turn_turns_a_die() -> None:
    state = position(
        3,
        tiles={2: "D2", 1: "A2"},
        roll=(2, 2, 5),
        hands=[(3, 0), (0, 0), (0, 0)],
        dice={2: {1: 1}},
    )
    play(state, "place 2")
    assert events_of(state, "token") == [{"type": "token", "tile": "D2", "holder": 0, "casino": 2}]
    # Nobody else holds dice: seat 0's next turn starts with the Power Play choice
    # (the option is spent as that turn starts).
    assert state.observe(0)["tiles"]["power_play"] == {"holder": 0, "ready": False}
    asks(state, 0, D.POWER)
    assert state.legal_actions()[0] == "roll"
    assert "turn die 1" in state.legal_actions() and "turn biggie 1" not in state.legal_actions()
    play(state, "turn die 1")
    # Placed on casino 1: its tile (Jackpot) is activated.
    activated = events_of(state, "activate")[-1]
    assert activated == {"type": "activate", "seat": 0, "casino": 1, "tile": "A2"}
    placed = events_of(state, "place")[-1]
    assert (placed["casino"], placed["dice"]) == (1, {"die": 1})


def test_power_play_holder_may_roll_instead() -> None:
    state = position(3, tiles={2: "D2"}, roll=(2, 2, 5), hands=[(3, 0), (0, 0), (0, 0)])
    play(state, "place 2")
    play(state, "roll", "die 4")
    asks(state, 0, D.PLACE)
    assert state.legal_actions() == ("place 4", "pass")


def test_power_play_token_is_taken_from_an_opponent() -> None:
    state = position(
        3,
        tiles={2: "D2"},
        roll=(2, 2, 2),
        hands=[(3, 0), (5, 1), (7, 1)],
        dice={2: {1: 2}},
        tile_state={"power_play": {"holder": 1, "ready": False}},
    )
    play(state, "place 2")
    # Straight from seat 1 to seat 0: it never went back to the tile in between.
    assert events_of(state, "token") == [{"type": "token", "tile": "D2", "holder": 0, "casino": 2}]
    assert state.observe(0)["tiles"]["power_play"]["holder"] == 0


# RULES.md: "The token returns to the tile when, at any moment of the round, no
# player (imaginary players included) has a clear majority there. Another player
# who gains the sole majority by activating the casino takes the token from its
# holder; one who gains it without activating (a turned die, Prime Time) does
# not, and the holder keeps it while some player has a clear majority"
# (docs/rulings.md 31).


def power_play_position(
    tiles: Mapping[int, str],
    dice: Mapping[int, Mapping[int | str, int]],
    holder: int,
    *,
    ready: bool = False,
    **kwargs: Any,
) -> State:
    """Power Play on casino 2, its token with ``holder``, ``dice`` already placed."""
    return position(
        3,
        tiles={2: "D2", **tiles},
        dice=dice,
        tile_state={"power_play": {"holder": holder, "ready": ready}},
        **kwargs,
    )


def power_play_tokens(state: State) -> list[int | None]:
    """The Power Play token's moves in the first round: each new holder (None: the tile)."""
    events = state.events()
    assert events is not None
    ends = [index for index, event in enumerate(events) if event["type"] == "round_end"]
    return [
        event["holder"]
        for event in events[: (ends or [len(events)])[0]]
        if event["type"] == "token" and event["tile"] == "D2"
    ]


@pytest.mark.parametrize(
    ("turn", "tokens", "holder"),
    [
        ("turn die 2", [None], None),  # seat 0 ties seat 1 at 3: nobody has a majority
        ("turn biggie 2", [], 1),  # seat 0 has 4 against 3, without activating
    ],
)
def test_power_play_a_turned_die_returns_the_token_only_when_nobody_has_a_clear_majority(
    turn: str, tokens: list[int | None], holder: int | None
) -> None:
    # Casino 2: seat 1 (the holder) 3 dice, seat 0 2 dice, 1 grey die (Handicap's).
    state = power_play_position(
        {1: "F2"}, {2: {0: 2, 1: 3}}, 1, roll=(1, 5), biggie=3, hands=[(2, 1), (0, 0), (1, 0)]
    )
    play(state, "place 1", "take 4 move", turn)  # Handicap's move: no activation
    assert power_play_tokens(state) == tokens
    assert state.observe(0)["tiles"]["power_play"]["holder"] == holder


def test_power_play_the_holder_keeps_and_uses_the_token_while_another_seat_leads() -> None:
    # Seat 1 took the token on its last turn (its option is still to come).
    state = power_play_position(
        {1: "F2"},
        {2: {0: 2, 1: 3}},
        1,
        ready=True,
        roll=(1, 5),
        biggie=3,
        hands=[(2, 1), (1, 0), (0, 0)],
    )
    play(state, "place 1", "take 4 move", "turn biggie 2")  # seat 0: 4 against 3
    assert power_play_tokens(state) == []
    asks(state, 1, D.POWER)  # seat 1 still has the token on its next turn
    play(state, "turn die 2")  # 4 against 4: nobody has a clear majority
    assert power_play_tokens(state) == [None]
    assert state.observe(0)["tiles"]["power_play"] == {"holder": None, "ready": False}


@pytest.mark.parametrize(
    ("block", "tokens", "holder"),
    [
        ("block 3 2", [], 1),  # grey 3 against 2: an imaginary player leads, seat 1 keeps it
        ("block 2 2", [None], None),  # grey 2 ties seat 1 (the rulebook's example)
        ("block 1 2", [], 1),
    ],
)
def test_power_play_grey_dice_return_the_token_only_on_a_tie(
    block: str, tokens: list[int | None], holder: int | None
) -> None:
    state = power_play_position(
        {1: "F1"}, {2: {1: 2}}, 1, roll=(1,), hands=[(1, 0), (0, 0), (1, 0)]
    )
    play(state, "place 1", block)
    assert power_play_tokens(state) == tokens
    assert state.observe(0)["tiles"]["power_play"]["holder"] == holder


@pytest.mark.parametrize(
    ("dice", "add", "tokens"),
    [
        ((2, 5), "add 2", [None]),  # seat 1 ties the holder (seat 2) at 2
        ((2, 2), "add 2 2", []),  # both dice at once: 3 against 2, the holder keeps it
        ((2, 5), "add 5", []),
    ],
)
def test_power_play_prime_times_black_dice_return_the_token_only_on_a_tie(
    dice: tuple[int, int], add: str, tokens: list[int | None]
) -> None:
    # Prime Time at casino 1 (seat 1 wins it), Power Play at 2 (seat 2 holds the token).
    state = power_play_position(
        {1: "B1"}, {1: {1: 2}, 2: {1: 1, 2: 2}}, 2, roll=(6,), cards={1: [60 * K, 30 * K]}
    )
    play(state, "place 6", black(*dice))
    asks(state, 1, D.ADD)
    play(state, add)
    assert power_play_tokens(state) == tokens


def test_block_it_example_grey_dice_return_the_power_play_token() -> None:
    # Casino 2 (Power Play): 1 blue, 1 yellow, 2 red dice; red holds the token.
    # Two blank dice tie red: the token goes back, and nobody wins casino 2.
    state = position(
        4,
        tiles={1: "F1", 2: "D2"},
        mover=0,
        roll=(1,),
        dice={2: {0: 1, 1: 1, 2: 2}},
        cards={2: [60 * K, 30 * K]},
        tile_state={"power_play": {"holder": 2, "ready": False}},
    )
    play(state, "place 1")
    asks(state, 0, D.BLOCK)
    play(state, "block 2 2")
    assert events_of(state, "token")[-1] == {
        "type": "token",
        "tile": "D2",
        "holder": None,
        "casino": 2,
    }
    assert payout(state, 2)["awards"] == []
    assert payout(state, 2)["cancelled"] == [[2, "grey"], [0, 1]]


# ------------------------------------------------------------ E1 No Entry!


def test_no_entry_closes_a_casino_and_advances_the_track() -> None:
    state = position(3, tiles={1: "E1"}, roll=(1, 4), hands=[(2, 0), (0, 0), (0, 0)])
    play(state, "place 1")
    asks(state, 0, D.CLOSE)
    assert state.legal_actions() == ("close 2", "close 3", "close 4", "close 5", "close 6", "keep")
    play(state, "close 4")
    assert rewards(state, "No Entry!") == [(0, 2, 0)]
    assert state.observe(0)["tiles"]["no_entry"] == {"closed": 4, "track": 1}
    assert state.observe(0)["casinos"][3]["closed"] is True


@pytest.mark.parametrize(
    ("track", "expected"),
    [(1, []), (2, [(0, 0, 30 * K)]), (3, []), (4, [(0, 1, 0)]), (5, []), (6, [(0, 2, 0)])],
)
def test_no_entry_track_rewards_are_cyclic(
    track: int, expected: list[tuple[int, int, int]]
) -> None:
    state = position(
        3, tiles={1: "E1"}, roll=(1,), tile_state={"no_entry": {"closed": 3, "track": track}}
    )
    play(state, "place 1")
    assert "close 3" not in state.legal_actions()
    play(state, "close 5")
    assert rewards(state, "No Entry!") == expected


def test_no_entry_keeping_the_token_gives_nothing() -> None:
    state = position(
        3, tiles={1: "E1"}, roll=(1,), tile_state={"no_entry": {"closed": 3, "track": 2}}
    )
    play(state, "place 1", "keep")
    assert rewards(state, "No Entry!") == []
    assert events_of(state, "no_entry") == [
        {"type": "no_entry", "seat": 0, "closed": None, "track": 2}
    ]


def test_a_closed_casino_takes_no_dice_and_a_roll_of_closed_faces_places_nothing() -> None:
    closed = {"no_entry": {"closed": 4, "track": 1}}
    state = position(3, tiles={1: "E1"}, roll=(4, 4, 5), tile_state=closed)
    assert state.legal_actions() == ("place 5", "pass")
    state = position(3, tiles={1: "E1"}, roll=(4, 4), tile_state=closed, chips=[2, 2, 2])
    # Forced: no chip is spent, the dice stay in hand.
    (skip,) = events_of(state, "decision")[:1]
    assert (skip["action"], skip["forced"]) == ("skip", True)
    assert state.observe(0)["chips"][0] == 2


def test_a_tile_on_a_closed_casino_is_inactive() -> None:
    state = position(
        3,
        tiles={1: "E1", 3: "G1"},
        roll=(6,),
        dice={3: {1: 2}},
        tile_state={"no_entry": {"closed": 3, "track": 1}},
    )
    play(state, "place 6")
    assert not events_of(state, "black_box")
    assert state.observe(0)["round"] == 2


# ------------------------------------------------------------ E2 Knockout?


def test_knockout_each_opponent_bars_a_die_and_the_activator_gets_its_own_back() -> None:
    state = position(
        3,
        tiles={2: "E2"},
        roll=(2,),
        hands=[(1, 0), (3, 1), (0, 1)],
        tile_state={
            "bar": [{"die": 1, "biggie": 0}, {"die": 0, "biggie": 0}, {"die": 0, "biggie": 0}]
        },
    )
    play(state, "place 2")
    asks(state, 1, D.BAR)
    assert state.legal_actions() == ("bar die", "bar biggie")
    play(state, "bar biggie")
    # Seat 2 holds only its Biggie: forced.
    seen = state.observe(0)
    assert seen["tiles"]["bar"] == [
        {"die": 0, "biggie": 0},
        {"die": 0, "biggie": 1},
        {"die": 0, "biggie": 1},
    ]
    assert seen["hands"] == [
        {"die": 1, "biggie": 0},
        {"die": 3, "biggie": 0},
        {"die": 0, "biggie": 0},
    ]
    assert state.to_move() == (1,)


def test_knockout_at_most_two_dice_per_opponent_in_the_bar() -> None:
    state = position(
        2,
        tiles={2: "E2"},
        roll=(2,),
        hands=[(1, 0), (3, 1)],
        tile_state={"bar": [{"die": 0, "biggie": 0}, {"die": 2, "biggie": 0}]},
    )
    play(state, "place 2")
    assert state.observe(0)["hands"][1] == {"die": 3, "biggie": 1}
    assert not [e for e in events_of(state, "move") if e["to"] == "bar"]


# ------------------------------------------------------------ F1 Block It!


def test_block_it_puts_a_grey_group_on_any_casino_as_an_imaginary_player() -> None:
    state = position(3, tiles={1: "F1"}, roll=(1,), dice={5: {1: 2}}, cards={5: [90 * K, 50 * K]})
    play(state, "place 1")
    asks(state, 0, D.BLOCK)
    legal = state.legal_actions()
    assert legal[:6] == tuple(f"block 1 {c}" for c in range(1, 7))
    assert len(legal) == 18
    play(state, "block 3 5")
    assert payout(state, 5)["awards"] == [
        {"owner": "grey", "note": 90 * K},
        {"owner": 1, "note": 50 * K},
    ]
    assert 90 * K in state.observe(0)["under_pile"]


def test_block_it_groups_are_used_up() -> None:
    state = position(3, tiles={1: "F1"}, roll=(1,), tile_state={"block_it": [2]})
    play(state, "place 1")
    assert state.legal_actions() == tuple(f"block 2 {c}" for c in range(1, 7))
    state = position(3, tiles={1: "F1"}, roll=(1,), tile_state={"block_it": []})
    play(state, "place 1")
    assert not [e for e in events_of(state, "move") if e["die"] == "grey"]


# ------------------------------------------------------------- F2 Handicap


def test_handicap_setup_one_grey_die_on_1_to_3_and_two_on_4_to_6() -> None:
    state = new_game(describe("royale", 3, {"tiles": 6}), 0, chance="explicit")
    play(state, "tile F2")  # chance puts Handicap at casino 1; the tape deals the rest
    seen = state.observe(0)
    assert seen["casinos"][0]["tile"] == "F2"
    grey = [entry["dice"].get("grey", 0) for entry in seen["casinos"]]
    assert grey == list(ROYALE_RULES.tiles.handicap_setup)


@pytest.mark.parametrize(("kind", "expected"), [("chip", (0, 1, 0)), ("money", (0, 0, 30 * K))])
def test_handicap_take_a_grey_die_for_a_chip_or_30k(
    kind: str, expected: tuple[int, int, int]
) -> None:
    state = position(3, tiles={1: "F2"}, roll=(1,))
    play(state, "place 1")
    asks(state, 0, D.HANDICAP)
    assert state.legal_actions()[-1] == "take none"
    play(state, f"take 5 {kind}")
    assert rewards(state, "Handicap") == [expected]
    assert payout(state, 5)["counts"] == {"grey": 1}


def test_handicap_move_reward_turns_or_returns_a_die() -> None:
    state = position(
        3, tiles={1: "F2"}, roll=(1, 3), hands=[(2, 0), (0, 0), (0, 0)], dice={6: {0: 1}}
    )
    play(state, "place 1", "take 4 move")
    asks(state, 0, D.MOVE)
    legal = state.legal_actions()
    assert "turn die 6" in legal and "return 6 die" in legal and "return 1 die" in legal
    play(state, "turn die 6")
    # Placed on casino 6 without activating anything there.
    assert payout(state, 6)["counts"]["0"] == 2
    assert [event["casino"] for event in events_of(state, "activate")] == [1]


def test_handicap_return_a_die_to_the_supply_and_spaces_run_out() -> None:
    state = position(
        3,
        tiles={1: "F2"},
        roll=(1,),
        dice={6: {0: 1}},
        tile_state={"handicap": {"chip": 0, "money": 0, "move": 1}},
    )
    play(state, "place 1")
    assert all(not a.endswith(("chip", "money")) for a in state.legal_actions())
    play(state, "take 6 move", "return 6 die")
    assert state.to_move() == (0,)  # the returned die is rolled on its next turn
    assert state.observe(0)["hands"][0]["die"] == 1


def test_handicap_taking_nothing_gives_nothing() -> None:
    state = position(3, tiles={1: "F2"}, roll=(1,))
    play(state, "place 1", "take none")
    assert rewards(state, "Handicap") == []


# ------------------------------------------------------------ G1 Black Box


def black_box() -> State:
    state = position(
        3, tiles={1: "G1"}, roll=(6,), dice={1: {1: 2, 2: 1}}, cards={1: [60 * K, 30 * K]}
    )
    play(state, "place 6")
    asks(state, 2, D.SPLIT)  # left of the winner (seat 1) splits
    return state


def test_black_box_splits_are_3_3_4_2_5_1() -> None:
    state = black_box()
    legal = state.legal_actions()
    assert len(legal) == 14
    assert "split 60k+20k+20k/0+0+0" in legal and "split 0+0+0/60k+20k+20k" in legal
    assert "split 60k+20k+0+0/20k+0" in legal and "split 60k+20k+20k+0+0/0" in legal


@pytest.mark.parametrize(
    ("split", "pick", "expected"),
    [
        ("split 60k+20k+20k/0+0+0", "pile 1", [(1, 0, 100 * K)]),
        ("split 60k+20k+20k/0+0+0", "pile 2", []),
        ("split 60k+20k+0+0+0/20k", "pile 2", [(1, 2, 0)]),  # $20k paid as 2 chips
        ("split 60k+0+0+0/20k+20k", "pile 2", [(1, 0, 40 * K)]),
        ("split 20k+20k+0+0/60k+0", "pile 1", [(1, 0, 40 * K)]),
        ("split 60k+20k+0/20k+0+0", "pile 1", [(1, 0, 80 * K)]),
    ],
)
def test_black_box_winner_picks_a_face_down_pile(
    split: str, pick: str, expected: list[tuple[int, int, int]]
) -> None:
    state = black_box()
    play(state, split)
    asks(state, 1, D.PILE)
    # Face down: only the splitter knows the piles; all see their sizes.
    for seat in (0, 1):
        assert state.observe(seat)["tiles"]["black_box"]["split"] is None
    assert state.observe(2)["tiles"]["black_box"]["split"] == split
    play(state, pick)
    assert rewards(state, "Black Box") == expected
    (event,) = events_of(state, "black_box")
    assert event["pick"] == int(pick[-1]) and event["splitter"] == 2


def pile_values(split: str, pick: int) -> list[int]:
    """The tokens of pile ``pick`` of a split action, e.g. "split 60k+0/20k+20k+0+0"."""
    pile = split.removeprefix("split ").split("/")[pick - 1]
    return [int(token.removesuffix("k")) * K for token in pile.split("+")]


@pytest.mark.parametrize("pick", [1, 2])
def test_black_box_pays_the_chosen_piles_total(pick: int) -> None:
    """RULES.md: "paid the pile's total: a pile worth exactly $20k is paid as 2
    chips, $40k or more as money, $0 is nothing" (docs/rulings.md 33): so
    $60k + $20k is $80,000 in money, never $60,000 and 2 chips."""
    totals = set()
    for split in black_box().legal_actions():
        state = black_box()
        play(state, split, f"pile {pick}")
        total = sum(pile_values(split, pick))
        totals.add(total)
        expected = {0: [], 20 * K: [(1, 2, 0)]}.get(total, [(1, 0, total)])
        assert rewards(state, "Black Box") == expected, split
    assert totals == {0, 20 * K, 40 * K, 60 * K, 80 * K, 100 * K}


def test_black_box_without_a_seat_winning_asks_nobody() -> None:
    state = position(3, tiles={1: "G1"}, roll=(6,), dice={1: {1: 2, 2: 2}})
    play(state, "place 6")
    assert not events_of(state, "black_box") and state.observe(0)["round"] == 2


# ---------------------------------------------------------- G2 Double Down


def test_double_down_moves_any_of_your_dice_to_the_side_bet_paid_60k_30k() -> None:
    state = position(
        3,
        tiles={2: "G2"},
        roll=(2, 2),
        biggie=2,
        dice={2: {0: 1}},
        tile_state={
            "side_bet": [{"die": 0, "biggie": 0}, {"die": 2, "biggie": 0}, {"die": 0, "biggie": 0}]
        },
    )
    play(state, "place 2")
    asks(state, 0, D.BET)
    assert state.legal_actions() == (
        "bet 0",
        "bet 0 biggie",
        "bet 1",
        "bet 1 biggie",
        "bet 2",
        "bet 2 biggie",
        "bet 3",
        "bet 3 biggie",
    )
    play(state, "bet 2 biggie")
    (side,) = events_of(state, "side_bet")
    assert side["counts"] == {"0": 4, "1": 2}
    assert rewards(state, "Double Down") == [(0, 0, 60 * K), (1, 0, 30 * K)]
    # The dice left on the casino still count there.
    assert payout(state, 2)["counts"] == {"0": 1}


def test_double_down_ties_on_the_side_bet_cancel() -> None:
    state = position(
        3,
        tiles={2: "G2"},
        roll=(2,),
        dice={},
        tile_state={
            "side_bet": [{"die": 1, "biggie": 0}, {"die": 2, "biggie": 0}, {"die": 0, "biggie": 0}]
        },
    )
    play(state, "place 2", "bet 1")
    assert rewards(state, "Double Down") == []


# ------------------------------------------------------------ H1 Nice Dice


def test_nice_dice_put_a_rolled_or_placed_die_on_its_face_space() -> None:
    state = position(
        3,
        tiles={1: "H1"},
        roll=(1, 1, 4, 6),
        biggie=5,
        tile_state={"nice_dice": {"6": {"owner": 1, "die": "die"}}},
    )
    play(state, "place 1")
    asks(state, 0, D.NICE)
    assert state.legal_actions() == ("nice none", "nice 1", "nice 4", "nice 5 biggie", "nice 6")
    play(state, "nice 6")  # bumps seat 1's die to casino 6
    seen = state.observe(0)
    assert seen["tiles"]["nice_dice"] == {"6": {"owner": 0, "die": "die"}}
    assert seen["casinos"][5]["dice"] == {"1": 1}
    assert seen["hands"][0] == {"die": 1, "biggie": 1}


def test_nice_dice_pays_face_times_10k_and_faces_1_2_as_chips() -> None:
    state = position(
        3,
        tiles={1: "H1"},
        roll=(1, 1),
        chips=[2, 2, 2],
        tile_state={
            "nice_dice": {"2": {"owner": 1, "die": "die"}, "5": {"owner": 2, "die": "biggie"}}
        },
    )
    play(state, "place 1", "nice 1")
    assert rewards(state, "Nice Dice") == [(0, 1, 0), (1, 2, 0), (2, 0, 50 * K)]
    assert payout(state, 1)["counts"] == {"0": 1}


def test_nice_dice_none_keeps_the_tile_empty() -> None:
    state = position(3, tiles={1: "H1"}, roll=(1,))
    play(state, "place 1", "nice none")
    assert rewards(state, "Nice Dice") == []


# ------------------------------------------------------------ H2 My Choice


@pytest.mark.parametrize(
    ("dice", "choice", "expected"),
    [
        ((1, 3), "choose 1", (0, 1, 0)),
        ((2, 3), "choose 2", (0, 2, 0)),
        ((2, 3), "choose 3", (0, 0, 30 * K)),
    ],
)
def test_my_choice_rewards(
    dice: tuple[int, int], choice: str, expected: tuple[int, int, int]
) -> None:
    state = position(3, tiles={1: "H2"}, roll=(1,))
    play(state, "place 1", black(*dice))
    asks(state, 0, D.CHOOSE)
    assert state.legal_actions() == tuple(f"choose {face}" for face in sorted(set(dice)))
    play(state, choice)
    assert rewards(state, "My Choice") == [expected]


def test_my_choice_double_is_forced() -> None:
    state = position(3, tiles={1: "H2"}, roll=(1,))
    play(state, "place 1", "black 3 3")
    assert rewards(state, "My Choice") == [(0, 0, 30 * K)]


def test_my_choice_4_activates_another_tile() -> None:
    state = position(3, tiles={1: "H2", 2: "D1", 3: "C2"}, roll=(1,), dice={6: {0: 1}})
    play(state, "place 1", "black 4 1", "choose 4")
    asks(state, 0, D.ACTIVATE)
    assert state.legal_actions() == ("activate 2", "activate 3")
    play(state, "activate 2")
    assert rewards(state, "Pay Day") == [(0, 2, 0)]


def test_my_choice_5_turns_or_returns_a_die_without_activation() -> None:
    state = position(3, tiles={1: "H2", 2: "D1"}, roll=(1, 3), hands=[(2, 0), (0, 0), (0, 0)])
    play(state, "place 1", "black 5 5")
    asks(state, 0, D.MOVE)
    play(state, "turn die 2")
    assert rewards(state, "Pay Day") == []
    assert payout(state, 2)["counts"] == {"0": 1}


def test_my_choice_6_golden_space_pays_60k_at_round_end() -> None:
    state = position(
        3,
        tiles={1: "H2"},
        roll=(1, 3),
        biggie=4,
        hands=[(2, 1), (0, 0), (0, 0)],
        cards={c: [] for c in range(1, 7)},
    )
    play(state, "place 1", "black 6 6")
    asks(state, 0, D.GOLD)
    assert state.legal_actions() == ("gold die", "gold biggie")
    play(state, "gold biggie", "die 3")  # then seat 0's last roll
    assert state.observe(0)["tiles"]["golden"] == {"owner": 0, "die": "biggie"}
    play(state, "place 3")
    assert rewards(state, "My Choice") == [(0, 0, 60 * K)]


def test_my_choice_effects_that_cannot_happen_do_nothing() -> None:
    state = position(3, tiles={1: "H2"}, roll=(1,))  # no other tile, no die left
    play(state, "place 1", "black 4 6", "choose 4")
    assert state.observe(0)["round"] == 2
    state = position(3, tiles={1: "H2"}, roll=(1,))
    play(state, "place 1", "black 4 6", "choose 6")
    assert state.observe(0)["round"] == 2


# ------------------------------------------------ hidden information property


def test_states_differing_in_lucky_punch_tokens_look_the_same_to_other_seats() -> None:
    views = []
    for tokens in (1, 2, 3):
        state = position(3, tiles={1: "A1"}, mover=1, roll=(1,), seed=4)
        play(state, "place 1", f"hide {tokens}")
        views.append([state.observe(seat) for seat in range(3)])
    for seat in (0, 2):
        assert views[0][seat] == views[1][seat] == views[2][seat]
    assert views[0][1] != views[1][1]


def test_states_differing_in_the_black_box_split_look_the_same_except_to_the_splitter() -> None:
    views = []
    for split in ("split 60k+20k+0/20k+0+0", "split 20k+0+0/60k+20k+0", "split 0+0+0/60k+20k+20k"):
        state = black_box()
        play(state, split)
        views.append([state.observe(seat) for seat in range(3)])
    for seat in (0, 1):
        assert views[0][seat] == views[1][seat] == views[2][seat]
    assert views[0][2] != views[1][2]


def test_states_differing_in_the_pile_order_look_the_same() -> None:
    state = position(3, tiles={1: "G1"}, roll=(6, 6), hands=[(2, 0), (0, 0), (0, 0)])
    seen = state.observe(0)
    first, second = determinize(seen, seed=1), determinize(seen, seed=2)
    for seat in range(3):
        assert first.observe(seat) == second.observe(seat) == state.observe(seat)
    # ... yet their piles differ: the next round deals different cards.
    for sampled in (first, second):
        sampled.apply_action("place 6")
    assert first.observe(0)["round"] == second.observe(0)["round"] == 2
    assert [e["cards"] for e in first.observe(0)["casinos"]] != [
        e["cards"] for e in second.observe(0)["casinos"]
    ]


def test_determinize_samples_the_hidden_tokens_and_split_consistently() -> None:
    state = position(3, tiles={1: "A1"}, mover=1, roll=(1,))
    play(state, "place 1", "hide 3")
    for seat in range(3):
        seen = state.observe(seat)
        for seed in range(5):
            sampled = determinize(seen, seed)
            assert sampled.observe(seat) == seen
            sampled.apply_action("guess 1")  # the sampled tokens are a legal count
    state = black_box()
    play(state, "split 60k+20k+0+0/20k+0")
    for seat in range(3):
        seen = state.observe(seat)
        for seed in range(5):
            sampled = determinize(seen, seed)
            assert sampled.observe(seat) == seen
            before = sampled.observe(1)
            sampled.apply_action("pile 2")
            after = sampled.observe(1)
            # A sampled 4 + 2 split: pile 2 holds two tokens, worth 0 to $80k.
            gained = after["bank_credit"][1] - before["bank_credit"][1]
            chips = after["chips"][1] - before["chips"][1] - 2  # round 2 chips
            assert (gained, chips) in {(0, 0), (0, 2), (40 * K, 0), (60 * K, 0), (80 * K, 0)}


def test_prime_time_black_dice_cannot_enter_a_closed_casino() -> None:
    state = position(
        3,
        tiles={1: "E1", 2: "B1"},
        roll=(6,),
        dice={2: {1: 2}},
        tile_state={"no_entry": {"closed": 5, "track": 1}},
    )
    play(state, "place 6", "black 5 2")
    asks(state, 1, D.ADD)
    assert state.legal_actions() == ("add none", "add 2")


def test_nice_dice_space_whose_die_would_be_bumped_into_a_closed_casino_is_unavailable() -> None:
    state = position(
        3,
        tiles={1: "H1", 2: "E1"},
        roll=(1, 6, 4),
        tile_state={
            "no_entry": {"closed": 6, "track": 1},
            "nice_dice": {"6": {"owner": 2, "die": "die"}},
        },
    )
    play(state, "place 1")
    assert state.legal_actions() == ("nice none", "nice 1", "nice 4")


def test_nice_dice_space_of_a_closed_casinos_face_is_offered_while_empty() -> None:
    # Nothing would be bumped into closed casino 6: the space takes the die.
    state = position(
        3,
        tiles={1: "H1", 2: "E1"},
        roll=(1, 6, 4),
        tile_state={"no_entry": {"closed": 6, "track": 1}},
    )
    play(state, "place 1")
    assert state.legal_actions() == ("nice none", "nice 1", "nice 4", "nice 6")


def test_nice_dice_spaces_pay_nothing_while_its_casino_is_closed() -> None:
    spaces = {"2": {"owner": 1, "die": "die"}, "5": {"owner": 2, "die": "biggie"}}
    for closed, paid in ((1, []), (4, [(1, 2, 0), (2, 0, 50 * K)])):
        state = position(
            3,
            tiles={1: "H1", 2: "E1"},
            roll=(3,),
            tile_state={"no_entry": {"closed": closed, "track": 1}, "nice_dice": spaces},
        )
        play(state, "place 3")
        assert state.observe(0)["round"] == 2
        assert rewards(state, "Nice Dice") == paid


def test_my_choice_golden_space_pays_nothing_while_its_casino_is_closed() -> None:
    # RULES.md E1: nothing on a closed casino's tile pays at round end, "not My
    # Choice's golden $60k space"; closing another casino changes nothing.
    for closed, paid in ((1, []), (4, [(0, 0, 60 * K)])):
        state = position(
            3,
            tiles={1: "H2", 2: "E1"},
            roll=(3,),
            tile_state={
                "no_entry": {"closed": closed, "track": 1},
                "golden": {"owner": 0, "die": "biggie"},
            },
        )
        play(state, "place 3")
        assert state.observe(0)["round"] == 2
        assert rewards(state, "My Choice") == paid


def test_knockout_opponents_decide_in_order_from_the_activators_left() -> None:
    state = position(4, tiles={3: "E2"}, mover=2, roll=(3,), hands=[(2, 1), (2, 1), (1, 0), (2, 1)])
    play(state, "place 3")
    order = []
    while state.decision() is D.BAR:  # type: ignore[comparison-overlap]
        order.append(state.to_move()[0])
        play(state, "bar die")
    assert order == [3, 0, 1]
