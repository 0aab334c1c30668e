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
from datetime import timedelta
from pathlib import Path
from random import Random
from typing import Any

import pytest
from django.utils import timezone
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

import vegas_engine
from arena.ladders.flows import ladder_create
from arena.live.services import LivePublisher
from arena.matches.games import MatchGame
from arena.matches.models import Match, MatchStatus
from arena.matches.services import match_create
from arena.tables.models import Table, TableStatus, table_feed
from arena.tables.services import table_ask, table_create, table_start
from tests.platform.browser import PHONE, overflows_horizontally
from tests.platform.ladders.test_match_pipeline import house_bot, player_bot
from tests.platform.scenes import publish_match
from tests.platform.web.test_browser import PASSWORD
from tests.platform.worker import (
    needs_redis,
    needs_shared_database,
    protocol_bot,
    site_worker,
    wait_for,
)
from vegas_engine.policies import random_policy

pytest_plugins = ("tests.platform.browser",)
pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

# A bot that takes its time (in the sandbox): the match lasts long enough to watch.
SLOW_BOT = protocol_bot(before="time.sleep(0.25)")


def steps_shown(page: Any) -> int:
    """The viewer's step count: "Step 3 / 17" -> 17."""
    return int(page.inner_text("#replay-position").split("/")[-1])


@needs_shared_database
@needs_redis
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
        # Classic, two seats: the form offers one bot, the house's greedy (level 3) at first.
        page.select_option("#id_rules", "classic")
        page.select_option("#id_seats", "2")
        expect(page.locator("[data-bot='2']")).to_be_hidden()
        expect(page.locator("fieldset[data-options='royale']")).to_be_hidden()
        assert page.input_value("#id_bot_1") != ""
        page.select_option("#id_bot_1", label="Level 3: Regular (greedy)")
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
            asked = page.get_attribute("#decision", "data-request")
            buttons.last.click()
            clicks += 1
            # Taken: the next decision (or the result, a reload away) replaces this one.
            try:
                page.wait_for_function(
                    """asked => {
                        const panel = document.querySelector('#decision');
                        return !panel || panel.dataset.request !== asked;
                    }""",
                    arg=asked,
                    timeout=30_000,
                )
            except PlaywrightError as error:
                if "context was destroyed" not in str(error):  # the reload to the result
                    raise
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


@needs_shared_database
@needs_redis
def test_a_running_match_shows_its_replay_growing_then_its_result(
    page: Any, screenshot: Any, alice: Any, house: Any, media_root: Path, tmp_path: Path
) -> None:
    ladder = ladder_create(slug="classic-2", name="Classic, 2 seats", rules="classic", seats=2)
    versions = [house_bot(house, "greedy"), player_bot(alice, "slowpoke", SLOW_BOT)]
    with site_worker(tmp_path, media_root):
        match = publish_match(
            match_create(ladder_id=ladder.pk, game=MatchGame.of(ladder), versions=versions)
        )

        def running() -> bool:
            return Match.objects.get(pk=match.pk).status == MatchStatus.RUNNING

        # Opened at once, queued or just dealt: either way the board comes by itself.
        page.goto(f"/matches/{match.pk}/")
        wait_for(running, timeout=60, what="the worker to start the match")
        expect(page.locator("#live-badge")).to_have_text("live")
        # The viewer follows the game: its step count grows with no reload.
        counts = [steps_shown(page)]
        page.wait_for_function(
            "n => Number(document.querySelector('#replay').dataset.events) > n",
            arg=int(page.locator("#replay").get_attribute("data-events") or 0),
            timeout=30_000,
        )
        counts.append(steps_shown(page))
        # The title follows too: the page opened on a queued match says it is running now.
        expect(page.locator("#match-status")).to_have_text("running")
        assert page.locator("#match-waits").count() == 0
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


def test_the_card_game_board_hides_the_other_hands_and_takes_the_persons_card(
    page: Any,
    screenshot: Any,
    log_in: Any,
    alice: Any,
    house: Any,
    monkeypatch: Any,
    settings: Any,
) -> None:
    """A card game table being played, its worker stood in for: the board (the live feed)
    and the decision asked are the worker's writes, made here; the page is the person's."""
    settings.ARENA_TABLE_LEASE_SECONDS = 3600  # no worker beats: the page's polls must not fail it
    random = house_bot(house, "random").bot
    table = table_start(
        table=table_create(
            player=alice, rules="cardgame", seats=3, seat=0, opponents=[random, random]
        )
    )
    description = vegas_engine.describe("cardgame", 3)
    state = vegas_engine.new_game(description, table.seed)
    rng = Random(1)
    # Two turns played; in the third the other seats have chosen, the person not yet.
    while True:
        events = state.events() or []
        movers = state.to_move()
        if 0 in movers and sum(e["type"] == "play" for e in events) >= 6:
            for seat in movers:
                if seat != 0:
                    state.apply_action(random_policy(state, seat, rng), seat)
            break
        seat = movers[0]
        state.apply_action(random_policy(state, seat, rng), seat)
    events = list(state.events() or [])
    assert any(e["type"] == "decision" and e["seat"] != 0 for e in events[-3:])
    LivePublisher(feed=table_feed(table.pk), attempt=1, interval_s=0).show(events)
    observation = vegas_engine.observe(state, 0)
    assert table_ask(table_id=table.pk, request_id=9, observation=observation, time_ms=80_000)

    log_in("alice", PASSWORD)
    page.goto(f"/play/{table.pk}/")
    buttons = page.locator("#decision-actions .action-button")
    expect(buttons.first).to_be_visible()
    assert buttons.all_inner_texts() == observation["legal_actions"]
    assert "your hand: " + " ".join(observation["hand"]) in page.inner_text("#decision-line")
    # The other seats' hands are face down, the person's shown; their choices of this turn
    # are nowhere on the page.
    for seat in (1, 2):
        hand = page.locator(f"#replay-seats tr[data-seat='{seat}'] td.hand .hand-card")
        assert hand.count() > 0
        assert (
            hand.count()
            == page.locator(f"#replay-seats tr[data-seat='{seat}'] td.hand .hidden-card").count()
        )
    mine = page.locator("#replay-seats tr[data-seat='0'] td.hand .hand-card")
    assert sorted(mine.all_inner_texts()) == sorted(observation["hand"])
    text = page.inner_text("#replay")
    assert "undefined" not in text and "secret choices, revealed" not in text.split("Step")[-1]
    screenshot("table-cardgame")
    page.set_viewport_size(PHONE)
    assert not overflows_horizontally(page)
    screenshot("table-cardgame-phone")
    # The person plays a card: the answer is stored for the worker to send on, and the
    # page says which card was chosen, whichever of its replies and polls comes first.
    choice = observation["legal_actions"][-1]
    buttons.last.click()
    wait_for(
        lambda: Table.objects.get(pk=table.pk).answer == choice,
        timeout=10,
        what="the answer to be stored",
    )
    polls = re.compile(rf"/api/tables/{table.pk}/\?since=")
    for _ in range(2):  # the second one sent after the answer was stored
        with page.expect_response(polls) as polled:
            pass
    assert polled.value.json()["answered"] == {"request": 9, "action": choice}
    expect(page.locator("#decision-line")).to_contain_text(f"You chose “{choice}”")
    assert buttons.count() == 0
    screenshot("table-cardgame-chosen")


def test_a_table_whose_worker_is_gone_says_so_and_offers_no_move(
    page: Any, screenshot: Any, log_in: Any, alice: Any, house: Any, monkeypatch: Any
) -> None:
    """The page asks a decision; the worker then falls silent past its lease: the page's
    own poll fails the table and the page says why, with no move left to choose."""
    greedy = house_bot(house, "greedy").bot
    table = table_start(
        table=table_create(player=alice, rules="classic", seats=2, seat=0, opponents=[greedy])
    )
    observation = {"decision": "place", "legal_actions": ["place 1", "place 4"], "seat": 0}
    assert table_ask(table_id=table.pk, request_id=2, observation=observation, time_ms=80_000)
    log_in("alice", PASSWORD)
    page.goto(f"/play/{table.pk}/")
    expect(page.locator("#decision-actions .action-button").first).to_be_visible()

    Table.objects.filter(pk=table.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1))
    failed = page.locator("#table-failed")
    expect(failed).to_contain_text("This game stopped, through no fault of yours: its worker")
    expect(page.locator("#table-status")).to_have_text("failed")
    assert page.locator("#decision-actions .action-button").count() == 0
    assert Table.objects.get(pk=table.pk).status == TableStatus.FAILED
    screenshot("table-worker-gone")


def _asked_table(alice: Any, house: Any, request_id: int, legal: list[str]) -> Table:
    """A classic table being played (its worker stood in for) asking the person a decision."""
    greedy = house_bot(house, "greedy").bot
    table = table_start(
        table=table_create(player=alice, rules="classic", seats=2, seat=0, opponents=[greedy])
    )
    observation = {"decision": "place", "legal_actions": legal, "seat": 0}
    assert table_ask(
        table_id=table.pk, request_id=request_id, observation=observation, time_ms=80_000
    )
    return table


def _held(page: Any, url: Any) -> tuple[list[tuple[Any, Any]], Any]:
    """Route ``url``'s requests to the server at once, holding each answer back for the
    test to release; the list of (route, answer) held, and a switch letting them through."""
    held: list[tuple[Any, Any]] = []
    through = [False]

    def hold(route: Any) -> None:
        if through[0]:
            route.continue_()
        else:
            held.append((route, route.fetch()))

    page.route(url, hold)
    return held, lambda: through.__setitem__(0, True)


def _until(page: Any, condition: Any) -> None:
    """Let the page's requests run (and route handlers with them) until ``condition()``."""
    for _ in range(400):
        if condition():
            return
        page.wait_for_timeout(50)
    raise AssertionError("the page's request never came")


def test_a_poll_read_before_the_answer_and_arriving_after_it_does_not_undo_it(
    page: Any, log_in: Any, alice: Any, house: Any, settings: Any
) -> None:
    """The race of a poll crossing the answer, made to happen: the server reads the table
    for a poll before the person's answer is stored, the poll's answer reaches the page
    after the act's. The page keeps the answer chosen (and after a reload too)."""
    settings.ARENA_TABLE_LEASE_SECONDS = 3600  # no worker beats: the page's polls must not fail it
    table = _asked_table(alice, house, request_id=4, legal=["place 1", "place 4"])
    log_in("alice", PASSWORD)
    page.goto(f"/play/{table.pk}/")
    buttons = page.locator("#decision-actions .action-button")
    expect(buttons.first).to_be_visible()
    polls = re.compile(rf"/api/tables/{table.pk}/\?since=")
    held, let_through = _held(page, polls)
    _until(page, lambda: bool(held))  # a poll read by the server, its answer held back
    with page.expect_response(f"**/api/tables/{table.pk}/act/") as acted:
        buttons.last.click()
    assert acted.value.ok
    line = page.locator("#decision-line")
    expect(line).to_contain_text("You chose “place 4”")
    assert Table.objects.get(pk=table.pk).answer == "place 4"
    # The held poll, read before the answer, arrives now; then the polls after it.
    let_through()
    route, stale = held.pop()
    assert stale.json()["decision"]["request"] == 4
    route.fulfill(response=stale)
    for _ in range(2):
        with page.expect_response(polls):
            pass
    expect(line).to_contain_text("You chose “place 4”")
    assert page.locator("#decision-actions .action-button:enabled").count() == 0
    # A page opened again knows it too: the server says what was answered.
    page.reload()
    expect(line).to_contain_text("You chose “place 4”")
    assert buttons.count() == 0


def test_an_answers_reply_arriving_after_the_next_decision_leaves_that_decision_asked(
    page: Any, log_in: Any, alice: Any, house: Any, settings: Any
) -> None:
    """The other crossing: the worker takes the answer and asks the next decision, which a
    poll shows before the act's own reply arrives. The next decision stays asked."""
    settings.ARENA_TABLE_LEASE_SECONDS = 3600
    table = _asked_table(alice, house, request_id=4, legal=["place 1", "place 4"])
    log_in("alice", PASSWORD)
    page.goto(f"/play/{table.pk}/")
    buttons = page.locator("#decision-actions .action-button")
    expect(buttons.first).to_be_visible()
    held, let_through = _held(page, f"**/api/tables/{table.pk}/act/")
    buttons.last.click()
    _until(page, lambda: bool(held))  # the answer stored, its reply held back
    assert Table.objects.get(pk=table.pk).answer == "place 4"
    observation = {"decision": "place", "legal_actions": ["place 2", "place 6"], "seat": 0}
    assert table_ask(table_id=table.pk, request_id=5, observation=observation, time_ms=80_000)
    expect(page.locator("#decision")).to_have_attribute("data-request", "5")
    # Marked: a page that redraws the decision (or takes it away) loses the marks.
    page.evaluate(
        "document.querySelectorAll('#decision-line strong, #decision-actions button')"
        ".forEach((node) => { node.dataset.drawn = 'once'; })"
    )
    let_through()
    route, reply = held.pop()
    assert reply.json()["decision"] is None  # read as the answer was stored
    with page.expect_event("requestfinished", lambda request: "/act/" in request.url):
        route.fulfill(response=reply)
    # The page has read the reply by the time a poll sent after the next one comes back.
    for _ in range(2):
        with page.expect_response(re.compile(rf"/api/tables/{table.pk}/\?since=")):
            pass
    assert "You chose" not in page.inner_text("#decision-line")
    assert page.locator("#decision-line strong[data-drawn=once]").count() == 1
    assert page.inner_text("#decision-line strong") == "Your move"
    assert page.locator("#decision-actions .action-button:enabled[data-drawn=once]").count() == 2
    assert page.get_attribute("#decision", "data-request") == "5"
