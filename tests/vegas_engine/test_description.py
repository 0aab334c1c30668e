"""Game descriptions: the registry, validation with helpful errors, defaults, determinism."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from vegas_engine import (
    RULE_SYSTEMS,
    GameDescription,
    InvalidDescriptionError,
    check_seed,
    describe,
    new_game,
    rule_system,
)
from vegas_engine.description import MAX_SEED
from vegas_engine.registry import validate

BOULEVARD_MODULES = ("big_notes", "neutral_dice", "biggies", "kickers", "rainbow", "slot_machine")


def test_registry_lists_classic_and_boulevard_with_their_seat_counts_and_rounds() -> None:
    assert {"classic", "boulevard"} <= set(RULE_SYSTEMS)
    classic, boulevard = RULE_SYSTEMS["classic"], RULE_SYSTEMS["boulevard"]
    assert classic.id == "classic" and boulevard.id == "boulevard"
    assert classic.seats == (2, 3, 4, 5)
    assert boulevard.seats == (2, 3, 4, 5, 6)
    assert classic.rounds == boulevard.rounds == 4
    assert rule_system("classic") is classic
    for system in (classic, boulevard):
        document = system.to_json()
        assert json.loads(json.dumps(document)) == document
        assert document["seats"] == list(system.seats)
        assert [o["name"] for o in document["options"]] == [o.name for o in system.options]


def test_classic_options_neutral_dice_is_off_by_default_and_only_for_2_to_4_seats() -> None:
    classic = RULE_SYSTEMS["classic"]
    spec = classic.option("neutral_dice")
    assert spec.default is False and spec.is_flag
    assert spec.seats == (2, 3, 4)
    assert spec.allowed_values() == (False, True)
    assert spec.doc
    # A plain game by default: every classic option is off unless asked for.
    assert all(option.default in (False, 0) for option in classic.options)


def test_boulevard_options_are_the_six_modules_all_on_by_default() -> None:
    boulevard = RULE_SYSTEMS["boulevard"]
    names = [spec.name for spec in boulevard.options]
    assert set(BOULEVARD_MODULES) <= set(names)
    for name in BOULEVARD_MODULES:
        spec = boulevard.option(name)
        assert spec.is_flag and spec.default is True, name
        assert spec.seats is None, f"{name} works with every boulevard seat count"
        assert spec.doc


def test_defaults_are_filled_in() -> None:
    classic = describe("classic", 4)
    assert classic.options["neutral_dice"] is False
    assert set(classic.options) == {spec.name for spec in RULE_SYSTEMS["classic"].options}
    boulevard = describe("boulevard", 6)
    assert all(boulevard.options[name] is True for name in BOULEVARD_MODULES)
    assert set(boulevard.options) == {spec.name for spec in RULE_SYSTEMS["boulevard"].options}
    partial = describe("boulevard", 3, {"rainbow": False})
    assert partial.options["rainbow"] is False
    assert all(partial.options[n] is True for n in BOULEVARD_MODULES if n != "rainbow")
    assert describe("classic", 5).options["neutral_dice"] is False
    assert describe("classic", 4, {"neutral_dice": True}).options["neutral_dice"] is True


def test_description_round_trips_through_json() -> None:
    description = describe("boulevard", 4, {"kickers": False})
    document = description.to_json()
    assert json.loads(json.dumps(document)) == document
    assert document == {
        "rules": "boulevard",
        "options": dict(sorted(description.options.items())),
        "seats": 4,
    }
    again = describe(document["rules"], document["seats"], document["options"])
    assert again == description and hash(again) == hash(description)


def test_a_description_names_a_game_and_the_seed_deals_one() -> None:
    game = describe("classic", 4)
    first, second = new_game(game, 1), new_game(game, 2)
    assert first.description == second.description == game
    assert (first.seed, second.seed) == (1, 2)
    assert first.events() != second.events()


def test_the_old_call_with_a_seed_says_where_the_seed_goes_now() -> None:
    with pytest.raises(TypeError, match=r"new_game\(game, seed\)"):
        describe("classic", 4, 7)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="seed"):
        new_game(describe("classic", 4))  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="describe"):
        new_game({"rules": "classic", "seats": 4}, 7)  # type: ignore[arg-type]


def _error(call: Any) -> InvalidDescriptionError:
    with pytest.raises(InvalidDescriptionError) as caught:
        call()
    return caught.value


def test_unknown_rule_system_names_the_known_ones() -> None:
    error = _error(lambda: describe("poker", 4))
    assert error.field == "rules"
    assert "poker" in str(error)
    assert "classic" in str(error) and "boulevard" in str(error)
    assert {"classic", "boulevard"} <= set(error.allowed)


def test_unknown_option_names_the_options_of_the_system() -> None:
    error = _error(lambda: describe("classic", 4, {"slot_machine": True}))
    assert "slot_machine" in str(error)
    assert "neutral_dice" in str(error) and "neutral_dice" in error.allowed
    error = _error(lambda: describe("boulevard", 4, {"turbo": True}))
    assert all(name in str(error) for name in BOULEVARD_MODULES)


@pytest.mark.parametrize("seats", [7, 6, 1, 0, -2])
def test_classic_seat_count_out_of_range_names_the_allowed_counts(seats: int) -> None:
    error = _error(lambda: describe("classic", seats))
    assert error.field == "seats"
    assert error.allowed == (2, 3, 4, 5)
    assert str(seats) in str(error) and "2, 3, 4, 5" in str(error)


def test_boulevard_takes_up_to_six_seats_not_seven() -> None:
    describe("boulevard", 6)
    error = _error(lambda: describe("boulevard", 7))
    assert error.allowed == (2, 3, 4, 5, 6)


def test_neutral_dice_with_five_seats_in_classic_names_the_allowed_counts() -> None:
    error = _error(lambda: describe("classic", 5, {"neutral_dice": True}))
    assert error.field == "options.neutral_dice"
    assert error.allowed == (2, 3, 4)
    assert "2, 3, 4" in str(error)
    # Off with five seats is fine.
    assert describe("classic", 5, {"neutral_dice": False}).options["neutral_dice"] is False


@pytest.mark.parametrize("value", [1, 0, "yes", None, 1.0])
def test_a_flag_takes_only_a_bool(value: object) -> None:
    error = _error(lambda: describe("classic", 4, {"neutral_dice": value}))
    assert error.field == "options.neutral_dice"
    assert error.allowed == (False, True)
    assert "False, True" in str(error)


@pytest.mark.parametrize("seed", [-1, MAX_SEED + 1, 1.5, "7", True, None])
def test_seed_must_be_a_non_negative_integer(seed: object) -> None:
    game = describe("classic", 4)
    for call in (lambda: new_game(game, seed), lambda: check_seed(seed)):  # type: ignore[arg-type]
        error = _error(call)
        assert error.field == "seed"
        assert "0.." in str(error)


def test_largest_seed_is_accepted() -> None:
    new_game(describe("classic", 2), 0)
    new_game(describe("classic", 2), MAX_SEED)


@pytest.mark.parametrize("seats", [True, False, 4.0, "4", None])
def test_seats_must_be_an_integer_not_a_bool(seats: object) -> None:
    error = _error(lambda: describe("classic", seats))  # type: ignore[arg-type]
    assert error.field == "seats"
    assert "2, 3, 4, 5" in str(error)


def test_hand_built_descriptions_are_validated_by_new_game() -> None:
    bad = GameDescription(rules="classic", seats=6, options={"neutral_dice": False})
    with pytest.raises(InvalidDescriptionError):
        new_game(bad, 1)
    with pytest.raises(InvalidDescriptionError):
        validate(GameDescription(rules="classic", seats=4, options={"bogus": True}))
    bare = GameDescription(rules="boulevard", seats=4)
    assert validate(bare) == describe("boulevard", 4)
    assert new_game(bare, 1).description == describe("boulevard", 4)


def _play(description: GameDescription, seed: int, choices: int) -> list[dict[str, Any]]:
    state = new_game(description, seed)
    rng = random.Random(choices)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    events = state.events()
    assert events is not None
    return events


@pytest.mark.parametrize(
    ("rules", "seats", "options"),
    [("classic", 4, {}), ("classic", 3, {"neutral_dice": True}), ("boulevard", 5, {})],
)
def test_same_description_and_decisions_give_the_same_game(
    rules: str, seats: int, options: dict[str, bool]
) -> None:
    first = _play(describe(rules, seats, options), 2024, 1)
    second = _play(describe(rules, seats, options), 2024, 1)
    assert json.dumps(first) == json.dumps(second)
    other_seed = _play(describe(rules, seats, options), 2025, 1)
    assert json.dumps(first) != json.dumps(other_seed)


def test_a_game_does_not_depend_on_the_global_random_generator() -> None:
    description = describe("boulevard", 4)
    random.seed(1)
    first = new_game(description, 99).events()
    random.seed(2)
    second = new_game(description, 99).events()
    assert first == second


def test_options_change_the_game() -> None:
    plain = new_game(describe("boulevard", 4, {m: False for m in BOULEVARD_MODULES}), 3)
    full = new_game(describe("boulevard", 4), 3)
    classic = new_game(describe("classic", 4), 3)
    # Boulevard with every module off plays like classic with four seats.
    assert plain.events() == classic.events()
    assert full.events() != classic.events()
