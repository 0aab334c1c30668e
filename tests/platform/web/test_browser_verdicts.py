"""In Chromium: a bot page says whether each version beats its parent on each ladder, and
its owner asks for a challenge of v3 against v2 from that line, played for real (the
retired v2 in the sandbox as it was), after which the verdict counts those games."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from arena.bots.models import BotVersion
from arena.bots.services import bot_version_upload
from arena.ladders.flows import ladder_create
from arena.ladders.models import Challenge
from arena.ladders.services import ladder_refit, ratings_apply
from arena.matches.models import MatchStatus
from tests.platform.browser import PHONE, SCREENSHOTS, overflows_horizontally
from tests.platform.factories import BotFactory, BotVersionFactory
from tests.platform.ladders.test_match_pipeline import activate, player_bot
from tests.platform.ladders.test_verdicts import _deal, _game
from tests.platform.scenes import enter
from tests.platform.web.test_browser import PASSWORD
from tests.platform.worker import GOOD_BOT, protocol_bot

pytestmark = pytest.mark.slow

pytest_plugins = ("tests.platform.browser",)


def lines_only(page: Any, name: str) -> None:
    """The verdicts' block alone, big enough to read (the whole page is long)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator(".verdicts-block").screenshot(path=str(SCREENSHOTS / f"{name}.png"))


def _history(alice: Any) -> list[BotVersion]:
    """Alice's shark v1, v2, v3 (real code, each qualified on both ladders) with rated
    results: on classic-2 (duplicate deals) v2 clearly beats v1's record and v3 has a few
    deals; on classic-3 (single games) v1 and v2 did alike."""
    duel = ladder_create(slug="classic-2", name="Classic, 2 seats", rules="classic", seats=2)
    table = ladder_create(
        slug="classic-3", name="Classic, 3 seats", rules="classic", seats=3, series_games=3
    )
    shark = player_bot(alice, "shark", GOOD_BOT)
    versions = [shark]
    for code in (protocol_bot(decide="legal[-1]"), protocol_bot(decide="legal[len(legal)//2]")):
        versions.append(
            activate(bot_version_upload(bot=shark.bot, filename="shark.py", content=code))
        )
    for version in versions:
        enter(version, duel)
        enter(version, table)
    others = [BotVersionFactory(bot=BotFactory(name=name)) for name in ("turtle", "owl", "fox")]
    rng = random.Random(5)
    win = [[30, -30], [10, -10]]
    lose = [[-30, 30], [-10, 10]]
    for version, deals, chance in zip(versions, (40, 40, 6), (0.45, 0.7, 0.6), strict=True):
        for _ in range(deals):
            money = win if rng.random() < chance else lose
            ratings_apply(match=_deal(duel, [version, others[0]], money)[-1])
    for version in versions[:2]:
        for _ in range(40):
            seated = [version, *rng.sample(others, 2)]
            ratings_apply(match=_game(table, seated, rng.sample([1, 2, 3], 3), [0, 0, 0]))
    ladder_refit(ladder_id=duel.pk)
    ladder_refit(ladder_id=table.pk)
    return versions


@pytest.mark.django_db(transaction=True)
def test_the_owner_reads_the_verdicts_and_challenges_v3_against_v2(
    page: Any, screenshot: Any, log_in: Any, alice: Any
) -> None:
    v1, v2, v3 = _history(alice)
    log_in("alice", PASSWORD)
    page.goto(f"/bots/{v1.bot_id}/")
    lines = page.locator("table.verdicts tbody tr")
    assert lines.count() == 4  # v3 and v2, each on both ladders
    better = page.locator("table.verdicts tr[data-ladder='classic-2'][data-version='2']")
    assert re.search(r"\+\d+ ± \d+ Elo, \d+% likely better", better.inner_text())
    assert "BETTER" in better.inner_text()  # the badge, uppercase
    level = page.locator("table.verdicts tr[data-ladder='classic-3'][data-version='2']")
    assert re.search(r"± \d+ Elo", level.inner_text())
    early = page.locator("table.verdicts tr[data-ladder='classic-2'][data-version='3']")
    assert "not enough games yet (6 of 10)" in early.inner_text()
    screenshot("bot-verdicts")
    lines_only(page, "bot-verdicts-lines")

    early.get_by_role("button", name="Challenge v3 against v2").click()
    page.wait_for_url(re.compile(r"/challenges/\d+/$"))
    challenge = Challenge.objects.get()
    assert (challenge.bot_version, list(challenge.opponent_versions.all())) == (v3, [v2])
    assert all(m.status == MatchStatus.FINISHED for m in challenge.matches.all())
    assert "shark v3 against shark v2" in page.inner_text("p.subtitle")
    screenshot("bot-verdicts-challenge")

    page.goto(f"/bots/{v1.bot_id}/")
    early = page.locator("table.verdicts tr[data-ladder='classic-2'][data-version='3']")
    # Five deals of v3 against v2 now count for both: 6 + 5 rated and challenge deals.
    assert "not enough games yet" not in early.inner_text()
    assert "11 / 45" in early.inner_text()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("viewport", [PHONE])
def test_the_verdicts_fit_a_phone(page: Any, screenshot: Any, log_in: Any, alice: Any) -> None:
    v1, _, _ = _history(alice)
    log_in("alice", PASSWORD)
    page.goto(f"/bots/{v1.bot_id}/")
    assert page.locator("table.verdicts tbody tr").count() == 4
    assert not overflows_horizontally(page)
    screenshot("bot-verdicts-phone")
    lines_only(page, "bot-verdicts-lines-phone")
