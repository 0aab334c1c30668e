"""In Chromium: every rating with its ± on the ladder page, neighbours within the noise
marked tied, and the ± as a band around a bot's rating history.

The ratings are the services' own: seeded results of a 4-seat ladder rated match by
match (``ratings_apply``), then refitted (``ladder_refit``), as the platform rates them.
"""

from __future__ import annotations

import math
import random
import re
from itertools import pairwise
from typing import Any

import pytest
from playwright.sync_api import expect

from arena.ladders.elo import PROVISIONAL_DEVIATION, is_tied
from arena.ladders.models import Rating
from arena.ladders.selectors import ladder_leaderboard
from arena.ladders.services import ladder_refit, ratings_apply
from tests.platform.browser import PHONE, overflows_horizontally
from tests.platform.factories import BotFactory, BotVersionFactory, LadderFactory, finished_match

pytestmark = pytest.mark.slow

pytest_plugins = ("tests.platform.browser",)

#: Hidden strengths (Elo): twins a few points apart, the others well apart.
STRENGTHS = {"marlin": 1800, "tuna": 1795, "shark": 1650, "perch": 1500, "cod": 1350, "eel": 1200}


def _ladder_with_history(owners: list[Any]) -> tuple[Any, dict[str, Any]]:
    """A 4-seat ladder whose six bots played 120 seeded games (about 80 each: settled)
    and a newcomer its first 4 (provisional), rated and refitted by the services."""
    ladder = LadderFactory(slug="classic-4", name="Classic, 4 seats", seats=4)
    names = [*STRENGTHS, "rookie"]
    versions = {
        name: BotVersionFactory(bot=BotFactory(owner=owners[i % len(owners)], name=name))
        for i, name in enumerate(names)
    }
    rng = random.Random(34)

    def play(table: list[str]) -> None:
        # Plackett-Luce on the strengths: each place drawn by 10^(Elo/400) among the rest.
        left, order = list(table), []
        while left:
            weights = [math.pow(10, STRENGTHS.get(n, 1500) / 400) for n in left]
            order.append(left.pop(rng.choices(range(len(left)), weights)[0]))
        match = finished_match(
            ladder, [versions[n] for n in table], [order.index(n) + 1 for n in table]
        )
        ratings_apply(match=match)

    for _ in range(120):
        play(rng.sample(list(STRENGTHS), 4))
    ladder_refit(ladder_id=ladder.pk)
    for _ in range(4):
        play(["rookie", *rng.sample(list(STRENGTHS), 3)])
    return ladder, versions


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "phone"])
def test_the_ladder_shows_each_rating_with_its_deviation_and_marks_ties(
    page: Any, screenshot: Any, alice: Any, bob: Any, carol: Any, viewport: Any
) -> None:
    ladder, versions = _ladder_with_history([alice, bob, carol])
    ranked = list(ladder_leaderboard(ladder=ladder, provisional=False))
    assert [r.bot.name for r in ranked][:2] in (["marlin", "tuna"], ["tuna", "marlin"])
    assert len(ranked) == 6 and all(r.deviation <= PROVISIONAL_DEVIATION for r in ranked)
    ties = [
        is_tied(r.rating, r.deviation, above.rating, above.deviation)
        for above, r in pairwise(ranked)
    ]
    # The twins are within the noise of each other; the strengths further apart are not.
    assert ties[0] and not all(ties)
    rookie = Rating.objects.get(bot_version=versions["rookie"])
    assert rookie.deviation > PROVISIONAL_DEVIATION

    page.goto("/ladders/classic-4/")

    rows = page.locator("table.leaderboard:not(.provisional) tbody tr")
    expect(rows).to_have_count(6)
    for index, rating in enumerate(ranked):
        elo = rows.nth(index).locator("td[data-label=Elo]")
        expect(elo).to_have_text(f"{round(rating.rating)} ± {round(rating.deviation)}")
        mark = rows.nth(index).locator("td.rank abbr.tie")
        expect(mark).to_have_count(1 if index and ties[index - 1] else 0)
    tie = rows.nth(1).locator("td.rank abbr.tie")
    expect(tie).to_be_visible()
    expect(tie).to_have_text("≈")
    expect(tie).to_have_attribute("title", re.compile("within the noise"))
    expect(page.locator("#noise")).to_contain_text("≈ marks a bot tied with the one above it")
    # The newcomer: listed apart, its ± over the threshold, marked provisional.
    settling = page.locator("table.leaderboard.provisional tbody tr")
    expect(settling).to_have_count(1)
    expect(settling.first.locator("td[data-label=Elo]")).to_have_text(
        f"{round(rookie.rating)}? ± {round(rookie.deviation)}"
    )
    assert not overflows_horizontally(page)
    screenshot(f"ladder-deviations-{'phone' if viewport else 'desktop'}")

    # The bot page: its rating with its ±, and the band around its history.
    page.goto(f"/bots/{versions['tuna'].bot_id}/")
    tuna = next(r for r in ranked if r.bot.name == "tuna")
    expect(page.locator("span.elo").first).to_have_text(
        f"{round(tuna.rating)} ± {round(tuna.deviation)}"
    )
    band = page.locator("svg.line-chart polygon.band")
    expect(band).to_have_count(1)
    expect(page.locator("figure.chart figcaption")).to_contain_text("the band is its ±")
    screenshot(f"bot-history-band-{'phone' if viewport else 'desktop'}")
