"""The league page in a real Chromium: fixtures by round, the standings, through to a match.

The league is created and played through the leagues services as in
test_leagues.py (the engine's policies play; results recorded as a worker would).
"""

from __future__ import annotations

import re
from typing import Any

from django.db import transaction
from playwright.sync_api import expect

from arena.leagues.models import LeagueGame, LeagueStatus
from arena.leagues.selectors import league_standings

from .factories import LadderFactory
from .test_leagues import create, make_bots, play_out

# The fixtures page and screenshot.
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
