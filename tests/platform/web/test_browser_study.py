"""Studying a game in a real Chromium: the replay opens at the end, plays by itself, and
shows the owner of a seat's bot each of its decisions (what it saw, what it answered,
how long it took, its note and stderr); other viewers see none of it.

Autoplay runs on the page's timers, driven by Playwright's clock: the test moves the
clock on and waits for the step shown, never for wall-clock time.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from arena.ladders.flows import ladder_create
from arena.ladders.models import Ladder
from arena.matches.models import Match
from tests.platform.browser import PHONE, SCREENSHOTS, overflows_horizontally
from tests.platform.factories import BotFactory, BotVersionFactory, UserFactory
from tests.platform.scenes import moves_log, store_finished, traced_referee
from vegas_engine.log import expand

pytestmark = pytest.mark.slow

pytest_plugins = ("tests.platform.browser",)

PASSWORD = "correct horse battery staple"  # the personas' (factories.UserFactory)


def studied_match(ladder: Ladder, owners: list[Any], seed: int) -> tuple[Match, dict[str, Any]]:
    """A finished match whose log has every seat's trace (scenes.traced_referee)."""
    log = moves_log(ladder, seed)
    names = ["shark", "turtle", "eel", "crab"]
    versions = [
        BotVersionFactory(bot=BotFactory(owner=owner, name=names[seat]))
        for seat, owner in enumerate(owners)
    ]
    match = store_finished(ladder, versions, seed, {**log, "referee": traced_referee(log)})
    return match, log


def fetched_from_api(into: list[str]) -> Any:
    """A response listener keeping the text of every API answer in ``into``."""

    def listen(response: Any) -> None:
        if "/api/" in response.url:
            into.append(response.text())

    return listen


@pytest.fixture
def classic() -> Ladder:
    return ladder_create(slug="classic-3", name="Classic, 3 seats", rules="classic", seats=3)


def step(page: Any) -> int:
    return int(page.get_attribute("#replay", "data-step"))


def last_step(page: Any) -> int:
    return int(page.inner_text("#replay-position").split("/")[-1]) - 1


def test_a_finished_match_opens_at_its_end_and_plays_at_the_chosen_speed(
    page: Any, classic: Ladder, alice: Any, bob: Any
) -> None:
    match, _ = studied_match(classic, [alice, bob, alice], 3)
    page.clock.install()
    page.goto(f"/matches/{match.pk}/")
    end = last_step(page)
    assert step(page) == end and end > 20
    assert page.inner_text("#replay-caption").startswith("Game over")
    assert "space play / pause" in page.inner_text("#replay-help")
    assert page.locator("#study").count() == 0  # anyone: no decisions

    # Play at the end starts again from the first step; a second at 1x is one step.
    page.click("#replay-play")
    assert step(page) == 0 and page.get_attribute("#replay", "data-playing") == "true"
    page.clock.run_for(1000)
    page.wait_for_function("document.getElementById('replay').dataset.step === '1'")
    page.keyboard.press("+")  # 2x: a step each half second
    assert page.input_value("#replay-speed") == "2"
    page.clock.run_for(1000)
    page.wait_for_function("document.getElementById('replay').dataset.step === '3'")

    # Space pauses: the clock runs on, the step stays.
    page.evaluate("document.activeElement.blur()")  # space on a focused button is its own
    page.keyboard.press(" ")
    assert page.get_attribute("#replay", "data-playing") == "false"
    assert page.inner_text("#replay-play") == "▶ Play"
    page.clock.run_for(10_000)
    assert step(page) == 3

    # Played from near the end, it stops there by itself.
    page.keyboard.press("End")
    for _ in range(3):
        page.keyboard.press("ArrowLeft")
    page.select_option("#replay-speed", "4")
    page.keyboard.press("]")  # no decisions here (no panel): nothing happens
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press(" ")
    page.clock.run_for(2000)
    page.wait_for_function("document.getElementById('replay').dataset.playing === 'false'")
    assert step(page) == end

    # The speed is remembered.
    page.reload()
    assert page.input_value("#replay-speed") == "4"


def test_the_owner_jumps_to_each_decision_and_reads_it(
    page: Any, screenshot: Any, log_in: Any, classic: Ladder, alice: Any, bob: Any
) -> None:
    match, log = studied_match(classic, [alice, bob, alice], 3)
    events = expand(log)["events"]
    own = [i for i, (seat, _) in enumerate(log["moves"]) if seat == 1]
    log_in("bob", PASSWORD)
    page.goto(f"/matches/{match.pk}/")
    page.wait_for_selector("#study[data-ready]")
    assert page.locator(".study-seat").is_hidden()  # one seat: no picker
    assert page.inner_text("#study-position") == f"{len(own)} of {len(own)} decisions made"

    page.keyboard.press("Home")
    page.keyboard.press("]")
    page.wait_for_function(f"document.getElementById('study').dataset.shown === '{own[0]}'")
    assert page.inner_text("#study-position") == f"Decision 1 of {len(own)}"
    decision = page.locator(".study-decision")
    action = log["moves"][own[0]][1]
    assert decision.locator(".study-answer").inner_text() == action
    assert f"“{action}”" in page.inner_text("#replay-caption")  # the board shows it made
    assert decision.locator(".legal-actions li.chosen").inner_text() == action
    assert decision.locator(".study-ms").inner_text() == "10 ms of 1,000 ms"
    assert decision.locator("pre.bot-note").inner_text() == "seat 1 thinks 0"
    # Bot text is text: the tags it wrote are shown, never made.
    stderr = decision.locator("pre.bot-stderr")
    assert stderr.inner_text() == "1: 0\n  indented <b>not bold</b>"
    assert stderr.locator("b").count() == 0
    assert decision.locator(".truncated").count() == 1  # the first note was cut
    # The observation: key parts readable, and the JSON as sent.
    summary = decision.locator(".obs-facts").inner_text()
    assert "DECISION\nplace" in summary and "MONEY" in summary and "you $0" in summary
    assert decision.locator(".obs-casinos tbody tr").count() == 6
    decision.locator(".study-json summary").click()
    sent = json.loads(decision.locator("pre.observation-json").inner_text())
    assert sent["seat"] == 1 and action in sent["legal_actions"]
    screenshot("study-decision")

    page.keyboard.press("]")
    page.wait_for_function(f"document.getElementById('study').dataset.shown === '{own[1]}'")
    assert page.locator("pre.bot-note").inner_text() == "seat 1 thinks 1"
    assert page.locator(".study-decision .truncated").count() == 0
    page.click("#study-prev")
    page.wait_for_function(f"document.getElementById('study').dataset.shown === '{own[0]}'")
    # Each decision is shown at the step of its decision event.
    decided = [i for i, e in enumerate(events) if e["type"] == "decision" and not e["forced"]]
    shown_to = int(page.get_attribute("#replay", "data-event-index"))
    assert decided[own[0]] <= shown_to < decided[own[0] + 1]
    # A step with none of the seat's decisions says so.
    page.keyboard.press("ArrowLeft")
    assert page.locator(".study-none").count() == 1


def test_staff_pick_a_seat_and_others_see_no_decisions(
    page: Any, screenshot: Any, log_in: Any, classic: Ladder, alice: Any, bob: Any, carol: Any
) -> None:
    match, log = studied_match(classic, [alice, bob, alice], 3)
    log_in("carol", PASSWORD)  # staff
    page.goto(f"/matches/{match.pk}/")
    page.wait_for_selector("#study[data-ready]")
    assert page.locator(".study-seat").is_visible()
    page.select_option("#study-seat", "2")
    page.keyboard.press("Home")
    page.keyboard.press("]")
    first = next(i for i, (seat, _) in enumerate(log["moves"]) if seat == 2)
    page.wait_for_function(f"document.getElementById('study').dataset.shown === '{first}'")
    assert page.inner_text("pre.bot-note") == "seat 2 thinks 0"
    screenshot("study-staff")
    # Keys do nothing while a field has the focus (the seat picker).
    page.focus("#study-seat")
    page.keyboard.press("]")
    page.keyboard.press("ArrowRight")
    assert page.get_attribute("#study", "data-shown") == str(first)

    # Another player, and anyone: no panel, and no note in the page or what it fetched.
    UserFactory(username="dave")
    for user in ("dave", None):
        page.context.clear_cookies()
        if user:
            log_in(user, PASSWORD)
        fetched: list[str] = []
        page.on("response", fetched_from_api(fetched))
        page.goto(f"/matches/{match.pk}/")
        page.wait_for_selector("#replay[data-step]")
        assert page.locator("#study").count() == 0
        html = page.content()
        for text in [*fetched, html]:
            assert "thinks" not in text and "indented" not in text, user
        assert "/decisions/" not in html


@pytest.mark.parametrize("viewport", [PHONE])
@pytest.mark.parametrize(
    ("rules", "seats", "options"),
    [("classic", 3, {}), ("royale", 4, {"tiles": 6}), ("cardgame", 4, {"chips": True})],
)
def test_the_replay_and_the_panel_fit_a_phone(
    page: Any,
    screenshot: Any,
    log_in: Any,
    alice: Any,
    bob: Any,
    viewport: Any,
    rules: str,
    seats: int,
    options: dict[str, Any],
) -> None:
    ladder = ladder_create(
        slug=f"{rules}-{seats}", name=rules, rules=rules, seats=seats, options=options
    )
    match, _ = studied_match(ladder, [alice, bob, alice, bob][:seats], 5)
    log_in("alice", PASSWORD)
    page.goto(f"/matches/{match.pk}/")
    page.wait_for_selector("#study[data-ready]")
    for name in (f"study-{rules}-phone-end", f"study-{rules}-phone-decision"):
        if name.endswith("decision"):
            page.keyboard.press("[")  # the last decision of seat 0, from the end
            page.wait_for_selector(".study-decision")
        assert not overflows_horizontally(page), name
        # Every seat's money in view, not cut off or scrolled away.
        width = page.evaluate("window.innerWidth")
        boxes = page.locator("#replay-seats td.money-cell").all()
        assert len(boxes) == seats
        for cell in boxes:
            box = cell.bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, name
        assert page.evaluate(
            "(() => { const w = document.querySelector('.replay-seats-wrap');"
            " return w.scrollWidth <= w.clientWidth; })()"
        )
        screenshot(name)
        # The board and the panel apart, at a size one can read.
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.locator("#replay").screenshot(path=str(SCREENSHOTS / f"{name}-board.png"))
        page.locator("#study").screenshot(path=str(SCREENSHOTS / f"{name}-panel.png"))
