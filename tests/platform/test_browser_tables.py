"""In Chromium, against a real Celery worker: a person plays a whole game against a house
bot by clicking, and a running match's replay grows on its page as the worker plays it.

The live server serves the pages; the worker (its own process, on the test
database and a Redis queue of its own) plays the table and the match with
the referee, the bots as deployed (house bots bare, uploads in the sandbox),
and the person's seat through its relay. Screenshots at a desktop's size and
a phone's (390 px).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from arena.ladders.services import ladder_create
from arena.matches.games import MatchGame
from arena.matches.models import Match, MatchStatus
from arena.matches.services import match_create
from arena.tables.models import Table, TableStatus

from .browser import PHONE, overflows_horizontally
from .test_browser import PASSWORD
from .test_match_pipeline import house_bot, player_bot
from .worker import needs_redis, needs_shared_database, protocol_bot, site_worker, wait_for

pytest_plugins = ("tests.platform.browser",)
pytestmark = [
    needs_shared_database,
    needs_redis,
    pytest.mark.django_db(transaction=True),
]

# A bot that takes its time (in the sandbox): the match lasts long enough to watch.
SLOW_BOT = protocol_bot(before="time.sleep(0.25)")


def steps_shown(page: Any) -> int:
    """The viewer's step count: "Step 3 / 17" -> 17."""
    return int(page.inner_text("#replay-position").split("/")[-1])


def test_a_person_plays_a_whole_game_against_a_house_bot_by_clicking(
    page: Any,
    screenshot: Any,
    log_in: Any,
    alice: Any,
    house: Any,
    media_root: Path,
    tmp_path: Path,
) -> None:
    house_bot(house, "greedy")
    house_bot(house, "random")
    with site_worker(tmp_path, media_root):
        log_in("alice", PASSWORD)
        page.goto("/play/")
        # Classic, two seats: the form offers one bot, the house's greedy first.
        page.select_option("#id_rules", "classic")
        page.select_option("#id_seats", "2")
        expect(page.locator("[data-bot='2']")).to_be_hidden()
        expect(page.locator("fieldset[data-options='royale']")).to_be_hidden()
        assert page.input_value("#id_bot_1") != ""
        page.select_option("#id_bot_1", label="greedy (house)")
        page.select_option("#id_seat", "1")
        screenshot("play-form")
        page.click("#table-form button[type=submit]")
        page.wait_for_url(re.compile(r"/play/\d+/$"))
        table = Table.objects.get(player=alice)
        assert (table.rules, table.seats, table.seat) == ("classic", 2, 1)

        clicks = 0
        shot = False
        while True:
            # Either the person's move comes, or the game ends (the page reloads to the result).
            page.wait_for_selector(
                "#decision-actions .action-button:enabled, #table-result", timeout=60_000
            )
            if page.locator("#table-result").count():
                break
            buttons = page.locator("#decision-actions .action-button")
            legal = buttons.all_inner_texts()
            assert legal and all(re.fullmatch(r"(place|slot) [1-6]", a) for a in legal), legal
            assert re.search(r"\d+ s left", page.inner_text("#decision"))
            if clicks == 3 and not shot:
                # Mid-game: the board with the bot's moves so far, and the person's choice.
                assert steps_shown(page) > 3
                assert "undefined" not in page.inner_text("#replay")
                screenshot("table-your-move")
                page.set_viewport_size(PHONE)
                assert not overflows_horizontally(page)
                screenshot("table-your-move-phone")
                page.set_viewport_size({"width": 1280, "height": 900})
                shot = True
            buttons.last.click()
            clicks += 1
            # Answered: the buttons go until the next decision.
            expect(
                page.locator(f"#decision-actions .action-button >> text={legal[-1]}")
            ).to_have_count(0, timeout=30_000)
        table.refresh_from_db()
        assert table.status == TableStatus.FINISHED, table.error
        person = table.table_seats.get(seat=1)
        assert person.forfeit == "" and person.rank is not None
        assert clicks > 5
        # The result, the whole game's replay (to its end), and the log to download.
        rows = page.locator("#table-result tbody tr")
        assert rows.count() == 2
        assert "You" in page.inner_text("#table-result tr.you")
        page.keyboard.press("End")
        assert "Game over" in page.inner_text("#replay-caption")
        assert page.locator("a:has-text('Download log')").count() == 1
        screenshot("table-finished")
        page.set_viewport_size(PHONE)
        assert not overflows_horizontally(page)
        screenshot("table-finished-phone")


def test_a_running_match_shows_its_replay_growing_then_its_result(
    page: Any, screenshot: Any, alice: Any, house: Any, media_root: Path, tmp_path: Path
) -> None:
    ladder = ladder_create(slug="classic-2", name="Classic, 2 seats", rules="classic", seats=2)
    versions = [house_bot(house, "greedy"), player_bot(alice, "slowpoke", SLOW_BOT)]
    with site_worker(tmp_path, media_root):
        match = match_create(ladder_id=ladder.pk, game=MatchGame.of(ladder), versions=versions)

        def running() -> bool:
            return Match.objects.get(pk=match.pk).status == MatchStatus.RUNNING

        wait_for(running, timeout=60, what="the worker to start the match")
        page.goto(f"/matches/{match.pk}/")
        expect(page.locator("#live-badge")).to_have_text("being played")
        # The viewer follows the game: its step count grows with no reload.
        counts = [steps_shown(page)]
        page.wait_for_function(
            "n => Number(document.querySelector('#replay').dataset.events) > n",
            arg=int(page.locator("#replay").get_attribute("data-events") or 0),
            timeout=30_000,
        )
        counts.append(steps_shown(page))
        screenshot("match-live")
        page.set_viewport_size(PHONE)
        assert not overflows_horizontally(page)
        screenshot("match-live-phone")
        page.set_viewport_size({"width": 1280, "height": 900})
        page.wait_for_function(
            "n => Number(document.querySelector('#replay-position').textContent.split('/')[1]) > n",
            arg=counts[-1],
            timeout=30_000,
        )
        counts.append(steps_shown(page))
        assert counts == sorted(counts) and counts[-1] > counts[0]
        # It finishes: the page shows the result and the stored log's replay by itself.
        expect(page.locator("h2:has-text('Replay')")).to_be_visible(timeout=60_000)
        assert Match.objects.get(pk=match.pk).status == MatchStatus.FINISHED
        assert page.locator("#live-badge").count() == 0
        page.keyboard.press("End")
        assert "Game over" in page.inner_text("#replay-caption")
        assert steps_shown(page) >= counts[-1]
        screenshot("match-finished-after-live")
