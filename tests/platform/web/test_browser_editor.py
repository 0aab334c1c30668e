"""In Chromium, against a real Celery worker: an author writes a bot in the browser editor,
runs a test game against a house bot, opens its replay, and submits it as a new version.

The worker (its own process, on the test database and a Redis queue of its
own) builds the draft with the upload's build step and plays the test game
in the sandbox; the editor page follows it by polling. Screenshots at a
desktop's size and a phone's (390 px).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from arena.bots.models import Draft, TestGame
from arena.ladders.services.editor import draft_save, draft_start_from_kit
from tests.platform.browser import PHONE, overflows_horizontally
from tests.platform.ladders.test_match_pipeline import classic_2, house_bot
from tests.platform.scenes import enter
from tests.platform.web.test_browser import PASSWORD
from tests.platform.worker import needs_redis, needs_shared_database, site_worker

pytest_plugins = ("tests.platform.browser",)
pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

#: A worker builds and plays; the machine may be busy.
WORKER_WAIT_MS = 180_000
EDIT = "# tuned in the browser"


@needs_shared_database
@needs_redis
def test_an_author_writes_tests_and_submits_a_bot_in_the_browser(
    page: Any,
    screenshot: Any,
    log_in: Any,
    alice: Any,
    house: Any,
    media_root: Path,
    tmp_path: Path,
) -> None:
    ladder = classic_2()
    for name in ("greedy", "random"):
        enter(house_bot(house, name), ladder)
    with site_worker(tmp_path, media_root):
        log_in("alice", PASSWORD)
        page.click("nav.site-nav a:has-text('Editor')")
        page.wait_for_url("**/editor/")
        page.fill("#id_kit-name", "shark")
        page.select_option("#id_kit-lang", "python")
        screenshot("editor-start")
        page.set_viewport_size(PHONE)
        assert not overflows_horizontally(page)
        screenshot("editor-start-phone")
        page.set_viewport_size({"width": 1280, "height": 900})
        page.click("#start-kit button[type=submit]")
        page.wait_for_url(re.compile(r"/editor/\d+/$"))
        draft = Draft.objects.get(owner=alice)

        # The Ace editor replaces the text area; type at the end of the code.
        expect(page.locator("#code-editor.ace_editor")).to_be_visible()
        expect(page.locator("#id_source")).to_be_hidden()
        assert "class Shark(Bot)" in page.evaluate("window.ace.edit('code-editor').getValue()")
        assert "from bots_sdk import Bot, run" in page.inner_text("#code-editor")
        page.click("#code-editor .ace_content")
        page.keyboard.press("Control+End")
        page.keyboard.type(EDIT)
        expect(page.locator("#save-status")).to_have_text(re.compile(r"^Saved \d"))
        draft.refresh_from_db()
        assert draft.source.rstrip().endswith(EDIT)
        page.reload()
        expect(page.locator("#code-editor.ace_editor")).to_be_visible()
        shown = page.evaluate("window.ace.edit('code-editor').getValue()")
        assert shown.rstrip().endswith(EDIT)

        # A test game against greedy, played by the worker; the page follows it to the end.
        page.select_option("#id_ladder", label=ladder.name)
        page.get_by_label("greedy").check()
        page.click("#test-button")
        page.wait_for_url(re.compile(r"/editor/\d+/#test-games$"))
        game = page.locator("#test-games .test-game").first
        expect(game).to_have_attribute("data-stage", "finished", timeout=WORKER_WAIT_MS)
        expect(game).to_contain_text("you finished #")
        test_game = TestGame.objects.get(owner=alice)
        assert test_game.match is not None and not test_game.match.rated
        screenshot("editor-test-game")
        page.set_viewport_size(PHONE)
        assert not overflows_horizontally(page)
        screenshot("editor-test-game-phone")
        page.set_viewport_size({"width": 1280, "height": 900})

        # Its replay: the match page of an unrated game with the draft's test build seated.
        game.locator("a.replay-link").click()
        page.wait_for_url(f"**/matches/{test_game.match_id}/")
        expect(page.locator("#replay")).to_be_visible()
        assert "shark (test build)" in page.inner_text("main")
        screenshot("editor-replay")
        page.go_back()

        # Submit: the upload path, to the bot's page, where the version is validated.
        page.click("#submit-button")
        page.wait_for_url(re.compile(r"/bots/\d+/$"))
        expect(page.locator(".messages")).to_contain_text("Submitted shark version 1")
        expect(page.locator("#v1 header .badge")).to_have_text("active", timeout=WORKER_WAIT_MS)
        version = alice.bots.get(name="shark").versions.get()
        assert version.validation_report["build"]["ok"] is True
        assert version.validation_report["games"]["classic-2"]["passed"] is True
        screenshot("editor-submitted")
        page.set_viewport_size(PHONE)
        page.goto(f"/editor/{draft.pk}/")
        expect(page.locator("#code-editor.ace_editor")).to_be_visible()
        assert not overflows_horizontally(page)
        screenshot("editor-phone")


def test_code_that_does_not_build_shows_the_upload_s_report_in_the_editor(
    page: Any, screenshot: Any, log_in: Any, alice: Any, house: Any
) -> None:
    # No worker here: the live server runs the build eagerly when the test game commits.
    ladder = classic_2()
    enter(house_bot(house, "random"), ladder)
    draft = draft_start_from_kit(owner=alice, name="crab", lang="c")
    draft_save(draft=draft, source="int main(void) { return 0 }\n")
    log_in("alice", PASSWORD)
    page.goto(f"/editor/{draft.pk}/")
    expect(page.locator("#code-editor.ace_editor")).to_be_visible()
    page.get_by_label("random").check()
    page.click("#test-button")
    game = page.locator("#test-games .test-game").first
    expect(game).to_have_attribute("data-stage", "build failed")
    report = game.locator(".report")
    expect(report).to_contain_text("The build failed")
    expect(report).to_contain_text("/bot/main.c:1:26: error: expected ';' before '}' token")
    expect(report.locator(".source-line.offending")).to_contain_text("int main(void)")
    assert game.locator("a.replay-link").count() == 0
    screenshot("editor-build-failed")
    page.set_viewport_size(PHONE)
    assert not overflows_horizontally(page)
    screenshot("editor-build-failed-phone")


def test_a_keyboard_user_leaves_the_code_editor_with_esc_then_tab(
    page: Any, screenshot: Any, log_in: Any, alice: Any
) -> None:
    draft = draft_start_from_kit(owner=alice, name="shark", lang="python")
    log_in("alice", PASSWORD)
    page.goto(f"/editor/{draft.pk}/")
    expect(page.locator("#code-editor.ace_editor")).to_be_visible()
    hint = page.locator("#editor-keys")
    expect(hint).to_be_visible()
    expect(hint).to_contain_text("press Esc to leave the editor, then Tab moves on")

    def focused() -> str:
        return str(
            page.evaluate(
                "(() => { const e = document.activeElement;"
                " return e.id || e.className || e.tagName; })()"
            )
        )

    value = "window.ace.edit('code-editor').getValue()"
    page.click("#code-editor .ace_content")
    page.keyboard.press("Control+Home")
    before = page.evaluate(value)
    # Inside the code, Tab indents: the focus stays in the editor.
    page.keyboard.press("Tab")
    assert page.evaluate(value) == "    " + before
    assert "ace_text-input" in focused()
    # Esc leaves the text for the editor's box; Tab goes on to the next control.
    page.keyboard.press("Escape")
    assert "ace_scroller" in focused()
    page.keyboard.press("Tab")
    assert focused() == "save-button"
    # Back with Shift-Tab; Enter edits again, where the cursor was.
    page.keyboard.press("Shift+Tab")
    assert "ace_scroller" in focused()
    page.keyboard.press("Enter")
    assert "ace_text-input" in focused()
    for _ in range(4):  # the indent, whether Ace takes it off at once or a space at a time
        page.keyboard.press("Backspace")
    assert page.evaluate(value) == before
    screenshot("editor-keyboard-hint")
