"""In Chromium: a card-game-only bot is uploaded to the card game ladder, passes its
pre-flight there, plays a real sandboxed match, and its replay draws the hands.

The live server runs the pre-flight as deployed (in the bot sandbox) eagerly
when the upload commits; the match is queued by the ladder's fill and played
by the referee in the sandbox the same way.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from arena.bots.models import BotVersion, VersionStatus
from arena.ladders.flows import ladder_create
from arena.ladders.models import Qualification, QualificationStatus
from arena.ladders.services import ladder_fill_queue
from arena.matches.models import Match, MatchStatus
from tests.platform.ladders.test_entries import CARDS_ONLY
from tests.platform.ladders.test_match_pipeline import house_bot
from tests.platform.scenes import enter, publish_matches
from tests.platform.web.test_browser import PASSWORD

pytestmark = pytest.mark.slow

pytest_plugins = ("tests.platform.browser",)


@pytest.mark.django_db(transaction=True)
def test_a_card_game_bot_enters_the_card_game_ladder_passes_and_its_replay_draws(
    page: Any, screenshot: Any, log_in: Any, alice: Any, house: Any, settings: Any
) -> None:
    settings.ARENA_LADDER_QUEUE_TARGET = 1
    ladder_create(slug="classic-4", name="Classic, 4 seats", rules="classic", seats=4)
    cards = ladder_create(
        slug="cardgame-4", name="Card game, 4 seats", rules="cardgame", seats=4, series_games=1
    )
    for name in ("greedy", "random", "gambler"):
        enter(house_bot(house, name), cards)

    log_in("alice", PASSWORD)
    page.goto("/upload/")
    # Every open ladder is offered, checked; Alice keeps only the card game.
    assert page.is_checked("input[name=ladders] >> nth=0")
    page.uncheck("label:has-text('Classic, 4 seats') input")
    screenshot("upload-ladders")
    upload_file_keeping_choices(page, "dealer", CARDS_ONLY)
    page.wait_for_url(re.compile(r"/bots/\d+/$"))
    assert page.inner_text("#v1 header .badge") == "ACTIVE"
    row = page.locator(".entries tr[data-ladder='cardgame-4']")
    assert "PASSED" in row.inner_text() and "seed" in row.inner_text()  # badges: uppercase
    assert page.locator(".entries tr[data-ladder='classic-4']").count() == 1  # offered, not entered
    assert not page.is_checked("#enter-classic-4") and page.is_checked("#enter-cardgame-4")
    screenshot("bot-entries")

    version = BotVersion.objects.get(bot__name="dealer")
    assert version.status == VersionStatus.ACTIVE
    (qualification,) = Qualification.objects.filter(bot_version=version)
    assert (qualification.ladder.slug, qualification.status) == (
        "cardgame-4",
        QualificationStatus.PASSED,
    )

    # The ladder's fill seats it with three house bots; the match plays in the sandbox.
    (match,) = publish_matches(ladder_fill_queue(ladder=cards))
    match.refresh_from_db()
    assert match.status == MatchStatus.FINISHED, match.error
    assert version.pk in set(match.participants.values_list("bot_version_id", flat=True))
    page.goto(f"/matches/{match.pk}/#step-1")  # a finished match opens at its end
    page.wait_for_selector("#replay-seats td.hand .hand-card")
    page.keyboard.press("End")
    position = page.inner_text("#replay-position")
    steps = int(position.split("/")[-1])
    assert position == f"Step {steps} / {steps}" and steps > 10
    assert "undefined" not in page.inner_text("#replay")
    screenshot("cardgame-replay")
    assert Match.objects.filter(status=MatchStatus.FINISHED).count() == 1


def upload_file_keeping_choices(page: Any, name: str, content: bytes) -> None:
    """The upload form, filled without reloading it (the ladder choices stay as set)."""
    page.fill("#id_name", name)
    page.set_input_files(
        "#id_file", {"name": f"{name}.py", "mimeType": "text/x-python", "buffer": content}
    )
    page.click("#upload-form button[type=submit]")
