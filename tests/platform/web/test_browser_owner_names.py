"""The replay's seat table names each bot's owner, in a real Chromium, on a desktop and a
phone: two owners' bots of the same name are told apart, and nothing is cut off."""

from __future__ import annotations

from typing import Any

import pytest

from arena.ladders.flows import ladder_create
from tests.platform.browser import PHONE, overflows_horizontally
from tests.platform.factories import BotFactory, BotVersionFactory, UserFactory
from tests.platform.scenes import play_match

pytestmark = pytest.mark.slow

pytest_plugins = ("tests.platform.browser",)

NAME = "my-first-bot"

#: Each cell of the seat table whose content is wider than the cell shows (cut off).
CUT_CELLS = """
[...document.querySelectorAll("#replay-seats td")]
  .filter((td) => td.scrollWidth > td.clientWidth + 1 && !td.classList.contains("hand"))
  .map((td) => td.dataset.label)
"""


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "phone"])
def test_the_replay_seat_table_names_each_bots_owner(
    page: Any, screenshot: Any, alice: Any, bob: Any, house: Any, viewport: Any
) -> None:
    ladder = ladder_create(slug="classic-4", name="Classic, 4 seats", rules="classic", seats=4)
    # A long username too: the phone's seat cards must still show it whole.
    longest = UserFactory(username="a-rather-long-username-indeed")
    versions = [
        BotVersionFactory(bot=BotFactory(owner=owner, name=name))
        for owner, name in (
            (alice, NAME),
            (bob, NAME),
            (house, "greedy"),
            (longest, "the-longest-bot-name-we-allow-is-forty"),
        )
    ]
    match, _ = play_match(ladder, versions, 4)
    page.goto(f"/matches/{match.pk}/")
    page.wait_for_selector("#replay-seats tbody tr")
    cells = page.locator("#replay-seats td.bot-cell").all_text_contents()
    assert [" ".join(text.split()) for text in cells] == [
        f"{NAME} · alice",
        f"{NAME} · bob",
        "greedy · house",
        "the-longest-bot-name-we-allow-is-forty · a-rather-long-username-indeed",
    ]
    assert page.locator("#replay-seats td.bot-cell .badge.house").text_content() == "house"
    # The captions tell the two my-first-bots apart too (the last one: the game's result).
    caption = page.inner_text("#replay-caption")
    assert f"{NAME} · alice" in caption and f"{NAME} · bob" in caption, caption
    assert "greedy ·" not in caption  # a name no other seat has stays short
    assert page.evaluate(CUT_CELLS) == []
    assert not overflows_horizontally(page)
    size = "phone" if viewport else "desktop"
    whole = screenshot(f"owner-names-{size}")
    seats = whole.with_name(f"owner-names-seats-{size}.png")
    page.locator("#replay-seats").screenshot(path=str(seats))
