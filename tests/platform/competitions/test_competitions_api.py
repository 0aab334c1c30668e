"""The competitions HTTP API: create, read, enter by invitation, withdraw, renew the link,
cancel, and the OpenAPI schema naming it all."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from arena.competitions.models import Competition, Phase
from arena.competitions.services import competition_advance
from arena.players.models import User
from tests.platform.api_support import client_for
from tests.platform.factories import BotVersionFactory

pytestmark = pytest.mark.django_db


def payload(**fields: Any) -> dict[str, Any]:
    now = timezone.now()
    return {
        "slug": "class-cup",
        "title": "Class cup",
        "description": "# Rules\n\nBe <b>nice</b>.",
        "ladders": [{"rules": "classic", "seats": 2}],
        "entry_opens_at": (now + timedelta(hours=1)).isoformat(),
        "entry_closes_at": (now + timedelta(days=2)).isoformat(),
        "freeze_at": (now + timedelta(days=3)).isoformat(),
        "final_starts_at": (now + timedelta(days=4)).isoformat(),
        "final_format": "swiss",
        "rounds": 2,
        "access": "invitation",
        **fields,
    }


def test_create_enter_by_invitation_withdraw_and_cancel(
    carol: User, alice: User, bob: User
) -> None:
    staff, author = client_for(carol), client_for(alice)
    refused = author.post("/api/competitions/", payload(), format="json")
    assert refused.status_code == 403
    assert refused.json()["code"] == "competition_permission"
    bad = client_for(carol).post(
        "/api/competitions/", payload(final_format="knockout"), format="json"
    )
    assert bad.status_code == 400 and "needs `advance`" in bad.json()["detail"]

    made = staff.post("/api/competitions/", payload(), format="json")
    assert made.status_code == 201, made.json()
    body = made.json()
    assert body["phase"] == "draft" and body["next"]["what"] == "entry opens"
    assert body["ladders"][0]["ladder"] == "class-cup-classic"
    assert body["ladders"][0]["league"] is None
    token = body["invitation_token"]
    assert token
    # Others read it, without the token.
    seen = client_for(bob).get("/api/competitions/class-cup/").json()
    assert seen["invitation_token"] is None and seen["title"] == "Class cup"
    assert client_for().get("/api/competitions/").json()["results"][0]["slug"] == "class-cup"

    competition = Competition.objects.get(slug="class-cup")
    competition_advance(competition=competition, now=timezone.now() + timedelta(hours=2))
    bot = BotVersionFactory(bot__owner=alice, bot__name="pupil").bot
    url = "/api/competitions/class-cup/entries/"
    without = author.post(url, {"bot": bot.pk}, format="json")
    assert without.status_code == 400
    assert "by invitation only" in without.json()["detail"]
    entered = author.post(url, {"bot": bot.pk, "token": token}, format="json")
    assert entered.status_code == 201, entered.json()
    assert entered.json()["bot"] == "pupil" and entered.json()["status"] == "entered"
    assert [e["owner"] for e in staff.get("/api/competitions/class-cup/").json()["entries"]] == [
        "alice"
    ]

    # A renewed link refuses the old token.
    assert client_for(bob).post("/api/competitions/class-cup/invitation/").status_code == 403
    renewed = staff.post("/api/competitions/class-cup/invitation/").json()
    assert renewed["invitation_token"] != token

    assert client_for(bob).delete(f"{url}{bot.pk}/").status_code == 403
    assert author.delete(f"{url}{bot.pk}/").status_code == 204
    assert staff.get("/api/competitions/class-cup/").json()["entries"] == []

    assert author.post("/api/competitions/class-cup/advance/").status_code == 403
    assert staff.post("/api/competitions/class-cup/advance/").json()["phase"] == "entry"
    cancelled = staff.post(
        "/api/competitions/class-cup/cancel/", {"reason": "holidays"}, format="json"
    )
    assert cancelled.json()["phase"] == Phase.CANCELLED and cancelled.json()["note"] == "holidays"


def test_the_schema_describes_competitions() -> None:
    schema = client_for().get("/api/schema/?format=json").json()
    paths = schema["paths"]
    for path in (
        "/api/competitions/",
        "/api/competitions/{slug}/",
        "/api/competitions/{slug}/entries/",
        "/api/competitions/{slug}/entries/{bot_id}/",
        "/api/competitions/{slug}/cancel/",
        "/api/competitions/{slug}/invitation/",
    ):
        assert path in paths, path
    detail = schema["components"]["schemas"]["CompetitionDetail"]["properties"]
    assert {"ladders", "entries", "placings", "next", "invitation_token"} <= set(detail)
