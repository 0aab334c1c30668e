"""In Chromium: a ladder's past season, its archived table and a bot's placings, on a
desktop and a phone."""

from __future__ import annotations

from typing import Any

import pytest

from arena.ladders.services import season_close
from tests.platform.browser import PHONE, overflows_horizontally
from tests.platform.factories import BotFactory, BotVersionFactory, LadderFactory, RatingFactory

pytestmark = pytest.mark.slow

pytest_plugins = ("tests.platform.browser",)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "phone"])
def test_a_visitor_browses_a_past_season_and_a_bots_placings(
    page: Any, screenshot: Any, alice: Any, bob: Any, carol: Any, viewport: Any
) -> None:
    ladder = LadderFactory(slug="classic-4", name="Classic, 4 seats", seats=4)
    shark = BotVersionFactory(bot=BotFactory(owner=alice, name="shark"), number=2)
    RatingFactory(ladder=ladder, bot_version=shark, rating=1712, rated_matches=140)
    for index in range(5):
        rival = BotVersionFactory(bot=BotFactory(owner=bob, name=f"rival-{index}"))
        RatingFactory(ladder=ladder, bot_version=rival, rating=1600 - 40 * index, rated_matches=90)
    rookie = BotVersionFactory(bot=BotFactory(owner=bob, name="rookie"))
    RatingFactory(ladder=ladder, bot_version=rookie, rating=1800, rated_matches=4)
    season_close(ladder=ladder, next_start="reset", by=carol, season=1, name="Winter")
    size = "phone" if viewport else "desktop"

    page.goto("/ladders/classic-4/")
    assert "Winter (season 2)" in page.inner_text("#season")
    screenshot(f"seasons-ladder-{size}")
    page.click("#past-seasons + ul >> text=Season 1")
    page.wait_for_url("**/ladders/classic-4/seasons/1/")
    rows = page.locator("#final-table tbody tr")
    assert rows.count() == 6
    assert "shark" in rows.nth(0).inner_text() and "1712" in rows.nth(0).inner_text()
    assert "rookie" in page.inner_text("#unranked")
    assert not overflows_horizontally(page)
    screenshot(f"seasons-table-{size}")

    page.click("#final-table >> text=shark")
    page.wait_for_url(f"**/bots/{shark.bot_id}/")
    placing = page.locator("#seasons + .table-wrap tbody tr")
    assert placing.count() == 1
    assert "Season 1" in placing.inner_text()
    assert not overflows_horizontally(page)
    screenshot(f"seasons-bot-{size}")
