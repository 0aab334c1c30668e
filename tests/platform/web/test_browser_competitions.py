"""A competition in a real Chromium: Carol (a teacher, staff) creates an invitation-only
competition through the form, Alice (a student) enters her bot through the invitation
link, the clock is driven through the freeze and the final event to the archive.

Phases move by the competitions' sweep called with a driven ``now``; the final's games
are played with the engine's policies and recorded as a worker would (as in
test_leagues.py). Screenshots at a desktop's size and a phone's (390 px).
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.db import transaction
from django.utils import timezone
from playwright.sync_api import expect

from arena.competitions.models import Competition, Phase
from arena.competitions.services import competition_enter, competitions_advance_due
from tests.platform.browser import PHONE, overflows_horizontally
from tests.platform.competitions.test_competitions import bot_of, play_final
from tests.platform.web.test_browser import PASSWORD

pytestmark = pytest.mark.slow

pytest_plugins = ("tests.platform.browser",)


def at(moment: Any) -> str:
    return str(moment.strftime("%Y-%m-%dT%H:%M"))


def test_a_teacher_runs_an_invitation_only_competition(
    page: Any, screenshot: Any, log_in: Any, alice: Any, bob: Any, carol: Any
) -> None:
    pupil = bot_of(alice, "pupil")
    rival = bot_of(bob, "rival")
    opens = (timezone.now() + timedelta(days=1)).replace(minute=0, second=0, microsecond=0)
    closes, freeze = opens + timedelta(days=7), opens + timedelta(days=8)
    final = freeze + timedelta(hours=2)

    # Carol announces the competition.
    log_in("carol", PASSWORD)
    page.click("nav.site-nav >> text=Competitions")
    expect(page).to_have_url(re.compile(r"/competitions/$"))
    page.click("text=New competition")
    page.fill("#id_title", "Class 4B cup")
    page.fill("#id_slug", "class-4b")
    page.fill("#id_description", "Write a bot that **wins**.\n\n- one bot each\n- be kind")
    page.select_option("#id_access", "invitation")
    page.fill("#id_entry_opens_at", at(opens))
    page.fill("#id_entry_closes_at", at(closes))
    page.fill("#id_freeze_at", at(freeze))
    page.fill("#id_final_starts_at", at(final))
    page.select_option("#id_final_format", "round_robin")
    screenshot("competition-new")
    page.click("#competition-form button[type=submit]")
    expect(page).to_have_url(re.compile(r"/competitions/class-4b/$"))
    expect(page.locator(".messages")).to_contain_text("Share its invitation link")
    expect(page.locator("h1 .badge").first).to_have_text(re.compile("announced", re.I))
    expect(page.locator("#description strong")).to_have_text("wins")
    expect(page.locator("#next-step time.countdown")).to_have_text(re.compile(r"^in \d+ "))
    link = page.locator("#invitation-link").inner_text().strip()
    competition = Competition.objects.get(slug="class-4b")
    assert link.endswith(f"/competitions/class-4b/?invite={competition.invitation_token}")
    screenshot("competition-announced")

    competitions_advance_due(now=opens)
    page.context.clear_cookies()

    # Without the link Alice cannot enter; with it she logs in and enters.
    page.goto("/competitions/class-4b/")
    expect(page.locator("#enter")).to_contain_text("Entry is by invitation")
    page.goto("/" + link.split("://", 1)[1].split("/", 1)[1])
    expect(page.locator("#enter")).to_contain_text("Log in to enter")
    page.click("#enter >> text=Log in to enter")
    page.fill("#id_username", "alice")
    page.fill("#id_password", PASSWORD)
    page.click("#login-form button[type=submit]")
    expect(page).to_have_url(re.compile(r"/competitions/class-4b/\?invite="))
    page.select_option("#id_bot", str(pupil.pk))
    screenshot("competition-invited")
    page.click("#enter-form button[type=submit]")
    expect(page.locator(".messages")).to_contain_text("pupil is entered in Class 4B cup")
    expect(page.locator("table.entrants tbody tr")).to_have_count(1)
    expect(page.locator("#ladder-classic")).to_be_visible()

    # Bob enters too (through the services; the page tested above is the same for him).
    competition_enter(
        competition=competition, bot=rival, by=bob, token=competition.invitation_token, now=opens
    )
    competitions_advance_due(now=closes)
    competitions_advance_due(now=freeze)
    page.reload()
    expect(page.locator("h1 .badge").first).to_have_text(re.compile("frozen", re.I))
    expect(page.locator("#entrant-" + str(pupil.pk))).to_contain_text("v1")
    expect(page.locator("#next-step")).to_contain_text("final event starts")

    # The final event, played out, then the archive.
    with transaction.atomic():
        competitions_advance_due(now=final)
        competition = play_final(Competition.objects.get(pk=competition.pk), final)
    assert competition.phase == Phase.ARCHIVED
    page.reload()
    expect(page.locator("h1 .badge").first).to_have_text(re.compile("archived", re.I))
    expect(page.locator("table.placings tbody tr")).to_have_count(2)
    expect(page.locator("#final-classic table.standings tbody tr")).to_have_count(2)
    expect(page.locator("#final-classic section.league-round").first).to_be_visible()
    screenshot("competition-archived")

    page.click("table.placings >> text=pupil")
    expect(page).to_have_url(re.compile(rf"/bots/{pupil.pk}/$"))
    expect(page.locator("table.bot-placings")).to_contain_text("Class 4B cup")
    screenshot("competition-bot-placings")

    page.goto("/competitions/")
    expect(page.locator("#past")).not_to_have_attribute("open", "")
    page.click("#past summary")
    expect(page.locator("#past")).to_contain_text("Class 4B cup")
    screenshot("competitions")

    # A phone's width: nothing cut off at the side.
    page.set_viewport_size(PHONE)
    for path, name in (
        ("/competitions/class-4b/", "competition-archived-phone"),
        ("/competitions/", "competitions-phone"),
        (f"/bots/{pupil.pk}/", "competition-bot-phone"),
    ):
        page.goto(path)
        assert not overflows_horizontally(page), path
        screenshot(name)
    page.context.clear_cookies()
    log_in("carol", PASSWORD)
    page.goto("/competitions/new/")
    assert not overflows_horizontally(page)
    screenshot("competition-new-phone")
