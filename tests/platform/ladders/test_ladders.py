"""Ladders: games validated by the engine, limits checked, the game frozen once played."""

from __future__ import annotations

from typing import Any

import pytest

from arena.ladders.admin import LadderForm
from arena.ladders.flows import ladder_create
from arena.ladders.services import LadderConfigError, LadderInUseError, ladder_change_game
from tests.platform.factories import MatchFactory

pytestmark = pytest.mark.django_db


def test_a_ladder_stores_every_option_resolved_by_the_engine() -> None:
    ladder = ladder_create(slug="boulevard-4", name="Boulevard", rules="boulevard", seats=4)

    assert ladder.options == {
        "big_notes": True,
        "neutral_dice": True,
        "biggies": True,
        "kickers": True,
        "rainbow": True,
        "slot_machine": True,
    }


def test_an_option_can_be_set() -> None:
    ladder = ladder_create(
        slug="classic-chips", name="Chips", rules="classic", seats=3, options={"chips": True}
    )
    assert ladder.options == {"neutral_dice": False, "chips": True}


@pytest.mark.parametrize(
    ("rules", "seats", "options", "words"),
    [
        ("poker", 4, {}, ["unknown rule system 'poker'", "allowed: ", "classic"]),
        ("classic", 7, {}, ["classic takes 2-5 seats, got 7"]),
        ("classic", 4, {"jokers": True}, ["unknown option 'jokers'"]),
        ("classic", 4, {"chips": 3}, ["option chips is a flag"]),
        ("classic", 5, {"neutral_dice": True}, ["neutral_dice needs 2-4 seats"]),
    ],
)
def test_a_game_the_engine_refuses_is_a_clear_error(
    rules: str, seats: int, options: dict[str, Any], words: list[str]
) -> None:
    with pytest.raises(LadderConfigError) as raised:
        ladder_create(slug="bad", name="Bad", rules=rules, seats=seats, options=options)

    assert raised.value.message.startswith("the engine cannot play this ladder's game:")
    for word in words:
        assert word in raised.value.message


@pytest.mark.parametrize(
    ("limits", "words"),
    [
        ({"time_per_decision_ms": 0}, "time per decision must be 10-600000 ms, got 0"),
        ({"time_bank_ms": -1}, "time bank must be 0-3600000 ms"),
        ({"memory_mb": 8}, "memory must be 32-4096 MB, got 8"),
    ],
)
def test_limits_are_bounded(limits: dict[str, int], words: str) -> None:
    with pytest.raises(LadderConfigError, match=words):
        ladder_create(slug="bad", name="Bad", rules="classic", seats=2, **limits)


def test_slugs_are_unique() -> None:
    ladder_create(slug="classic-2", name="Classic", rules="classic", seats=2)
    with pytest.raises(LadderConfigError, match="already exists"):
        ladder_create(slug="classic-2", name="Again", rules="classic", seats=2)


def test_the_game_of_a_played_ladder_is_frozen() -> None:
    ladder = ladder_create(slug="classic-2", name="Classic", rules="classic", seats=2)
    ladder = ladder_change_game(ladder=ladder, rules="classic", seats=3)
    assert ladder.seats == 3

    MatchFactory(ladder=ladder)
    with pytest.raises(LadderInUseError, match="create a new ladder"):
        ladder_change_game(ladder=ladder, rules="boulevard", seats=3)


def test_admin_form_shows_the_engine_error_and_resolves_options() -> None:
    data = {
        "slug": "x",
        "name": "X",
        "rules": "poker",
        "seats": 4,
        "options": "{}",
        "time_per_decision_ms": 1000,
        "time_bank_ms": 10000,
        "memory_mb": 256,
        "series_games": 12,
        "is_open": True,
    }
    form = LadderForm(data=data)
    assert not form.is_valid()
    assert "unknown rule system 'poker'" in " ".join(form.non_field_errors())

    form = LadderForm(data={**data, "rules": "classic"})
    assert form.is_valid(), form.errors
    assert form.save().options == {"neutral_dice": False, "chips": False}
