"""The author's loop in Chromium, against a real Celery worker: Alice writes a bot in the
browser editor that notes each decision and writes to stderr, runs a test game against a
house bot, reads her notes and stderr at the right steps of its replay, submits it, and
challenges a house bot with it; Bob, watching that public match, reads none of it.

The worker (its own process, on the test database and a Redis queue of its own)
builds the draft with the upload's build step and plays every game in the
sandbox. Screenshots at a desktop's size and a phone's (390 px).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from arena.bots.models import Draft, TestGame
from arena.matches.models import Match, MatchStatus
from arena.matches.selectors import match_get_visible, match_log_read
from bots_sdk.levels import LEVELS
from tests.platform.browser import PHONE, overflows_horizontally
from tests.platform.ladders.test_match_pipeline import classic_2, house_bot
from tests.platform.scenes import enter
from tests.platform.web.test_browser import PASSWORD
from tests.platform.worker import needs_redis, needs_shared_database, site_worker

pytest_plugins = ("tests.platform.browser",)
pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

#: A worker builds and plays; the machine may be busy.
WORKER_WAIT_MS = 180_000
DESKTOP = {"width": 1280, "height": 900}
#: What Alice types into act(), after the kit's line reading the legal actions: a count
#: of her decisions, a note naming each, and a line of stderr naming each.
TYPED = (
    'self.decisions = getattr(self, "decisions", 0) + 1',
    'self.note("shark-note decision %d" % self.decisions)',
    'print("shark-stderr decision %d" % self.decisions)',
)
#: What the bot writes for its author alone: no other viewer may read any of it.
PRIVATE = ("shark-note", "shark-stderr")


def own_moves(match: Match, user: Any, seat: int) -> list[tuple[int, str]]:
    """(index in the log's moves, action) of each decision of ``seat``, as stored."""
    visible = match_get_visible(match_id=match.pk, user=user)
    assert visible is not None
    log = match_log_read(match=visible, user=user, moves=True)
    assert log is not None
    return [(i, action) for i, (at, action) in enumerate(log["moves"]) if at == seat]


def shown_decision(page: Any) -> int:
    return int(page.get_attribute("#study", "data-shown"))


def read_as(page: Any, url: str) -> tuple[int, str]:
    """The status and text of ``url`` fetched with the page's session, as its user."""
    answer = page.request.get(url)
    return answer.status, answer.text()


def both_sizes(page: Any, screenshot: Any, name: str) -> None:
    """A screenshot at a desktop's size, then at a phone's, which must not scroll sideways."""
    screenshot(name)
    page.set_viewport_size(PHONE)
    assert not overflows_horizontally(page), name
    screenshot(f"{name}-phone")
    page.set_viewport_size(DESKTOP)


@needs_shared_database
@needs_redis
def test_an_author_reads_her_bot_s_notes_and_stderr_and_nobody_else_does(
    page: Any,
    screenshot: Any,
    log_in: Any,
    alice: Any,
    bob: Any,
    house: Any,
    media_root: Path,
    tmp_path: Path,
) -> None:
    ladder = classic_2()
    for name in ("greedy", "random"):
        enter(house_bot(house, name), ladder)
    with site_worker(tmp_path, media_root):
        # The editor, from the Python starter kit.
        log_in("alice", PASSWORD)
        page.goto("/editor/")
        page.fill("#id_kit-name", "shark")
        page.select_option("#id_kit-lang", "python")
        page.click("#start-kit button[type=submit]")
        page.wait_for_url(re.compile(r"/editor/\d+/$"))
        draft = Draft.objects.get(owner=alice)
        expect(page.locator("#code-editor.ace_editor")).to_be_visible()

        # Type the lines after the one reading the legal actions (Ace keeps its indent).
        page.click("#code-editor .ace_content")
        page.evaluate(
            "(() => { const editor = window.ace.edit('code-editor');"
            " editor.find('legal = observation[\"legal_actions\"]');"
            " editor.clearSelection(); editor.navigateLineEnd(); })()"
        )
        for line in TYPED:
            page.keyboard.press("Enter")
            page.keyboard.type(line)
        expect(page.locator("#save-status")).to_have_text(re.compile(r"^Saved \d"))
        draft.refresh_from_db()
        anchor = '        legal = observation["legal_actions"]\n'
        typed = anchor + "".join(f"        {line}\n" for line in TYPED)
        assert typed in draft.source.replace("\r\n", "\n")  # a form posts CRLF
        both_sizes(page, screenshot, "loop-editor")

        # A test game against greedy, built and played by the worker.
        page.select_option("#id_ladder", label=ladder.name)
        page.get_by_label("greedy").check()
        page.click("#test-button")
        game = page.locator("#test-games .test-game").first
        expect(game).to_have_attribute("data-stage", "finished", timeout=WORKER_WAIT_MS)
        test_game = TestGame.objects.select_related("match").get(owner=alice)
        assert test_game.match is not None
        decisions = own_moves(test_game.match, alice, test_game.seat)
        assert len(decisions) >= 3

        # Its replay: each decision of hers shows its own note, stderr and answer.
        game.locator("a.replay-link").click()
        page.wait_for_url(f"**/matches/{test_game.match_id}/")
        page.wait_for_selector("#study[data-ready]")
        page.keyboard.press("Home")
        panel = page.locator(".study-decision")
        for number in (1, 2, 3):
            page.keyboard.press("]")
            index, action = decisions[number - 1]
            page.wait_for_function(f"document.getElementById('study').dataset.shown === '{index}'")
            position = f"Decision {number} of {len(decisions)}"
            assert page.inner_text("#study-position") == position
            assert panel.locator(".study-answer").inner_text() == action
            assert f"“{action}”" in page.inner_text("#replay-caption")  # the board's move
            note = panel.locator("pre.bot-note").inner_text()
            assert note.splitlines()[0] == f"shark-note decision {number}"
            stderr = panel.locator("pre.bot-stderr").inner_text()
            assert stderr == f"shark-stderr decision {number}\n"  # its one print()
        # The last one, from the end.
        page.keyboard.press("End")
        page.keyboard.press("[")
        last, action = decisions[-1]
        page.wait_for_function(f"document.getElementById('study').dataset.shown === '{last}'")
        assert panel.locator(".study-answer").inner_text() == action
        assert (
            panel.locator("pre.bot-note")
            .inner_text()
            .startswith(f"shark-note decision {len(decisions)}\n")
        )
        both_sizes(page, screenshot, "loop-test-game-decision")

        # Submitted: a new bot's first version, validated by the worker.
        page.goto(f"/editor/{draft.pk}/")
        page.click("#submit-button")
        page.wait_for_url(re.compile(r"/bots/\d+/$"))
        expect(page.locator("#v1 header .badge")).to_have_text("active", timeout=WORKER_WAIT_MS)
        shark = alice.bots.get(name="shark")

        # A public match of that version: a challenge to greedy from the bot's page (offered
        # once the bot has a playing version).
        page.reload()
        page.select_option("#challenge-form select[name=ladder]", label=ladder.name)
        greedy = next(level for level in LEVELS if level.bot == "greedy")
        page.select_option(
            "#challenge-form select[name=opponents]",
            label=f"Level {greedy.number}: {greedy.title} (greedy)",
        )
        page.click("#challenge-form button[type=submit]")
        page.wait_for_url(re.compile(r"/challenges/\d+/$"))
        page.locator(".challenge-matches a").first.click()
        page.wait_for_url(re.compile(r"/matches/\d+/"))
        match_id = int(re.findall(r"/matches/(\d+)/", page.url)[0])
        expect(page.locator("#match-status")).to_have_text("finished", timeout=WORKER_WAIT_MS)
        match = Match.objects.get(pk=match_id)
        assert match.status == MatchStatus.FINISHED
        seat = match.participants.get(bot_version__bot=shark).seat
        assert shark.visibility == "public"

    urls = [
        f"/matches/{match_id}/",
        f"/api/matches/{match_id}/",
        f"/api/matches/{match_id}/log/",
        f"/api/matches/{match_id}/log/?form=moves",
        f"/api/matches/{match_id}/log/?download=1",
        f"/api/matches/{match_id}/log/?form=moves&download=1",
        f"/api/ladders/{ladder.slug}/logs/",
    ]
    # Alice reads her bot's notes and stderr there: on the page, in the logs and the export.
    page.goto(f"/matches/{match_id}/")
    page.wait_for_selector("#study[data-ready]")
    page.keyboard.press("Home")
    page.keyboard.press("]")
    expect(page.locator(".study-decision pre.bot-note")).to_contain_text("shark-note decision 1")
    for url in urls[2:]:
        status, text = read_as(page, url)
        assert status == 200 and all(private in text for private in PRIVATE), url
    status, text = read_as(page, f"/api/matches/{match_id}/decisions/")
    assert status == 200 and "shark-note decision 1" in text
    # And what her bot used, its seat alone: CPU from its sandbox's cgroup, time charged.
    row = page.locator(f'#seat-resources tr[data-seat="{seat}"]')
    expect(row).to_be_visible()
    assert page.locator("#seat-resources tbody tr").count() == 1
    assert row.locator('td[data-label="CPU"]').inner_text().endswith(" s")
    assert row.locator('td[data-label="Time charged"]').inner_text().endswith(" ms")
    both_sizes(page, screenshot, "loop-match-resources")

    # Bob watches the same match: no panel, and nothing his page, API or export holds
    # carries a note or stderr of Alice's bot.
    page.context.clear_cookies()
    log_in("bob", PASSWORD)
    fetched: list[str] = []
    page.on(
        "response", lambda answer: fetched.append(answer.text()) if "/api/" in answer.url else None
    )
    page.goto(f"/matches/{match_id}/")
    page.wait_for_selector("#replay[data-step]")
    assert page.locator("#study").count() == 0
    assert page.locator("#seat-resources").count() == 0
    html = page.content()
    assert "/decisions/" not in html
    for text in [html, *fetched]:
        assert not any(private in text for private in PRIVATE)
    for url in urls:
        status, text = read_as(page, url)
        assert status == 200, url
        assert not any(private in text for private in PRIVATE), url
    _, export = read_as(page, f"/api/ladders/{ladder.slug}/logs/")
    exported = [json.loads(line) for line in export.splitlines()]
    assert match_id in [record["match"]["id"] for record in exported]
    referee = next(r for r in exported if r["match"]["id"] == match_id)["log"]["referee"]
    record = next(r for r in referee["seats"] if r["seat"] == seat)
    assert "trace" not in record and "bot_seed" not in record
    status, _ = read_as(page, f"/api/matches/{match_id}/decisions/")
    assert status == 403
    both_sizes(page, screenshot, "loop-public-match-bob")
