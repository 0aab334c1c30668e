"""The league page in a real Chromium: fixtures by round, the standings, through to a match.

The league is created and played through the leagues services as in
test_leagues.py (the engine's policies play; results recorded as a worker would).
"""

from __future__ import annotations

import re
from typing import Any

from django.db import transaction

from arena.leagues.models import LeagueStatus
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

    page.goto("/")
    page.click("nav.site-nav >> text=Leagues")
    page.wait_for_url("**/leagues/")
    page.click("text=Winter cup")
    page.wait_for_url("**/leagues/winter/")
    screenshot("league")

    # Three rounds of one table each, every game finished with a match link.
    assert page.locator("section.league-round").count() == 3
    for number in (1, 2, 3):
        round_section = page.locator(f"#round-{number}")
        assert round_section.locator("h3").inner_text().startswith(f"Round {number}")
        assert round_section.locator("table.fixtures tbody tr").count() == 1
        assert round_section.locator(".seat-tag").count() == 2
    # The standings, best first.
    rows = page.locator("table.standings tbody tr")
    assert rows.count() == 3
    for index, standing in enumerate(standings):
        cells = rows.nth(index).locator("td")
        assert cells.nth(0).inner_text() == str(standing.position)
        assert cells.nth(1).inner_text().startswith(standing.entry.bot.name)
        assert cells.nth(3).inner_text() == f"${standing.money:,}"
    assert standings[0].entry.bot.name in page.inner_text(".league-winner")

    link = page.locator("#round-1 table.fixtures a[href^='/matches/']")
    href = link.get_attribute("href")
    link.click()
    page.wait_for_url(re.compile(rf"{re.escape(href)}$"))
    assert page.inner_text("h1").startswith("Match #")
    screenshot("league-match")
