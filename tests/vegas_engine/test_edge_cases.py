"""Edge cases of the dice rule systems and the rulings in RULES.md.

Situations are found in real games by bounded searches (see ``conftest.py``);
every log touched here is also checked event by event by the rulebook model.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from typing import Any

import pytest

from vegas_engine import DiceDecision, describe, observe
from vegas_engine.rules.classic import BOULEVARD_RULES, CLASSIC_RULES
from vegas_engine.rules.dice import DiceGame, DiceSetup, rank_casino

from .conftest import (
    BOULEVARD_MINIMUM,
    CLASSIC_MINIMUM,
    RulebookModel,
    ShadowPile,
    Step,
    find_step,
    play_out,
    scan,
    steps,
    stock_value,
)

CONFIGURATIONS = [
    ("classic", 2, {}),
    ("classic", 2, {"neutral_dice": True}),
    ("classic", 3, {"neutral_dice": True}),
    ("classic", 4, {"neutral_dice": True}),
    ("classic", 5, {}),
    ("boulevard", 2, {}),
    ("boulevard", 3, {}),
    ("boulevard", 4, {}),
    ("boulevard", 5, {}),
    ("boulevard", 6, {}),
    ("boulevard", 6, {"big_notes": False}),
    ("boulevard", 4, {"kickers": False, "slot_machine": False}),
    ("boulevard", 3, {"neutral_dice": False, "biggies": False, "rainbow": False}),
]


@pytest.mark.parametrize(("rules", "seats", "options"), CONFIGURATIONS)
def test_every_logged_game_follows_the_rulebook_model(
    rules: str, seats: int, options: dict[str, bool]
) -> None:
    """Hands, placements, turn order, forced flags, kicks, stocking, rainbow cards,
    payouts, money and ranking all agree with an independent model of the rules."""
    for seed in range(8):
        state = play_out(rules, seats, seed, options)
        model = RulebookModel(rules, seats, options)
        model.follow(state.events() or [])
        assert model.finished
        view = observe(state, 0)
        assert view["pile_size"] == len(model.pile.pile)
        assert view["money"] == [sum(notes) for notes in model.won]


@pytest.mark.parametrize(("rules", "seats", "options"), CONFIGURATIONS)
def test_no_card_is_lost_or_made(rules: str, seats: int, options: dict[str, bool]) -> None:
    """At every step: pile + won + discarded + notes on the casinos = every card."""
    model = RulebookModel(rules, seats, options)
    total = sum(model.setup.cards.values())
    for step in steps(rules, seats, 3, options):
        view = observe(step.state, 0)
        on_casinos = sum(len(casino["notes"]) for casino in view["casinos"])
        held = sum(view["notes_won"]) + len(view["discarded"]) + on_casinos
        assert view["pile_size"] + held == total


# ------------------------------------------------------------- the pile


def _small_pile_game(
    rules_data: Any, rules: str, seats: int, seed: int, options: dict[str, bool] | None = None
) -> Any:
    # No public path leads to an empty pile: over 1000 six-seat Boulevard games
    # (the hungriest setup) the printed pile never ran out. So this builds the
    # game the way the registry does (DiceSetup.build + DiceGame) from rule data
    # with a much smaller pile; no private attribute is touched.
    on = dict(options or {})
    description = describe(rules, seats, on)
    setup = DiceSetup.build(
        rules_data,
        seats,
        neutral_dice=on.get("neutral_dice", False),
        big_notes=on.get("big_notes", False),
        biggies=on.get("biggies", False),
        kickers=on.get("kickers", False),
        rainbow=on.get("rainbow", False),
        slot_machine=on.get("slot_machine", False),
    )
    return DiceGame(description, seed, setup, True)


def _play_random(state: Any, seed: int) -> None:
    rng = random.Random(seed)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))


def test_pile_runs_out_while_stocking_casinos_keep_what_they_have() -> None:
    """Ruling: the casino keeps what it has; a casino with no note pays nothing;
    never crash."""
    tiny = dataclasses.replace(CLASSIC_RULES, notes={10_000: 2, 20_000: 1})
    for seed in range(20):
        state = _small_pile_game(tiny, "classic", 3, seed)
        events = state.events()
        first_stocks = [e for e in events if e["type"] == "stock"][:6]
        assert [e["casino"] for e in first_stocks] == [1, 2, 3, 4, 5, 6]
        assert sorted(first_stocks[0]["notes"]) == [10_000, 10_000, 20_000]
        assert all(stock["notes"] == [] for stock in first_stocks[1:])
        _play_random(state, seed)
        result = state.result()
        assert result is not None
        assert sum(r.money for r in result) <= 40_000
        for payout in (e for e in events if e["type"] == "payout" and not e["notes"]):
            assert payout["awards"] == [] and payout["returned"] == []
        model = RulebookModel("classic", 3)
        model.pile = ShadowPile(Counter({10_000: 2, 20_000: 1}))
        model.follow(events)
        view = observe(state, 0)
        assert view["pile_size"] + sum(view["notes_won"]) == 3


def test_pile_runs_out_partway_through_a_casino() -> None:
    """A casino that gets some notes before the pile is empty keeps them, under the minimum."""
    tiny = dataclasses.replace(CLASSIC_RULES, notes={30_000: 3})
    state = _small_pile_game(tiny, "classic", 2, 4)
    stocks = [e for e in state.events() if e["type"] == "stock"][:6]
    assert [s["notes"] for s in stocks] == [[30_000, 30_000], [30_000], [], [], [], []]
    _play_random(state, 4)
    assert state.is_terminal()


def test_rainbow_card_with_an_empty_pile_is_discarded_without_replacement() -> None:
    """Rainbow cards replaced from an empty pile: discarded, nothing drawn, no crash."""
    tiny = dataclasses.replace(BOULEVARD_RULES, notes={10_000: 1}, big_notes={})
    options = {
        "big_notes": False,
        "neutral_dice": True,
        "biggies": True,
        "kickers": True,
        "rainbow": True,
        "slot_machine": True,
    }
    for seed in range(10):
        state = _small_pile_game(tiny, "boulevard", 2, seed, options)
        _play_random(state, seed)
        events = state.events()
        rainbows = [e for e in events if e["type"] == "rainbow"]
        assert rainbows, "the six rainbow cards were stocked and must be replaced"
        assert any(e["drawn"] is None for e in rainbows)
        for payout in (e for e in events if e["type"] == "payout"):
            assert "rainbow" not in payout["notes"]
        view = observe(state, 0)
        assert view["discarded"].count("rainbow") == 6
        assert sum(view["money"]) <= 10_000


# ---------------------------------------------------------------- payouts


def test_everyone_tied_at_a_casino_all_cancel_and_all_notes_return() -> None:
    ranked, cancelled = rank_casino([2, 2, 2, 2, 0])
    assert ranked == [] and [set(g) for g in cancelled] == [{0, 1, 2, 3}]

    def all_tied(model: RulebookModel, event: dict[str, Any]) -> bool:
        return (
            event["type"] == "payout"
            and len(event["counts"]) >= 2
            and len(set(event["counts"].values())) == 1
            and bool(event["notes"])
        )

    found = scan("classic", 2, None, all_tied, seeds=range(100))
    payout = found.event
    assert payout["awards"] == []
    assert sorted(payout["returned"]) == sorted(payout["notes"])
    assert [sorted(map(str, g)) for g in payout["cancelled"]] == [sorted(payout["counts"])]
    money = list(map(sum, found.model.won))
    found.model.feed(payout)
    assert list(map(sum, found.model.won)) == money
    found.model.follow(found.events[found.index + 1 :])


def test_a_casino_without_dice_returns_all_its_notes() -> None:
    def empty(model: RulebookModel, event: dict[str, Any]) -> bool:
        return event["type"] == "payout" and not event["counts"] and bool(event["notes"])

    found = scan("classic", 2, None, empty, seeds=range(100))
    assert found.event["awards"] == []
    assert sorted(found.event["returned"]) == sorted(found.event["notes"])


# ----------------------------------------------------------------- kickers


def test_kicker_on_an_empty_casino_is_logged_with_nothing_kicked_and_changes_nothing() -> None:
    def kicker_alone_on_empty(step: Step) -> bool:
        places = [e for e in step.events if e["type"] == "place"]
        if len(places) != 1 or set(places[0]["dice"]) != {"kicker"}:
            return False
        if step.before is None or any(e["type"] == "round_end" for e in step.events):
            return False
        casino = places[0]["casino"]
        return not observe(step.before, 0)["casinos"][casino - 1]["dice"]

    step = find_step("boulevard", 4, None, kicker_alone_on_empty, keep_before=True)
    assert step.before is not None
    place = next(e for e in step.events if e["type"] == "place")
    seat, kickers = place["seat"], place["dice"]["kicker"]
    kicks = [e for e in step.events if e["type"] == "kick"]
    assert (
        kicks
        == [{"type": "kick", "seat": seat, "casino": place["casino"], "kicked": None}] * kickers
    )
    before, after = observe(step.before, 0), observe(step.state, 0)
    assert after["casinos"] == before["casinos"]
    assert after["neutral_out"] == before["neutral_out"]
    assert after["kickers_used"][seat] == before["kickers_used"][seat] + kickers
    for other in range(4):
        expected = dict(before["hands"][other])
        if other == seat:
            expected["kicker"] -= kickers
        assert after["hands"][other] == expected


def test_kicker_alone_on_the_slot_machine_cannot_kick_older_dice() -> None:
    """On the slot machine only dice of the same turn may be kicked: a kicker placed
    there alone kicks nothing even though the machine holds dice."""

    def alone_on_busy_slot(model: RulebookModel, event: dict[str, Any]) -> bool:
        return (
            event["type"] == "place"
            and event["casino"] == 7
            and set(event["dice"]) == {"kicker"}
            and bool(model.slot)
        )

    found = scan("boulevard", 4, None, alone_on_busy_slot, seeds=range(100))
    slot_before = list(found.model.slot)
    following = found.events[found.index + 1 : found.index + 1 + found.event["dice"]["kicker"]]
    assert all(e["type"] == "kick" and e["kicked"] is None for e in following)
    found.model.feed(found.event)
    for event in following:
        found.model.feed(event)
    assert found.model.slot == slot_before


def test_kicked_die_returns_at_the_end_of_the_round_and_the_round_goes_on() -> None:
    """The last die of the round is a kicker that kicks another player's die: that
    player is back in, so the round does not end yet."""

    def last_dice_kick_another(model: RulebookModel, event: dict[str, Any]) -> bool:
        if event["type"] != "kick" or event["kicked"] is None:
            return False
        owner = event["kicked"]["owner"]
        return owner not in ("neutral", event["seat"]) and all(
            model.held(seat) == 0 for seat in range(model.n)
        )

    found = scan("boulevard", 4, None, last_dice_kick_another, seeds=range(100))
    owner = found.event["kicked"]["owner"]
    following = found.events[found.index + 1]
    assert following["type"] == "roll" and following["seat"] == owner
    assert sum(len(faces) for faces in following["dice"].values()) == 1
    found.model.follow(found.events[found.index :])


def test_a_player_with_no_dice_gets_a_kicked_die_back_and_rolls_again() -> None:
    def back_in(step: Step) -> bool:
        if step.before is None:
            return False
        for event in step.events:
            if event["type"] == "kick" and event["kicked"] is not None:
                owner = event["kicked"]["owner"]
                if owner in ("neutral", event["seat"]):
                    continue
                if sum(observe(step.before, 0)["hands"][owner].values()) == 0:
                    return True
        return False

    step = find_step("boulevard", 4, None, back_in, keep_before=True, seeds=range(100))
    kick = next(e for e in step.events if e["type"] == "kick" and e["kicked"])
    owner, kind = kick["kicked"]["owner"], kick["kicked"]["die"]
    # Follow the live game until the owner rolls again: it must happen this round.
    state = step.state
    rng = random.Random(1)
    log = state.events()
    assert log is not None
    start = step.first
    while True:
        new = log[start:]
        rolls = [e for e in new if e["type"] == "roll" and e["seat"] == owner]
        if rolls:
            assert rolls[0]["dice"].get(kind) is not None
            break
        assert not any(e["type"] == "round_end" for e in new), "the round ended first"
        start = len(log)
        state.apply_action(rng.choice(state.legal_actions()))


def test_a_kicked_neutral_die_is_out_for_the_round() -> None:
    def white_kicked(step: Step) -> bool:
        return not any(e["type"] in ("round_end", "place") for e in step.events[1:]) and any(
            e["type"] == "kick" and e["kicked"] and e["kicked"]["owner"] == "neutral"
            for e in step.events
        )

    step = find_step("boulevard", 4, None, white_kicked, keep_before=True, seeds=range(100))
    assert step.before is not None
    kick = next(e for e in step.events if e["type"] == "kick" and e["kicked"])
    before, after = observe(step.before, 0), observe(step.state, 0)
    assert after["neutral_out"] == before["neutral_out"] + 1
    assert [h["neutral"] for h in after["hands"]] == [h["neutral"] for h in before["hands"]]
    casino = kick["casino"]
    assert after["casinos"][casino - 1]["dice"].get("neutral", 0) == (
        before["casinos"][casino - 1]["dice"].get("neutral", 0) - 1
    )

    # The out count resets at the next round, and white dice are handed out again.
    def next_round(s: Step) -> bool:
        return s.seed == step.seed and any(e["type"] == "round_start" for e in s.events)

    later = find_step("boulevard", 4, None, next_round, seeds=[step.seed])
    if not later.state.is_terminal():
        view = observe(later.state, 0)
        assert view["neutral_out"] == 0


def test_a_kicked_biggie_goes_back_to_its_owner_as_a_biggie() -> None:
    def biggie_kick(model: RulebookModel, event: dict[str, Any]) -> bool:
        return (
            event["type"] == "kick"
            and event["kicked"] is not None
            and event["kicked"]["die"] == "biggie"
        )

    found = scan("boulevard", 4, None, biggie_kick, seeds=range(50))
    owner = found.event["kicked"]["owner"]
    casino = found.event["casino"]
    biggies = found.model.hands[owner]["biggie"]
    count = found.model.counts[casino - 1][owner]
    found.model.feed(found.event)
    assert found.model.hands[owner]["biggie"] == biggies + 1
    assert found.model.counts[casino - 1][owner] == count - 2
    found.model.follow(found.events[found.index + 1 :])


def test_two_kickers_of_one_face_kick_twice() -> None:
    def two_kickers(model: RulebookModel, event: dict[str, Any]) -> bool:
        return bool(event["type"] == "place" and event["dice"].get("kicker") == 2)

    found = scan("boulevard", 4, None, two_kickers, seeds=range(50))
    kicks = [e for e in found.rest_of_round() if e["type"] in ("kick", "roll")][:2]
    assert [e["type"] for e in kicks] == ["kick", "kick"]
    found.model.follow(found.events[found.index :])


# ----------------------------------------------------------- rainbow cards


def test_a_rainbow_card_replaced_by_a_rainbow_card_discards_both_and_goes_on() -> None:
    def rainbow_for_rainbow(model: RulebookModel, event: dict[str, Any]) -> bool:
        return bool(event["type"] == "rainbow" and event["drawn"] == "rainbow")

    found = scan("boulevard", 4, None, rainbow_for_rainbow, seeds=range(100))
    casino = found.event["casino"]
    following = found.events[found.index + 1]
    assert following["type"] == "rainbow" and following["casino"] == casino
    payout = next(
        e for e in found.rest_of_round() if e["type"] == "payout" and e["casino"] == casino
    )
    assert "rainbow" not in payout["notes"]
    if following["drawn"] not in (None, "rainbow"):
        assert following["drawn"] in payout["notes"]
    events = found.events
    view = observe(found.state, 0)
    assert view["discarded"].count("rainbow") == sum(1 for e in events if e["type"] == "rainbow")
    found.model.follow(events[found.index :])


# ----------------------------------------------------------- slot machine


def test_slot_actions_are_exactly_the_rolled_faces_not_yet_on_the_slot_machine() -> None:
    """Including one's own face: a face already there (anyone's) is closed."""
    own_face_closed = 0
    for seed in range(6):
        for step in steps("boulevard", 5, seed):
            state = step.state
            if state.is_terminal() or state.decision() is not DiceDecision.PLACE:
                continue
            seat = state.to_move()[0]
            view = observe(state, seat)
            rolled = {f for faces in view["roll"]["dice"].values() for f in faces}
            slot = view["casinos"][6]["faces"]
            used = {d["face"] for d in slot}
            legal = state.legal_actions()
            assert {a for a in legal if a.startswith("place")} == {f"place {f}" for f in rolled}
            assert {a for a in legal if a.startswith("slot")} == {
                f"slot {f}" for f in rolled - used
            }
            own = {d["face"] for d in slot if d["owner"] == seat}
            own_face_closed += len(own & rolled)
    assert own_face_closed > 0


def test_without_the_slot_machine_there_is_no_seventh_casino() -> None:
    state = play_out("boulevard", 4, 2, {"slot_machine": False})
    events = state.events() or []
    assert not any(e.get("casino") == 7 for e in events)
    assert not any(e["type"] == "decision" and e["action"].startswith("slot") for e in events)
    assert len(observe(state, 0)["casinos"]) == 6


# -------------------------------------------------------------- rounds


@pytest.mark.parametrize("rules", ["classic", "boulevard"])
def test_three_seat_neutral_pre_roll_puts_two_white_dice_on_their_casinos(rules: str) -> None:
    checked = 0
    options = {"neutral_dice": True}
    for seed in range(6):
        for step in steps(rules, 3, seed, options):
            types = [e["type"] for e in step.events]
            if "round_start" not in types:
                continue
            at = types.index("round_start")
            start = step.events[at]["start_player"]
            pre = [e for e in step.events[at:] if e["type"] == "neutral_roll"]
            assert len(pre) == 1 and pre[0]["seat"] == start and len(pre[0]["dice"]) == 2
            after_pre = step.events[step.events.index(pre[0]) + 1 :]
            if any(e["type"] in ("place", "round_end") for e in after_pre):
                continue
            view = observe(step.state, 0)
            white = Counter(
                {c["casino"]: c["dice"]["neutral"] for c in view["casinos"] if c["dice"]}
            )
            assert white == Counter(pre[0]["dice"])
            assert all(set(c["dice"]) <= {"neutral"} for c in view["casinos"])
            checked += 1
    assert checked >= 12
    for seats in (2, 4):
        events = play_out(rules, seats, 0, options).events() or []
        assert not any(e["type"] == "neutral_roll" for e in events)
    events = play_out(rules, 3, 0, {"neutral_dice": False}).events() or []
    assert not any(e["type"] == "neutral_roll" for e in events)


@pytest.mark.parametrize(
    ("rules", "seats"), [("classic", n) for n in range(2, 6)] + [("boulevard", n) for n in (2, 6)]
)
def test_the_start_player_passes_left_each_round(rules: str, seats: int) -> None:
    events = play_out(rules, seats, 9).events() or []
    starts = [e["start_player"] for e in events if e["type"] == "round_start"]
    assert starts == [r % seats for r in range(4)]
    for index, event in enumerate(events):
        if event["type"] == "round_start":
            roll = next(e for e in events[index:] if e["type"] == "roll")
            assert roll["seat"] == event["start_player"]


@pytest.mark.parametrize(
    ("rules", "seats", "minimum"),
    [("classic", n, CLASSIC_MINIMUM) for n in range(2, 6)]
    + [("boulevard", n, m) for n, m in BOULEVARD_MINIMUM.items()],
)
def test_each_casino_is_stocked_to_the_minimum_by_the_last_note_drawn(
    rules: str, seats: int, minimum: int
) -> None:
    """Rainbow cards count $40,000 while stocking; the last note drawn is the one
    that reached the minimum (unless the pile ran out)."""
    rainbow_seen = False
    for seed in range(4):
        events = play_out(rules, seats, seed).events() or []
        for stock in (e for e in events if e["type"] == "stock"):
            values = [stock_value(note) for note in stock["notes"]]
            assert sum(values) >= minimum
            assert sum(values[:-1]) < minimum
            rainbow_seen |= "rainbow" in stock["notes"]
    assert rainbow_seen == (rules == "boulevard")
