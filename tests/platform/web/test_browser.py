"""The site in a real Chromium: sign up, upload, failure reports, the ladder, the replay.

The live server runs validation as deployed (the pre-flight game in the
bot sandbox) eagerly when an upload commits; matches are games played by
the engine's policies and stored through the matches services.
"""

from __future__ import annotations

import io
import re
import zipfile
from typing import Any

import pytest

from arena.ladders.flows import ladder_create
from arena.ladders.models import Rating
from arena.matches.models import Match
from tests.platform.factories import BotFactory, BotVersionFactory, LadderFactory
from tests.platform.scenes import GOOD_BOT, play_match

pytestmark = pytest.mark.slow

# The fixtures page, screenshot and log_in.
pytest_plugins = ("tests.platform.browser",)

PASSWORD = "correct horse battery staple"  # the personas' (factories.UserFactory)

# Raises on its first decision, after a word on stderr: the pre-flight game fails it.
CRASHING_BOT = b"""import sys

from bots_sdk import Bot, run


class Crashy(Bot):
    def act(self, observation):
        print("about to divide by zero", file=sys.stderr, flush=True)
        return observation["legal_actions"][1 // 0]


if __name__ == "__main__":
    run(Crashy)
"""


def upload_file(page: Any, name: str, filename: str, content: bytes) -> None:
    page.goto("/upload/")
    page.fill("#id_name", name)
    page.set_input_files(
        "#id_file", {"name": filename, "mimeType": "application/octet-stream", "buffer": content}
    )
    page.click("#upload-form button[type=submit]")


def zipped(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_sign_up_and_upload_a_good_and_a_broken_bot(page: Any, screenshot: Any) -> None:
    page.goto("/")
    page.click("text=Sign up")
    page.fill("#id_username", "dora")
    page.fill("#id_email", "dora@example.org")
    page.fill("#id_password1", "a long passphrase 42")
    page.fill("#id_password2", "a long passphrase 42")
    screenshot("signup")
    page.click("#signup-form button[type=submit]")
    page.wait_for_url("**/upload/")
    assert "Welcome, dora!" in page.inner_text(".messages")

    # A good bot: stored, validated by its pre-flight game, shown as version 1.
    upload_file(page, "first", "first.py", GOOD_BOT)
    page.wait_for_url(re.compile(r"/bots/\d+/$"))
    assert "Uploaded first version 1" in page.inner_text(".messages")
    assert page.inner_text("#v1 header .badge") == "ACTIVE"  # text-transform: uppercase
    page.click("#v1 summary")  # the report of a passing version starts folded
    assert "pre-flight: classic, 4 seats against" in page.inner_text("#v1 .report")
    screenshot("bot-uploaded")

    # A broken upload: the form says exactly what is wrong, nothing is stored.
    upload_file(page, "second", "second.zip", zipped({"second/main.py": GOOD_BOT}))
    error = page.inner_text("#upload-form .field-error")
    assert error == (
        "the archive has no main file (main.py, main.js, main.c, main.cpp, main.java, main.rs, "
        "main.go) at its top level: the arena starts the bot there. It has "
        "'second/main.py': zip the contents of the folder 'second', not the folder itself."
    )
    screenshot("upload-error")

    page.click("text=My bots")
    assert page.inner_text("table").count("first") == 1
    assert "second" not in page.inner_text("main")
    screenshot("player")
    page.click("text=Log out")
    assert page.is_visible("text=Log in")


def test_the_owner_reads_why_the_preflight_game_failed(
    page: Any, log_in: Any, screenshot: Any, alice: Any, bob: Any
) -> None:
    log_in("alice", PASSWORD)
    upload_file(page, "crashy", "crashy.py", CRASHING_BOT)
    page.wait_for_url(re.compile(r"/bots/\d+/$"))
    bot_url = page.url

    version = page.locator("#v1")
    assert version.locator("header .badge").inner_text() == "FAILED"
    report = version.locator(".report")
    assert report.is_visible()  # open by default on a failed version
    assert report.locator("h4", has_text="Fault:").inner_text() == "Fault: crashed"
    assert report.locator(".exit-cause").inner_text() == "crashed: exit status 1"
    assert '"type": "request"' in report.locator("pre.request").inner_text()
    assert report.locator("code.action").count() >= 1  # the legal actions it was offered
    report.locator("summary", has_text="Observation").click()
    assert '"legal_actions"' in report.locator("pre.observation").inner_text()
    stderr = report.locator("pre.stderr").inner_text()
    assert "about to divide by zero" in stderr and "ZeroDivisionError" in stderr
    screenshot("bot-failed")

    # Bob sees that the version failed, not its report.
    page.click("text=Log out")
    log_in("bob", PASSWORD)
    page.goto(bot_url)
    assert page.inner_text("#v1 header .badge") == "FAILED"
    assert page.locator("#v1 .report").count() == 0


def test_the_ladder_lists_new_bots_as_provisional(
    page: Any, screenshot: Any, alice: Any, bob: Any, carol: Any
) -> None:
    ladder = LadderFactory(slug="classic-2", name="Classic, 2 seats")
    versions = [
        BotVersionFactory(bot=BotFactory(owner=owner, name=name))
        for owner, name in ((alice, "shark"), (bob, "turtle"), (carol, "owl"))
    ]
    for seed in range(9):
        pair = [versions[seed % 3], versions[(seed + 1) % 3]]
        play_match(ladder, pair, seed)
    best = Rating.objects.filter(ladder=ladder).order_by("-rating").select_related("bot").first()
    assert best is not None

    page.goto("/")
    screenshot("home")
    # The ladders' section (the latest results name the ladder too, as plain text).
    page.click("#game-classic >> text=Classic, 2 seats")
    page.wait_for_url("**/ladders/classic-2/")
    # 6 rated matches each: provisional, listed apart (best first, unranked) until settled.
    assert page.locator("text=No settled rating yet").count() == 1
    rows = page.locator("table.provisional tbody tr")
    assert rows.count() == 3
    first = rows.nth(0).locator("td")
    assert first.nth(0).inner_text().startswith(best.bot.name)
    assert first.nth(2).inner_text() == f"{round(best.rating)}? ± {round(best.deviation)}"
    assert first.nth(3).inner_text() == "6"
    assert rows.nth(0).locator("svg.sparkline polyline").count() == 1
    assert page.locator(".match-list li").count() == 9
    screenshot("ladder")

    page.click(f"table.leaderboard >> text={best.bot.name}")
    page.wait_for_url(re.compile(r"/bots/\d+/$"))
    assert page.locator("svg.line-chart polyline.line").count() == 1
    assert page.locator("svg.line-chart polygon.band").count() == 1
    assert page.locator("table.records tbody tr").count() == 2
    screenshot("bot-history")


def casino_dice(page: Any, casino: int, owner: int | str) -> int:
    stack = page.locator(f'[data-casino="{casino}"] [data-owner="{owner}"] .count')
    return int(stack.inner_text()) if stack.count() else 0


def test_step_through_a_match_replay(page: Any, screenshot: Any, alice: Any, bob: Any) -> None:
    # Every boulevard option at its default: slot machine, kickers, biggies, neutral dice.
    ladder = ladder_create(
        slug="boulevard-4", name="Boulevard, 4 seats", rules="boulevard", seats=4
    )
    versions = [
        BotVersionFactory(bot=BotFactory(owner=owner, name=name))
        for owner, name in ((alice, "shark"), (bob, "turtle"), (alice, "eel"), (bob, "crab"))
    ]
    match, log = play_match(ladder, versions, 2024)
    events = log["events"]

    page.goto(f"/matches/{match.pk}/#step-1")  # a finished match opens at its end
    assert page.locator("table.results tbody tr").count() == 4
    replay = page.locator("#replay")
    position = page.locator("#replay-position")
    caption = page.locator("#replay-caption")

    # Step 1: round 1 set up; the casinos hold the notes of the stock events.
    assert position.inner_text().startswith("Step 1 / ")
    assert caption.inner_text().startswith("Round 1: Seat 0 (shark) starts")
    stock = next(e for e in events if e["type"] == "stock" and e["casino"] == 1)
    notes = page.locator('[data-casino="1"] .note').all_inner_texts()
    assert notes == [f"${n:,}" for n in sorted(stock["notes"], reverse=True)]

    # Next: the first roll, with exactly the logged dice.
    page.click("#replay-next")
    first_roll = next(i for i, e in enumerate(events) if e["type"] == "roll")
    roll = events[first_roll]
    assert replay.get_attribute("data-event-index") == str(first_roll)
    assert f"rolls {' '.join(map(str, roll['dice']['die']))}" in caption.inner_text()
    shown = page.locator("#replay-roll .die").all_inner_texts()
    logged = [
        str(face)
        for kind in ("die", "biggie", "kicker", "neutral")
        for face in roll["dice"].get(kind, [])
    ]
    assert shown == logged

    # Arrow right: the placement that follows, its dice now on the casino.
    page.keyboard.press("ArrowRight")
    place_index = next(i for i, e in enumerate(events) if e["type"] == "place")
    place = events[place_index]
    assert replay.get_attribute("data-event-index") == str(place_index)
    assert position.inner_text().startswith("Step 3 / ")
    decision = next(e for e in reversed(events[:place_index]) if e["type"] == "decision")
    assert f"decision: “{decision['action']}”" in caption.inner_text()
    placed = place["dice"].get("die", 0) + 2 * place["dice"].get("biggie", 0)
    assert casino_dice(page, place["casino"], place["seat"]) == placed
    assert "active" in (
        page.locator(f'[data-casino="{place["casino"]}"]').get_attribute("class") or ""
    )

    # Round 1's payouts, casino by casino: the dice the viewer tracked through every
    # placement and kick equal the counts the engine paid on, and the awards show.
    names = {seat: version.bot.name for seat, version in enumerate(versions)}
    names["neutral"] = "neutral"
    round_end = next(i for i, e in enumerate(events) if e["type"] == "round_end")
    payouts = [i for i, e in enumerate(events[:round_end]) if e["type"] == "payout"]
    assert len(payouts) == 7  # casinos 1-6 and the slot machine
    for index in payouts:
        while replay.get_attribute("data-event-index") != str(index):
            page.keyboard.press("ArrowRight")
        payout = events[index]
        for owner, count in payout["counts"].items():
            assert casino_dice(page, payout["casino"], owner) == count, (payout, owner)
        awards = page.locator(f'[data-casino="{payout["casino"]}"] .awards .won')
        assert awards.all_inner_texts() == [
            f"→ {names[a['owner']]} ${a['note']:,}" for a in payout["awards"]
        ]
        if index == payouts[3]:
            screenshot("replay-payout")
    page.keyboard.press("ArrowRight")  # round_end: the seats' money after round 1
    money = page.locator("#replay-seats tbody td.money-cell").all_inner_texts()
    assert money == [f"${m:,}" for m in events[round_end]["money"]]
    screenshot("replay")
    page.locator("#replay-last").click()
    result = events[-1]["result"]
    winner = min(result, key=lambda r: (r["rank"], r["seat"]))
    assert caption.inner_text().startswith(f"Game over: #1 {versions[winner['seat']].bot.name}")
    money = page.locator("#replay-seats tbody td.money-cell").all_inner_texts()
    assert money == [f"${r['money']:,}" for r in result]
    total, current = re.findall(r"\d+", position.inner_text())[::-1]
    assert total == current

    # Home goes back to the start; arrow left there stays.
    page.keyboard.press("Home")
    page.keyboard.press("ArrowLeft")
    assert position.inner_text().startswith("Step 1 / ")
    assert page.locator("#replay-prev").is_disabled()


@pytest.mark.parametrize("width", [390])
def test_pages_fit_a_phone(page: Any, screenshot: Any, alice: Any, bob: Any, width: int) -> None:
    ladder = LadderFactory(slug="classic-2", name="Classic, 2 seats")
    versions = [BotVersionFactory(bot=BotFactory(owner=o)) for o in (alice, bob)]
    match, _ = play_match(ladder, versions, 7)
    page.set_viewport_size({"width": width, "height": 800})
    for path in ("/", "/ladders/classic-2/", f"/matches/{match.pk}/"):
        page.goto(path)
        # Wide tables scroll inside their box: the page itself never scrolls sideways.
        assert page.evaluate("document.documentElement.scrollWidth") <= width
    screenshot("match-phone")
    assert Match.objects.count() == 1
