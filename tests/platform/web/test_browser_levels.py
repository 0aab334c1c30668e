"""In Chromium: the Levels page and a bot page's levels beaten, on a desktop and a phone."""

from __future__ import annotations

from typing import Any

import pytest

from arena.ladders.flows import ladder_create
from arena.ladders.levels import BEATEN_MIN_GAMES
from tests.platform.browser import PHONE, overflows_horizontally
from tests.platform.factories import BotFactory, BotVersionFactory, RatingFactory, finished_match

pytestmark = pytest.mark.slow

pytest_plugins = ("tests.platform.browser",)


def _scene(alice: Any, house: Any) -> int:
    """Five levels rated on two ladders; alice's shark beat greedy on classic-4 and met
    montecarlo too few times. Returns shark's id."""
    ladders = [
        ladder_create(slug="classic-4", name="Classic, 4 seats", rules="classic", seats=4),
        ladder_create(slug="sixdice-4", name="Six dice, 4 seats", rules="sixdice", seats=4),
    ]
    levels = {}
    for number, name in enumerate(("random", "gambler", "greedy", "montecarlo", "ismcts")):
        levels[name] = BotVersionFactory(bot=BotFactory(owner=house, name=name))
        for ladder in ladders:
            RatingFactory(
                ladder=ladder,
                bot_version=levels[name],
                rating=1300 + 90 * number,
                rated_matches=200,
            )
    shark = BotVersionFactory(bot=BotFactory(owner=alice, name="shark"))
    filler = [BotVersionFactory(), BotVersionFactory()]
    classic = ladders[0]
    for index in range(BEATEN_MIN_GAMES + 4):
        ranks = [1, 2, 3, 4] if index % 3 else [2, 1, 3, 4]
        finished_match(classic, [shark, levels["greedy"], *filler], ranks)
    for _ in range(6):
        finished_match(classic, [shark, levels["montecarlo"], *filler], [3, 1, 2, 4])
    return int(shark.bot_id)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "phone"])
def test_the_levels_page_and_the_levels_beaten(
    page: Any, screenshot: Any, alice: Any, house: Any, viewport: Any
) -> None:
    shark = _scene(alice, house)
    size = "phone" if viewport else "desktop"

    page.goto("/")
    page.click("nav.site-nav >> text=Levels")
    page.wait_for_url("**/levels/")
    rows = page.locator("#levels tbody tr")
    assert rows.count() == 5
    assert "Croupier" in page.inner_text("#level-5")
    assert "1660" in page.inner_text("#level-5")  # ismcts's rating on its ladders
    assert not overflows_horizontally(page)
    screenshot(f"levels-{size}")

    page.goto(f"/bots/{shark}/")
    greedy = page.locator(".levels-beaten tr[data-ladder='classic-4'][data-level='3']")
    assert "BEATEN" in greedy.inner_text()  # badges are uppercase
    montecarlo = page.locator(".levels-beaten tr[data-ladder='classic-4'][data-level='4']")
    assert f"6 of {BEATEN_MIN_GAMES} games" in montecarlo.inner_text()
    assert not overflows_horizontally(page)
    page.locator("#levels").scroll_into_view_if_needed()
    screenshot(f"bot-levels-beaten-{size}")
