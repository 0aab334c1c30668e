"""The home page in a real Chromium, at a desktop's width and a phone's (390 px): the
matches in play link to their live pages, the latest results and each ladder's leaders
name every bot with its owner, and the page never scrolls sideways."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from arena.ladders.models import Rating
from tests.platform.browser import overflows_horizontally
from tests.platform.factories import BotVersionFactory, LadderFactory
from tests.platform.scenes import play_match
from tests.platform.web.test_web_home import running

pytestmark = pytest.mark.slow

# The fixtures page and screenshot.
pytest_plugins = ("tests.platform.browser",)


@pytest.mark.parametrize(("width", "name"), [(1280, "desktop"), (390, "phone")])
def test_the_home_page_shows_life(
    page: Any, screenshot: Any, alice: Any, bob: Any, width: int, name: str
) -> None:
    pairs = LadderFactory(slug="classic-2", name="Classic, 2 seats", rules="classic", seats=2)
    fours = LadderFactory(slug="classic-4", name="Classic, 4 seats", rules="classic", seats=4)
    sharks = [BotVersionFactory(bot__owner=alice, bot__name=f"shark-{i}") for i in range(3)]
    turtles = [BotVersionFactory(bot__owner=bob, bot__name=f"turtle-{i}") for i in range(3)]
    results = [
        play_match(pairs, [s, t], seed=i)[0]
        for i, (s, t) in enumerate(zip(sharks, turtles, strict=True))
    ]
    play_match(fours, [*sharks[:2], *turtles[:2]], seed=9)
    Rating.objects.update(rated_matches=40, deviation=40.0)  # settled
    live = [running(pairs, [turtles[0], sharks[1]]), running(fours, [*sharks, turtles[2]])]

    page.set_viewport_size({"width": width, "height": 900})
    page.goto("/")
    playing = page.locator("#playing-now li")
    expect(playing).to_have_count(2)
    expect(playing.first).to_contain_text(f"Match #{live[1].pk}")
    expect(playing.first.locator(".bot-owner").first).to_have_text(re.compile(r"shark-0\s*· alice"))
    expect(page.locator("#latest-results li")).to_have_count(4)
    expect(page.locator("#latest-results")).to_contain_text(f"Match #{results[0].pk}")
    leaders = page.locator("table.ladders td.leaders")
    expect(leaders).to_have_count(2)
    expect(leaders.first.locator("div")).to_have_count(3)
    expect(leaders.first).to_contain_text(re.compile(r"1\. (shark|turtle)-\d · (alice|bob)"))
    assert not overflows_horizontally(page)
    screenshot(f"home-{name}")

    # A match in play opens on its page, which follows it live.
    playing.first.locator("a", has_text="Match #").click()
    expect(page).to_have_url(re.compile(rf"/matches/{live[1].pk}/"))
