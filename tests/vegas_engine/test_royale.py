"""`royale` (seed 003): the basic game, the rulebook's worked examples, flow and properties.

Situations are set up with :func:`position`: it edits a fresh game's
position (tiles, dice, hands, the roll of the seat to move, chips, cards, tile
state) and starts there with ``vegas_engine.from_position`` and explicit
chance, so :func:`play` can give the coming dice (``"black 3 4"``) where the
test needs them and let the seed's tape give the rest. The tiles have their
own tests in ``test_royale_tiles.py``, which reuses these helpers.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from vegas_engine import (
    IllegalActionError,
    State,
    describe,
    determinize,
    from_position,
    new_game,
)
from vegas_engine import log as game_logs
from vegas_engine.policies import dice_spent, expected_gain
from vegas_engine.replay import replay
from vegas_engine.rules.dice import rank_casino
from vegas_engine.rules.royale import ROYALE_RULES, RoyaleGame
from vegas_engine.rules.royale.game import CASINOS
from vegas_engine.rules.royale.tiles import (
    TILE_CODES,
    arrange_pairs,
    bank_payment,
    sole_majority,
)

JsonDict = dict[str, Any]
K = 1000


# ---------------------------------------------------------------- helpers


def position(
    seats: int = 3,
    *,
    tiles: Mapping[int, str] | None = None,
    mover: int = 0,
    roll: Sequence[int] = (6,),
    biggie: int | None = None,
    hands: Sequence[tuple[int, int]] | None = None,
    dice: Mapping[int, Mapping[int | str, int]] | None = None,
    biggies: Mapping[int, Mapping[int, int]] | None = None,
    chips: Sequence[int] | None = None,
    cards: Mapping[int, list[int]] | None = None,
    won: Sequence[list[int]] | None = None,
    credit: Sequence[int] | None = None,
    tile_state: Mapping[str, Any] | None = None,
    round_number: int = 1,
    start: int = 0,
    options: Mapping[str, bool | int] | None = None,
    seed: int = 0,
    log: bool = True,
) -> State:
    """A round-``round_number`` position where ``mover`` has just rolled ``roll`` (+ ``biggie``).

    ``tiles`` maps casino -> tile code; ``dice`` casino -> {owner: count}
    (owners: seats, "neutral", "grey"; a Biggie counts 2 and is also listed in
    ``biggies``). By default only the mover holds dice (exactly those rolled),
    so the round ends after its turn, and every seat has 2 chips.
    """
    tiles = dict(tiles or {})
    description = describe("royale", seats, {"tiles": len(tiles), **dict(options or {})})
    seen = new_game(description, seed, log=False).position()
    for entry in seen["casinos"]:
        entry["tile"] = None
        entry["dice"] = {}
        entry["biggies"] = {}
        entry["closed"] = False
    for casino, code in tiles.items():
        seen["casinos"][casino - 1]["tile"] = code
    data = ROYALE_RULES.tiles
    state: JsonDict = {
        "jackpot": data.jackpot_start,
        "fifty_fifty": {"step": 0, "sum": 0},
        "high_five": None,
        "power_play": {"holder": None, "ready": False},
        "no_entry": {"closed": None, "track": 0},
        "bar": [{"die": 0, "biggie": 0} for _ in range(seats)],
        "block_it": list(data.block_it_groups) if "F1" in tiles.values() else [],
        "handicap": {
            kind: data.handicap_spaces[kind] if "F2" in tiles.values() else 0
            for kind in ("chip", "money", "move")
        },
        "side_bet": [{"die": 0, "biggie": 0} for _ in range(seats)],
        "nice_dice": {},
        "golden": None,
        "lucky_punch": None,
        "black_box": None,
        "bad_luck": [],
    }
    if "F2" in tiles.values():
        for casino, count in enumerate(data.handicap_setup):
            seen["casinos"][casino]["dice"]["grey"] = count
    state.update(tile_state or {})
    seen["tiles"] = state
    for entry in seen["casinos"]:  # a casino is closed where No Entry's token lies
        entry["closed"] = entry["casino"] == state["no_entry"]["closed"]
    for casino, owners in (dice or {}).items():
        seen["casinos"][casino - 1]["dice"].update({str(o): c for o, c in owners.items()})
    for casino, big_owners in (biggies or {}).items():
        seen["casinos"][casino - 1]["biggies"] = {str(o): c for o, c in big_owners.items()}
    for casino, values in (cards or {}).items():
        seen["casinos"][casino - 1]["cards"] = sorted(values, reverse=True)
    if hands is None:
        hands = [(0, 0)] * seats
        hands = [*hands[:mover], (len(roll), 1 if biggie else 0), *hands[mover + 1 :]]
    seen["hands"] = [{"die": d, "biggie": b} for d, b in hands]
    seen["roll"] = {"die": sorted(roll)} if roll else {}
    if biggie:
        seen["roll"]["biggie"] = [biggie]
    seen["chips"] = list(chips) if chips is not None else [2] * seats
    if won is not None:
        seen["won"] = [list(cards_won) for cards_won in won]
    if credit is not None:
        seen["bank_credit"] = list(credit)
    seen["current_player"] = mover
    seen["decision"] = "place"
    seen["context"] = {}
    seen["pending"] = []
    seen["round"] = round_number
    seen["start_player"] = start
    return from_position(description, seen, seed, log=log, chance="explicit")


def events_of(state: State, kind: str) -> list[JsonDict]:
    events = state.events()
    assert events is not None
    return [event for event in events if event["type"] == kind]


def play(state: State, *steps: str) -> None:
    """Take ``steps`` in order: actions of the seat to move, and chance outcomes.

    An outcome (``"black 3 4"``, ``"die 4"``) goes to the first chance node from
    here that lists it; the chance nodes before it, and those after the last
    step, take the tape's outcome. So ``play(state, "place 1", "black 3 4")``
    places, then the black dice show 3 and 4.
    """
    for step in steps:
        while state.is_chance_node() and step not in dict(state.chance_outcomes()):
            state.apply_chance(state.tape_outcome())
        if state.is_chance_node():
            state.apply_chance(step)
            continue
        seat = state.to_move()[0]
        assert step in state.legal_actions(seat), (step, state.legal_actions(seat))
        state.apply_action(step, seat)
    while state.is_chance_node():
        state.apply_chance(state.tape_outcome())


def payout(state: State, casino: int) -> JsonDict:
    return next(event for event in events_of(state, "payout") if event["casino"] == casino)


# ------------------------------------------------------ components, deal


def test_the_ninety_money_cards_of_rules_md() -> None:
    assert Counter(ROYALE_RULES.card_list) == {
        30 * K: 11,
        40 * K: 11,
        50 * K: 13,
        60 * K: 15,
        70 * K: 13,
        80 * K: 11,
        90 * K: 9,
        100 * K: 7,
    }
    assert len(ROYALE_RULES.card_list) == 90


def test_pairs_go_to_the_casinos_by_sum_and_equal_sums_by_the_higher_card() -> None:
    # Dealt in pairs: (90k, 30k) and (70k, 50k) both sum to 120k: the pair with
    # the higher single card (90k) goes to the higher casino (rulebook: casinos 5 + 4).
    dealt = [30, 40, 70, 50, 100, 90, 90, 30, 40, 40, 60, 30]
    casinos = arrange_pairs([value * K for value in dealt])
    assert [[v // K for v in pair] for pair in casinos] == [
        [40, 30],  # 70 -> casino 1
        [40, 40],  # 80
        [60, 30],  # 90
        [70, 50],  # 120, higher card 70
        [90, 30],  # 120, higher card 90
        [100, 90],  # 190 -> casino 6
    ]


def test_identical_pairs_are_interchangeable_and_a_short_deal_fills_the_top() -> None:
    assert arrange_pairs([50 * K, 50 * K, 50 * K, 50 * K]) == [
        [],
        [],
        [],
        [],
        [50 * K] * 2,
        [50 * K] * 2,
    ]


@pytest.mark.parametrize("tiles", [0, 3])
def test_every_round_deals_six_pairs_in_casino_order(tiles: int) -> None:
    state = new_game(describe("royale", 4, {"tiles": tiles}), 11)
    chooser = random.Random(1)
    rounds_seen = 0
    for event in events_of(state, "round_start"):
        assert event["round"] == 1
    while not state.is_terminal():
        state.apply_action(chooser.choice(state.legal_actions()))
    stocks = events_of(state, "stock")
    assert len(stocks) == 18
    for round_index in range(3):
        pairs = [event["notes"] for event in stocks[6 * round_index : 6 * round_index + 6]]
        rounds_seen += 1
        assert [event["casino"] for event in stocks[6 * round_index : 6 * round_index + 6]] == [
            1,
            2,
            3,
            4,
            5,
            6,
        ]
        assert all(len(pair) == 2 and pair[0] >= pair[1] for pair in pairs)
        keys = [(sum(pair), pair) for pair in pairs]
        assert keys == sorted(keys)
    assert rounds_seen == 3


def test_basic_game_has_no_tiles_no_bank_and_keeps_the_rest_as_the_pile() -> None:
    state = new_game(describe("royale", 3, {"tiles": 0}), 5)
    seen = state.observe(0)
    assert all(entry["tile"] is None for entry in seen["casinos"])
    assert seen["bank_cards"] == []
    assert seen["pile_size"] == 90 - 12
    assert not events_of(state, "tile_setup")


@pytest.mark.parametrize("tiles", [1, 2, 3, 4, 5, 6])
def test_main_game_tiles_go_to_casinos_one_up_and_24_cards_are_set_aside(tiles: int) -> None:
    codes: Counter[str] = Counter()
    for seed in range(40):
        state = new_game(describe("royale", 4, {"tiles": tiles}), seed)
        seen = state.observe(0)
        placed = [entry["tile"] for entry in seen["casinos"]]
        assert all(code is not None for code in placed[:tiles])
        assert all(code is None for code in placed[tiles:])
        # Each tile is one side of a physical tile A..H: never both sides at once.
        letters = [code[0] for code in placed[:tiles]]
        assert len(set(letters)) == tiles
        assert seen["pile_size"] == 24
        assert len(seen["bank_cards"]) == 90 - 12 - 24
        codes.update(placed[:tiles])
    if tiles >= 3:
        assert set(codes) == set(TILE_CODES)


def test_tiles_are_drawn_anew_each_round() -> None:
    state = new_game(describe("royale", 2, {"tiles": 3}), 3)
    chooser = random.Random(3)
    while not state.is_terminal():
        state.apply_action(chooser.choice(state.legal_actions()))
    setups = events_of(state, "tile_setup")
    assert len(setups) == 9
    assert [event["casino"] for event in setups] == [1, 2, 3] * 3


# --------------------------------------------------- the worked examples


def test_ben_places_all_four_threes_never_fewer() -> None:
    # "Ben rolls his remaining 5 dice: four 3s and a 5. He chooses the four 3s."
    state = position(4, mover=1, roll=(3, 3, 3, 3, 5), hands=[(7, 1), (5, 0), (7, 1), (7, 1)])
    assert state.legal_actions() == ("place 3", "place 5", "pass")
    play(state, "place 3")
    seen = state.observe(1)
    assert seen["casinos"][2]["dice"] == {"1": 4}
    assert seen["hands"][1] == {"die": 1, "biggie": 0}
    assert state.to_move() == (2,)


def test_payout_example_1_ties_removed_then_highest_and_runner_up() -> None:
    # Anna 5, Ben 3, Carla 1 + Biggie (= 3), Denny 1: Ben and Carla tie and are removed.
    ranked, cancelled = rank_casino([5, 3, 3, 1])
    assert ranked == [0, 3]
    assert cancelled == [[1, 2]]
    state = position(
        4,
        roll=(1,),
        chips=[0, 0, 0, 0],
        dice={4: {0: 5, 1: 3, 2: 3, 3: 1}},
        biggies={4: {2: 1}},
        cards={4: [80 * K, 50 * K]},
    )
    event = payout(state, 4)
    assert event["cancelled"] == [[1, 2]]
    # The rulebook's casino: Anna wins $80,000 and Denny wins $50,000.
    assert event["awards"] == [{"owner": 0, "note": 80 * K}, {"owner": 3, "note": 50 * K}]
    assert state.observe(0)["won"][3] == [50 * K]


def test_payout_example_2_every_player_removed() -> None:
    # Anna's Biggie and Carla's two dice tie at 2; Ben's and Denny's single dice tie at 1.
    assert rank_casino([2, 1, 2, 1]) == ([], [[0, 2], [1, 3]])
    state = position(
        4,
        roll=(1,),
        chips=[0] * 4,
        dice={5: {0: 2, 1: 1, 2: 2, 3: 1}},
        biggies={5: {0: 1}},
        cards={5: [90 * K, 60 * K]},
    )
    event = payout(state, 5)
    assert event["awards"] == []
    assert event["returned"] == [90 * K, 60 * K]
    assert not Counter([90 * K, 60 * K]) - Counter(state.observe(0)["under_pile"])


def test_payout_illustration_lone_winner_and_runner_up() -> None:
    # Ben alone: one $40,000 card; the other goes back under the pile.
    # Carla ahead of Ben ahead of Denny: $70,000 and $30,000, Denny nothing.
    state = position(
        4,
        roll=(1,),
        chips=[0] * 4,
        dice={2: {1: 2}, 3: {2: 3, 1: 2, 3: 1}},
        cards={2: [40 * K, 40 * K], 3: [70 * K, 30 * K]},
    )
    assert payout(state, 2)["awards"] == [{"owner": 1, "note": 40 * K}]
    assert payout(state, 2)["returned"] == [40 * K]
    assert payout(state, 3)["awards"] == [
        {"owner": 2, "note": 70 * K},
        {"owner": 1, "note": 30 * K},
    ]
    assert state.observe(0)["won"][3] == []


def test_two_player_variant_neutral_dice_are_rolled_each_round() -> None:
    state = new_game(describe("royale", 2, {"neutral_dice": True, "tiles": 0}), 9)
    rolls = events_of(state, "neutral_roll")
    assert len(rolls) == 1 and len(rolls[0]["dice"]) == 8
    seen = state.observe(0)
    assert sum(entry["dice"].get("neutral", 0) for entry in seen["casinos"]) == 8
    faces: Counter[int] = Counter(rolls[0]["dice"])
    for face, count in faces.items():
        assert seen["casinos"][face - 1]["dice"]["neutral"] == count


def test_neutral_variant_example_1_neutral_wins_the_high_card_under_the_pile() -> None:
    # The $80,000 card is won by the neutral player (under the pile); Ben wins $30,000.
    state = position(
        2,
        options={"neutral_dice": True},
        roll=(1,),
        chips=[0, 0],
        dice={6: {"neutral": 3, 1: 2}},
        cards={6: [80 * K, 30 * K]},
    )
    event = payout(state, 6)
    assert event["awards"] == [
        {"owner": "neutral", "note": 80 * K},
        {"owner": 1, "note": 30 * K},
    ]
    assert event["returned"] == [80 * K]
    assert state.observe(1)["won"][1] == [30 * K]


def test_neutral_variant_example_2_neutral_runner_up() -> None:
    # Carla wins $70,000, the neutral player $40,000 (under the pile), Ben nothing.
    state = position(
        2,
        options={"neutral_dice": True},
        roll=(1,),
        chips=[0, 0],
        dice={5: {0: 4, "neutral": 2, 1: 1}},
        cards={5: [70 * K, 40 * K]},
    )
    event = payout(state, 5)
    assert event["awards"] == [
        {"owner": 0, "note": 70 * K},
        {"owner": "neutral", "note": 40 * K},
    ]
    assert event["returned"] == [40 * K]
    assert state.observe(0)["won"][1] == []


# ------------------------------------------------------------------ chips


def test_two_chips_at_start_and_two_more_each_round() -> None:
    state = new_game(describe("royale", 3, {"tiles": 0}), 21)
    assert state.observe(0)["chips"] == [2, 2, 2]
    assert events_of(state, "chips_dealt")[0]["chips"] == 2
    # Nobody passes: the chips only grow by 2 per round.
    while not state.is_terminal():
        legal = [a for a in state.legal_actions() if a != "pass"]
        state.apply_action(legal[0])
    assert [event["chips"] for event in events_of(state, "chips_dealt")] == [2, 2, 2]
    assert state.observe(0)["chips"] == [6, 6, 6]


def test_a_chip_buys_a_turn_without_placing() -> None:
    state = position(3, roll=(2, 4), hands=[(2, 0), (7, 1), (7, 1)], chips=[1, 2, 2])
    assert state.legal_actions() == ("place 2", "place 4", "pass")
    play(state, "pass")
    seen = state.observe(0)
    assert seen["chips"] == [0, 2, 2]
    assert seen["hands"][0] == {"die": 2, "biggie": 0}
    assert all(entry["dice"] == {} for entry in seen["casinos"])
    assert events_of(state, "chip_pass") == [{"type": "chip_pass", "seat": 0, "chips": 0}]
    assert state.to_move() == (1,)


def test_without_chips_there_is_no_pass() -> None:
    state = position(3, roll=(2, 4), hands=[(2, 0), (7, 1), (7, 1)], chips=[0, 2, 2])
    assert state.legal_actions() == ("place 2", "place 4")


def test_each_chip_left_is_10k_and_the_tie_break_counts_cards_plus_chips() -> None:
    # Last round: seat 0 has $100k in one card, seat 1 $80k in two cards + 2 chips.
    state = position(
        3,
        round_number=3,
        roll=(1,),
        chips=[0, 2, 0],
        won=[[100 * K], [50 * K, 30 * K], [70 * K]],
        cards={casino: [] for casino in range(1, 7)},
    )
    assert state.is_terminal()
    result = state.result()
    assert result is not None
    money = {seat.seat: (seat.money, seat.notes, seat.rank) for seat in result}
    assert money[0] == (100 * K, 1, 2)
    assert money[1] == (100 * K, 4, 1)  # equal money: more cards + chips wins
    assert money[2] == (70 * K, 1, 3)


def test_equal_money_and_equal_cards_plus_chips_is_a_shared_win() -> None:
    state = position(
        2,
        round_number=3,
        mover=1,
        roll=(1,),
        chips=[1, 0],
        won=[[60 * K], [30 * K, 40 * K]],
        cards={casino: [] for casino in range(1, 7)},
    )
    result = state.result()
    assert result is not None
    assert [seat.rank for seat in result] == [1, 1]


# ------------------------------------------------------------ start player


def round_two_start(state: State) -> int:
    return int(events_of(state, "round_start")[-1]["start_player"])


def test_next_start_player_is_the_winner_of_the_high_card_at_casino_6() -> None:
    state = position(
        4,
        roll=(1,),
        chips=[0] * 4,
        dice={6: {2: 3, 1: 2}, 5: {3: 4}},
        cards={6: [90 * K, 80 * K], 5: [70 * K, 60 * K]},
    )
    assert state.observe(0)["round"] == 2
    assert round_two_start(state) == 2


def test_nobody_at_casino_6_the_winner_at_5_starts() -> None:
    state = position(
        4,
        roll=(1,),
        chips=[0] * 4,
        dice={6: {2: 3, 1: 3}, 5: {3: 4}, 4: {2: 5}},
        biggies={4: {2: 1}},
        cards={6: [90 * K, 80 * K], 5: [70 * K, 60 * K]},
    )
    assert round_two_start(state) == 3


def test_nobody_won_anything_the_start_player_passes_left() -> None:
    state = position(
        4, roll=(1,), chips=[0] * 4, start=2, cards={1: []}, dice={c: {} for c in range(1, 7)}
    )
    assert all(not won for won in state.observe(0)["won"])
    assert round_two_start(state) == 3


def test_imaginary_winner_at_casino_6_the_seat_with_the_other_card_starts() -> None:
    # Ruling: the best-ranked seat that won a card at the highest casino where any seat won.
    state = position(
        2,
        options={"neutral_dice": True},
        roll=(1,),
        chips=[0, 0],
        dice={6: {"neutral": 3, 1: 1}, 5: {0: 2}},
        cards={6: [90 * K, 80 * K], 5: [70 * K, 60 * K]},
    )
    assert round_two_start(state) == 1


# ----------------------------------------------------------- pure helpers


def test_sole_majority() -> None:
    assert sole_majority([1, 1, 2, 0]) == 2
    assert sole_majority([1, 1, 2, 2]) == -1
    assert sole_majority([0, 0, 0]) == -1
    assert sole_majority([3, 0, 0]) == 0


def test_bank_payment_uses_money_then_chips_with_change_never_below_zero() -> None:
    assert bank_payment(80 * K, 3, 50 * K, 10 * K) == (50 * K, 0)
    # $45k and chips: 1 chip covers the rest, $5k change in money.
    assert bank_payment(45 * K, 3, 50 * K, 10 * K) == (40 * K, 1)
    # Everything the seat has: $20k and 2 chips; nothing below zero.
    assert bank_payment(20 * K, 2, 50 * K, 10 * K) == (20 * K, 2)
    assert bank_payment(0, 0, 50 * K, 10 * K) == (0, 0)


# ---------------------------------------------------------- random games

SEATS_AND_OPTIONS = [(seats, {"tiles": tiles}) for seats in (2, 3, 4, 5) for tiles in range(7)] + [
    (2, {"tiles": tiles, "neutral_dice": True}) for tiles in (0, 3, 6)
]


def check_invariants(state: RoyaleGame) -> None:
    seen = state.observe(0)
    n = seen["seats"]
    cards = list(seen["bank_cards"]) + list(seen["under_pile"])
    for entry in seen["casinos"]:
        cards += entry["cards"]
    for won in seen["won"]:
        cards += won
    assert len(cards) + seen["pile_size"] == 90
    assert not Counter(cards) - Counter(ROYALE_RULES.card_list)
    if seen["decision"] in ("place", "power"):
        tiles = seen["tiles"]
        for seat in range(n):
            regular = seen["hands"][seat]["die"] + tiles["bar"][seat]["die"]
            regular += tiles["side_bet"][seat]["die"]
            big = seen["hands"][seat]["biggie"] + tiles["bar"][seat]["biggie"]
            big += tiles["side_bet"][seat]["biggie"]
            for entry in seen["casinos"]:
                count = entry["dice"].get(str(seat), 0)
                on_casino = entry["biggies"].get(str(seat), 0)
                big += on_casino
                regular += count - 2 * on_casino
            for die in [*tiles["nice_dice"].values(), tiles["golden"]]:
                if die is not None and die["owner"] == seat:
                    if die["die"] == "biggie":
                        big += 1
                    else:
                        regular += 1
            assert (regular, big) == (7, 1), (seat, regular, big)
        grey = sum(entry["dice"].get("grey", 0) for entry in seen["casinos"])
        if any(entry["tile"] == "F1" for entry in seen["casinos"]):
            assert grey + sum(tiles["block_it"]) == 9
        if any(entry["tile"] == "F2" for entry in seen["casinos"]):
            # Grey dice on the casinos plus the filled reward spaces.
            assert grey + 9 - sum(tiles["handicap"].values()) == 9
    assert all(chips >= 0 for chips in seen["chips"])
    assert all(money >= 0 for money in seen["money"])


def chips_from_events(events: list[JsonDict], seats: int) -> list[int]:
    chips = [0] * seats
    for event in events:
        kind = event["type"]
        if kind == "chips_dealt":
            chips = [count + event["chips"] for count in chips]
        elif kind == "chip_pass":
            chips[event["seat"]] -= 1
        elif kind == "reward":
            chips[event["seat"]] += event["chips"]
        elif kind == "bank_payment":
            chips[event["seat"]] -= event["chips"]
    return chips


@pytest.mark.parametrize(("seats", "options"), SEATS_AND_OPTIONS)
def test_random_games_end_conserve_cards_dice_chips_and_replay(
    seats: int, options: dict[str, Any]
) -> None:
    for game in range(4):
        state = new_game(describe("royale", seats, options), 1000 * seats + game)
        assert isinstance(state, RoyaleGame)
        chooser = random.Random(game)
        steps = 0
        while not state.is_terminal():
            check_invariants(state)
            seat = state.to_move()[0]
            state.apply_action(chooser.choice(state.legal_actions(seat)), seat)
            steps += 1
            assert steps < 5000
        check_invariants(state)
        events = state.events()
        assert events is not None
        assert chips_from_events(events, seats) == state.observe(0)["chips"]
        log = game_logs.game_log(state)
        game_logs.loads(game_logs.dumps(log))
        replayed = replay(log)
        assert replayed.result() == state.result()
        result = state.result()
        assert result is not None
        seen = state.observe(0)
        for standing in result:
            index = standing.seat
            assert standing.money == seen["money"][index] + 10 * K * seen["chips"][index]
            assert standing.notes == len(seen["won"][index]) + seen["chips"][index]


@pytest.mark.parametrize(("seats", "options"), SEATS_AND_OPTIONS[::3])
def test_illegal_actions_raise_and_change_nothing(seats: int, options: dict[str, Any]) -> None:
    state = new_game(describe("royale", seats, options), 77)
    chooser = random.Random(5)
    while not state.is_terminal():
        seat = state.to_move()[0]
        before = [state.observe(k) for k in range(seats)]
        events = list(state.events() or [])
        other = (seat + 1) % seats
        for action, by in (
            ("place 7", seat),
            ("bogus", seat),
            ("", seat),
            (state.legal_actions(seat)[0], other),
        ):
            with pytest.raises(IllegalActionError):
                state.apply_action(action, by)
        assert [state.observe(k) for k in range(seats)] == before
        assert state.events() == events
        state.apply_action(chooser.choice(state.legal_actions(seat)), seat)
    with pytest.raises(IllegalActionError):
        state.apply_action("place 1", 0)


@pytest.mark.parametrize(("seats", "options"), SEATS_AND_OPTIONS[1::3])
def test_determinized_state_shows_each_seat_exactly_what_it_saw(
    seats: int, options: dict[str, Any]
) -> None:
    for game in range(2):
        state = new_game(describe("royale", seats, options), 500 + game, log=False)
        chooser = random.Random(game)
        while not state.is_terminal():
            mover = state.to_move()[0]
            for seat in {mover, (mover + 1) % seats}:
                seen = state.observe(seat)
                sampled = determinize(seen, seed=1000 + game)
                assert sampled.observe(seat) == seen
                # The sampled state plays on.
                sampled.apply_action(chooser.choice(sampled.legal_actions()))
            state.apply_action(chooser.choice(state.legal_actions()))
        assert determinize(state.observe(0), seed=1).observe(0) == state.observe(0)


def test_clone_is_independent() -> None:
    state = new_game(describe("royale", 4, {"tiles": 6}), 8)
    chooser = random.Random(8)
    for _ in range(30):
        state.apply_action(chooser.choice(state.legal_actions()))
    copy = state.clone()
    before = state.observe(0)
    while not copy.is_terminal():
        copy.apply_action(chooser.choice(copy.legal_actions()))
    assert state.observe(0) == before


def test_same_description_and_actions_give_the_same_game() -> None:
    logs = []
    for _ in range(2):
        state = new_game(describe("royale", 5, {"tiles": 6}), 123)
        chooser = random.Random(9)
        while not state.is_terminal():
            state.apply_action(chooser.choice(state.legal_actions()))
        logs.append(state.events())
    assert logs[0] == logs[1]


def test_greedy_prefers_card_gains_and_counts_a_pass_as_a_lost_chip() -> None:
    state = position(
        3,
        roll=(4, 4, 5),
        hands=[(3, 0), (4, 1), (7, 1)],
        dice={4: {1: 1}, 5: {1: 2}},
        cards={4: [70 * K, 30 * K], 5: [80 * K, 40 * K]},
    )
    assert expected_gain(state, "place 4", 0) == 70 * K
    assert expected_gain(state, "place 5", 0) == 40 * K  # runner-up behind seat 1's two dice
    assert expected_gain(state, "pass", 0) == -10 * K
    assert dice_spent(state, "place 4", 0) == 2


def test_observation_has_no_seed_and_no_pile_order() -> None:
    state = new_game(describe("royale", 3, {"tiles": 3}), 987654321)
    seen = state.observe(1)
    text = repr(seen)
    assert "987654321" not in text
    assert "seed" not in text
    assert set(seen) >= {"pile_size", "bank_cards", "under_pile"}
    assert "pile" not in {key for key in seen if key not in ("pile_size", "under_pile")}


def test_round_and_casino_count_constants() -> None:
    assert CASINOS == 6
    assert ROYALE_RULES.rounds == 3
    assert (ROYALE_RULES.dice_per_seat, ROYALE_RULES.biggies_per_seat) == (7, 1)
