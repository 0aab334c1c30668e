"""Leagues in a real Chromium: the league page through to a match; creating and managing one.

The first league is created and played through the leagues services as in
test_leagues.py (the engine's policies play; results recorded as a worker
would); the second is created by Carol through the new-league form.
"""

from __future__ import annotations

import re
from datetime import UTC, timedelta
from typing import Any

import pytest
from django.db import transaction
from django.utils import timezone
from playwright.sync_api import expect

from arena.bots.models import Visibility
from arena.leagues.models import EntryStatus, League, LeagueGame, LeagueStatus
from arena.leagues.selectors import league_standings
from tests.platform.factories import BotVersionFactory, LadderFactory, RatingFactory
from tests.platform.leagues.test_leagues import create, make_bots, play_out
from tests.platform.web.test_browser import PASSWORD

pytestmark = pytest.mark.slow

# The fixtures page, screenshot and log_in.
pytest_plugins = ("tests.platform.browser",)


def test_follow_a_league_to_its_matches(page: Any, screenshot: Any, alice: Any, carol: Any) -> None:
    ladder = LadderFactory(slug="classic-2", name="Classic, 2 seats", rules="classic", seats=2)
    # One transaction, as scenes.play_match: the run tasks queued on commit find their
    # matches finished and leave them (the test's versions have no code to run).
    with transaction.atomic():
        bots = make_bots(alice, 3, "cup")
        league = play_out(create(carol, ladder, bots, name="Winter cup", slug="winter"))
    assert league.status == LeagueStatus.FINISHED
    standings = list(league_standings(league=league))

    first_match = LeagueGame.objects.get(fixture__round__league=league, fixture__round__number=1)

    # Auto-waiting assertions throughout: each retries until the page shows it.
    page.goto("/")
    page.click("nav.site-nav >> text=Leagues")
    expect(page).to_have_url(re.compile(r"/leagues/$"))
    page.click("text=Winter cup")
    expect(page).to_have_url(re.compile(r"/leagues/winter/$"))

    # Three rounds of one table each, every game finished with a match link.
    expect(page.locator("section.league-round")).to_have_count(3)
    for number in (1, 2, 3):
        round_section = page.locator(f"#round-{number}")
        expect(round_section.locator("h3")).to_have_text(re.compile(rf"^Round {number}\b"))
        expect(round_section.locator("table.fixtures tbody tr")).to_have_count(1)
        expect(round_section.locator(".seat-tag")).to_have_count(2)
    # The standings, best first.
    rows = page.locator("table.standings tbody tr")
    expect(rows).to_have_count(3)
    for index, standing in enumerate(standings):
        cells = rows.nth(index).locator("td")
        expect(cells.nth(0)).to_have_text(str(standing.position))
        expect(cells.nth(1)).to_have_text(re.compile(rf"^{re.escape(standing.entry.bot.name)}\b"))
        expect(cells.nth(3)).to_have_text(f"${standing.money:,}")
    expect(page.locator(".league-winner")).to_contain_text(standings[0].entry.bot.name)
    screenshot("league")

    link = page.locator("#round-1 table.fixtures a[href^='/matches/']")
    expect(link).to_have_attribute("href", f"/matches/{first_match.match_id}/")
    link.click()
    # The replay viewer writes the step it shows into the address (#step-1) as soon as it
    # runs, which may be before this line: match the path, with or without that fragment.
    expect(page).to_have_url(re.compile(rf"/matches/{first_match.match_id}/(#step-\d+)?$"))
    expect(page.locator("h1")).to_have_text(re.compile(rf"^Match #{first_match.match_id}\b"))
    screenshot("league-match")


def test_carol_creates_a_league_then_pauses_and_resumes_it(
    page: Any, screenshot: Any, log_in: Any, alice: Any, bob: Any, carol: Any
) -> None:
    classic = LadderFactory(slug="classic-4", name="Classic, 4 seats", rules="classic", seats=4)
    boulevard = LadderFactory(
        slug="boulevard-4", name="Boulevard, 4 seats", rules="boulevard", seats=4
    )
    bots = make_bots(alice, 3, "cup") + make_bots(bob, 1, "rival")
    RatingFactory(ladder=classic, bot_version=bots[0].versions.get())
    other = BotVersionFactory(bot__owner=bob, bot__name="dealer", bot__visibility=Visibility.PUBLIC)
    RatingFactory(ladder=boulevard, bot_version=other)
    start = (timezone.now() + timedelta(days=2)).replace(hour=18, minute=0, second=0, microsecond=0)

    log_in("carol", PASSWORD)
    page.goto("/leagues/")
    page.click("text=New league")
    expect(page).to_have_url(re.compile(r"/leagues/new/$"))
    page.fill("#id_name", "Spring open")
    page.fill("#id_slug", "spring-open")
    page.select_option("#id_ladder", "classic-4")
    # The boulevard bot is not offered for a classic ladder; it is for a boulevard one.
    dealer = page.locator("#entrants label", has_text="dealer")
    expect(dealer).to_be_hidden()
    page.select_option("#id_ladder", "boulevard-4")
    expect(dealer).to_be_visible()
    expect(page.locator("#entrants label", has_text="cup0")).to_be_hidden()
    page.select_option("#id_ladder", "classic-4")
    page.select_option("#id_format", "swiss")
    page.select_option("#id_visibility", "public")
    page.fill("#id_start_at", start.strftime("%Y-%m-%dT%H:%M"))
    page.fill("#id_round_interval", "6 hours")
    for bot in bots:
        page.locator("#entrants label", has_text=bot.name).locator("input").check()
    page.fill("#id_rounds", "3")
    screenshot("league-new")
    page.click("#league-form button[type=submit]")

    expect(page).to_have_url(re.compile(r"/leagues/spring-open/$"))
    expect(page.locator(".messages")).to_contain_text("Created Spring open")
    expect(page.locator("h1 .badge")).to_have_text(re.compile("scheduled", re.I))
    expect(page.locator("table.entrants tbody tr")).to_have_count(4)
    expect(page.locator("table.entrants")).not_to_contain_text("invited")  # staff enter at once
    expect(page.locator(".schedule tr", has_text="Round every").locator("td")).to_have_text(
        "6 hours"
    )
    league = League.objects.get(slug="spring-open")
    assert (league.format, league.visibility, league.rounds_requested) == ("swiss", "public", 3)
    assert league.start_at == start.astimezone(UTC)
    assert [e.bot.name for e in league.entries.order_by("seed")] == [b.name for b in bots]
    assert set(league.entries.values_list("status", flat=True)) == {EntryStatus.ACCEPTED}

    page.click("#organiser-controls button:text-is('Pause')")
    expect(page.locator(".messages")).to_contain_text("Paused Spring open")
    expect(page.locator("h1 .badge")).to_have_text(re.compile("paused", re.I))
    expect(page.locator("#organiser-controls button:text-is('Pause')")).to_have_count(0)
    screenshot("league-paused")
    page.click("#organiser-controls button:text-is('Resume')")
    expect(page.locator(".messages")).to_contain_text("Resumed Spring open")
    expect(page.locator("h1 .badge")).to_have_text(re.compile("scheduled", re.I))
    league.refresh_from_db()
    assert league.status == LeagueStatus.SCHEDULED


def test_the_form_previews_the_calendar_as_it_is_filled(
    page: Any, screenshot: Any, log_in: Any, alice: Any
) -> None:
    LadderFactory(slug="classic-2", name="Classic, 2 seats", rules="classic", seats=2)
    bots = make_bots(alice, 6, "cup")
    start = (timezone.now() + timedelta(days=2)).replace(hour=9, minute=0, second=0, microsecond=0)

    log_in("alice", PASSWORD)
    page.goto("/leagues/new/")
    plan = page.locator("#league-plan")
    expect(plan).to_contain_text("Tick the entrants")
    page.fill("#id_name", "Lunch cup")
    page.select_option("#id_ladder", "classic-2")
    page.fill("#id_start_at", start.strftime("%Y-%m-%dT%H:%M"))
    for bot in bots[:4]:
        page.locator("#entrants label", has_text=bot.name).locator("input").check()
    # Four bots two by two: three rounds, ten minutes apart (the default interval).
    expect(page.locator("#plan-rounds")).to_have_text("3 rounds")
    expect(page.locator("#plan-end")).to_have_text(
        (start + timedelta(minutes=20)).strftime("%a %-d %b %Y, %H:%M UTC")
    )
    # Each change is previewed: more entrants, another interval.
    for bot in bots[4:]:
        page.locator("#entrants label", has_text=bot.name).locator("input").check()
    page.fill("#id_round_interval", "1 hour")
    expect(page.locator("#plan-rounds")).to_have_text("5 rounds")
    expect(page.locator("#plan-end")).to_have_text(
        (start + timedelta(hours=4)).strftime("%a %-d %b %Y, %H:%M UTC")
    )
    page.fill("#id_round_interval", "soon")
    expect(plan).to_contain_text("'soon' is not a duration")
    page.fill("#id_round_interval", "1 hour")
    expect(page.locator("#plan-rounds")).to_have_text("5 rounds")
    # Started now, the first round is within a minute or two.
    page.check("#id_start_now")
    expect(plan).to_contain_text("the first within a minute or two")
    plan.scroll_into_view_if_needed()
    screenshot("league-new-plan")
    page.click("#league-form button[type=submit]")
    expect(page).to_have_url(re.compile(r"/leagues/lunch-cup/$"))
    league = League.objects.get(slug="lunch-cup")
    assert league.round_interval == timedelta(hours=1) and league.entries.count() == 6
