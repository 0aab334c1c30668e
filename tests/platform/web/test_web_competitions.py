"""The competition pages with Django's client: the list (past ones folded), creation by
the allowed, a competition's page through its phases, entry by invitation link, the bot
page's placings, and the description's markdown rendered without raw HTML."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from arena.competitions.models import Competition, Phase
from arena.competitions.services import LadderSettings, competition_cancel
from arena.players.models import User
from tests.platform.competitions.test_competitions import (
    CLOSES,
    FINAL,
    FREEZE,
    OPENS,
    bot_of,
    create,
    play_final,
    sweep,
)
from tests.platform.factories import UserFactory

pytestmark = pytest.mark.django_db


def client_of(user: User | None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def form(**fields: Any) -> dict[str, Any]:
    return {
        "title": "Class of 2031",
        "slug": "class-2031",
        "description": "Write **your** bot. <script>alert(1)</script> [x](javascript:alert(1))",
        "rules": ["classic"],
        "seats": "2",
        "time_per_decision_ms": "1000",
        "access": "invitation",
        "entry_opens_at": "2031-05-02T09:00",
        "entry_closes_at": "2031-05-09T09:00",
        "freeze_at": "2031-05-11T09:00",
        "final_starts_at": "2031-05-12T09:00",
        "final_format": "round_robin",
        "round_interval": "1 hour",
        "duplicate": "on",
        **fields,
    }


def test_creating_is_for_the_allowed(alice: User, carol: User, settings: Any) -> None:
    assert client_of(alice).get("/competitions/new/").status_code == 403
    assert b"New competition" not in client_of(alice).get("/competitions/").content
    page = client_of(carol).get("/competitions/new/")
    assert page.status_code == 200 and b"Submission freeze" in page.content
    refused = client_of(carol).post("/competitions/new/", form(freeze_at="2031-05-08T09:00"))
    assert refused.status_code == 400
    assert b"must come at or after the close of entry" in refused.content
    made = client_of(carol).post("/competitions/new/", form())
    assert made.status_code == 302 and made["Location"] == "/competitions/class-2031/"
    competition = Competition.objects.get(slug="class-2031")
    assert competition.access == "invitation" and competition.duplicate
    settings.ARENA_COMPETITIONS_OPEN_TO_USERS = True
    assert client_of(alice).get("/competitions/new/").status_code == 200
    # An unverified address: sent where verifying is one click, told why.
    dora = UserFactory(username="dora", verified_email="", email_verified_at=None)
    listing = client_of(dora).get("/competitions/").content.decode()
    assert "New competition" not in listing and 'id="verify-to-create"' in listing
    sent = client_of(dora).get("/competitions/new/", follow=True)
    assert sent.redirect_chain == [("/notifications/", 302)]
    assert "To create a competition, verify your e-mail address first" in sent.content.decode()


def test_a_competition_page_through_its_phases(carol: User, alice: User, bob: User) -> None:
    competition = create(
        carol,
        access="invitation",
        description="Be **kind**. <script>alert(1)</script> [x](javascript:alert(1))",
    )
    url = f"/competitions/{competition.slug}/"
    link = f"{url}?invite={competition.invitation_token}"
    page = client_of(carol).get(url).content.decode()
    assert "<strong>kind</strong>" in page
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)" in page
    assert "javascript:" not in page
    assert competition.invitation_token in page  # the organiser sees the link
    assert competition.invitation_token not in client_of(alice).get(url).content.decode()
    assert 'class="countdown"' in page and "entry opens" in page

    competition = sweep(competition, OPENS)
    bots = {user.username: bot_of(user, f"{user.username}-bot") for user in (alice, bob)}
    without = client_of(alice).get(url).content.decode()
    assert "Entry is by invitation" in without and "enter-form" not in without
    assert "no longer works" in client_of(alice).get(f"{url}?invite=stale").content.decode()
    anonymous = client_of(None).get(link).content.decode()
    assert "Log in to enter" in anonymous
    invited = client_of(alice).get(link).content.decode()
    assert "enter-form" in invited and "alice-bot" in invited
    # A forged post without the token is refused with the reason.
    forged = client_of(bob).post(f"{url}enter/", {"bot": bots["bob"].pk}, follow=True)
    assert "by invitation only" in forged.content.decode()
    for user in (alice, bob):
        client_of(user).post(
            f"{url}enter/", {"bot": bots[user.username].pk, "token": competition.invitation_token}
        )
    page = client_of(None).get(url).content.decode()
    assert "alice-bot" in page and "bob-bot" in page and "Live ladder" in page

    competition = sweep(competition, CLOSES)
    competition = sweep(competition, FREEZE)
    assert competition.phase == Phase.FROZEN
    assert "v1" in client_of(None).get(url).content.decode()
    competition = sweep(competition, FINAL)
    competition = play_final(competition, FINAL)
    assert competition.phase == Phase.ARCHIVED
    page = client_of(None).get(url).content.decode()
    assert "Final standings" in page and "Final event" in page and "Standings" in page
    # The final is a private league (invitation only): its page is linked for its entrants.
    league_url = f'href="/leagues/{competition.slug}-final/"'
    assert league_url not in page
    assert league_url in client_of(alice).get(url).content.decode()
    bot_page = client_of(None).get(f"/bots/{bots['alice'].pk}/").content.decode()
    assert 'id="competitions"' in bot_page and competition.title in bot_page

    listing = client_of(None).get("/competitions/").content.decode()
    running, past = listing.split('id="past"')
    assert competition.title in past and competition.title not in running


def test_the_list_puts_running_first_and_folds_the_past(carol: User) -> None:
    old = create(carol, slug="old", title="Old cup")
    competition_cancel(competition=old, by=carol, now=OPENS)
    soon = create(carol, slug="soon", title="Soon cup")
    live = create(carol, slug="live", title="Live cup")
    sweep(live, OPENS)
    assert soon.phase == Phase.DRAFT
    page = client_of(None).get("/competitions/").content.decode()
    assert page.index("Live cup") < page.index("Soon cup") < page.index("Old cup")
    assert '<details class="past-competitions"' in page


def test_entering_a_competition_in_two_rule_systems_asks_which(carol: User, alice: User) -> None:
    competition = create(
        carol, ladders=[LadderSettings("classic", 2), LadderSettings("boulevard", 2)]
    )
    competition = sweep(competition, OPENS)
    bot = bot_of(alice, "fresh")
    url = f"/competitions/{competition.slug}/"
    assert 'id="id_rules"' in client_of(alice).get(url).content.decode()
    refused = client_of(alice).post(f"{url}enter/", {"bot": bot.pk}, follow=True)
    assert "choose the rule system fresh enters in" in refused.content.decode()
    client_of(alice).post(f"{url}enter/", {"bot": bot.pk, "rules": "boulevard"})
    assert competition.entries.get().ladder.ladder.rules == "boulevard"
