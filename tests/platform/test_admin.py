"""The admin: carol the organiser manages ladders, bots and matches."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from arena.bots.models import VersionStatus
from arena.ladders.models import Ladder
from arena.matches.models import MatchStatus

from .factories import BotFactory, BotVersionFactory, LadderFactory, MatchFactory, finished_match

pytestmark = pytest.mark.django_db


@pytest.fixture
def carol_client(carol: Any) -> Client:
    client = Client()
    client.force_login(carol)
    return client


@pytest.fixture
def world(alice: Any, bob: Any) -> dict[str, Any]:
    ladder = LadderFactory(slug="classic-2")
    shark = BotVersionFactory(bot=BotFactory(owner=alice, name="shark"))
    turtle = BotVersionFactory(bot=BotFactory(owner=bob, name="turtle"))
    return {
        "ladder": ladder,
        "shark": shark,
        "match": finished_match(ladder, [shark, turtle], [1, 2]),
    }


@pytest.mark.parametrize(
    "page",
    [
        "ladders/ladder/",
        "ladders/ladder/{ladder}/change/",
        "ladders/rating/",
        "bots/bot/",
        "bots/bot/{bot}/change/",
        "bots/botversion/",
        "bots/botversion/{version}/change/",
        "matches/match/",
        "matches/match/{match}/change/",
        "players/user/",
    ],
)
def test_admin_pages_open(carol_client: Client, world: dict[str, Any], page: str) -> None:
    url = "/admin/" + page.format(
        ladder=world["ladder"].pk,
        bot=world["shark"].bot_id,
        version=world["shark"].pk,
        match=world["match"].pk,
    )
    assert carol_client.get(url).status_code == 200


def test_carol_adds_a_ladder_and_a_bad_rule_id_is_explained(carol_client: Client) -> None:
    form = {
        "slug": "royal",
        "name": "Royal",
        "rules": "poker",
        "seats": 4,
        "options": "{}",
        "time_per_decision_ms": 1000,
        "time_bank_ms": 10000,
        "memory_mb": 256,
        "series_games": 12,
        "is_open": "on",
    }
    refused = carol_client.post("/admin/ladders/ladder/add/", form)
    assert refused.status_code == 200
    assert "unknown rule system" in refused.content.decode()
    too_long = carol_client.post(
        "/admin/ladders/ladder/add/", {**form, "rules": "classic", "series_games": 100}
    )
    assert "games per series must be 1-64, got 100" in too_long.content.decode()

    accepted = carol_client.post("/admin/ladders/ladder/add/", {**form, "rules": "classic"})
    assert accepted.status_code == 302
    assert Ladder.objects.get(slug="royal").duplicate_deals is False  # 4 seats: single games


@pytest.mark.parametrize(
    ("seats", "said", "plays_deals"),
    [
        (2, "unknown", True),
        (2, "false", False),
        (3, "unknown", False),
        (3, "true", True),
    ],
)
def test_carol_s_new_ladder_plays_duplicate_deals_on_2_seats_unless_she_says(
    carol_client: Client, seats: int, said: str, plays_deals: bool
) -> None:
    add = carol_client.get("/admin/ladders/ladder/add/").content.decode()
    assert '<option value="unknown" selected>By the seats: duplicate deals on 2 seats' in add

    form = {
        "slug": "new",
        "name": "New",
        "rules": "classic",
        "seats": seats,
        "options": "{}",
        "time_per_decision_ms": 1000,
        "time_bank_ms": 10000,
        "memory_mb": 256,
        "duplicate_deals": said,
        "series_games": 12,
        "is_open": "on",
    }
    assert carol_client.post("/admin/ladders/ladder/add/", form).status_code == 302
    ladder = Ladder.objects.get(slug="new")
    assert ladder.duplicate_deals is plays_deals
    # The change form shows what the ladder plays, not the default.
    change = carol_client.get(f"/admin/ladders/ladder/{ladder.pk}/change/").content.decode()
    chosen = "true" if plays_deals else "false"
    assert f'<option value="{chosen}" selected>' in change


def test_carol_cancels_matches_and_retires_versions(
    carol_client: Client, world: dict[str, Any]
) -> None:
    queued = MatchFactory(ladder=world["ladder"])
    response = carol_client.post(
        "/admin/matches/match/",
        {"action": "cancel", "_selected_action": [queued.pk, world["match"].pk]},
        follow=True,
    )
    assert response.status_code == 200
    queued.refresh_from_db()
    assert queued.status == MatchStatus.CANCELLED
    assert "finished: it cannot become cancelled" in response.content.decode()

    carol_client.post(
        "/admin/bots/botversion/",
        {"action": "retire", "_selected_action": [world["shark"].pk]},
    )
    world["shark"].refresh_from_db()
    assert world["shark"].status == VersionStatus.RETIRED


def test_carol_sees_a_ladder_s_rating_state_and_cannot_change_it(
    carol_client: Client, world: dict[str, Any]
) -> None:
    ladder = world["ladder"]
    Ladder.objects.filter(pk=ladder.pk).update(rated_units=120, refit_units=100)
    url = f"/admin/ladders/ladder/{ladder.pk}/change/"

    page = carol_client.get(url).content.decode()

    assert "Rated units" in page and "120" in page and "Refit units" in page
    assert 'name="rated_units"' not in page  # shown, not a form field
    form = {
        "slug": ladder.slug,
        "name": "Renamed",
        "time_per_decision_ms": 1000,
        "time_bank_ms": 10_000,
        "memory_mb": 256,
        "series_games": 12,
        "is_open": "on",
        "rated_units": 0,
    }
    assert carol_client.post(url, form).status_code == 302
    ladder.refresh_from_db()
    assert (ladder.name, ladder.rated_units, ladder.refit_units) == ("Renamed", 120, 100)
