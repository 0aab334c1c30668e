"""Issue 17 in a real Chromium: pages that update themselves (htmx), the league form and
its confirmed withdrawals, and every page at a phone's 390 px."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

import vegas_engine
from arena.bots.models import BotVersion, VersionStatus, Visibility
from arena.ladders.models import Challenge, Entry
from arena.leagues.models import LeagueVisibility
from arena.matches.models import Match, MatchStatus
from arena.matches.outcomes import SeatOutcome
from arena.tables.models import Table
from arena.tables.services import table_create, table_finish, table_start
from tests.platform.browser import PHONE, SCREENSHOTS, overflows_horizontally
from tests.platform.factories import BotFactory, BotVersionFactory, LadderFactory
from tests.platform.leagues.test_leagues import create, make_bots
from tests.platform.scenes import play_match
from tests.platform.web.test_browser import PASSWORD
from vegas_engine.log import dumps, game_log
from vegas_engine.policies import greedy_policy
from vegas_engine.policies import play as engine_play

pytestmark = pytest.mark.slow

pytest_plugins = ("tests.platform.browser",)


def test_a_pending_version_turns_active_without_a_reload(
    page: Any, log_in: Any, screenshot: Any, alice: Any
) -> None:
    version = BotVersionFactory(bot=BotFactory(owner=alice, name="shark"))
    BotVersion.objects.filter(pk=version.pk).update(status=VersionStatus.PENDING)
    log_in("alice", PASSWORD)
    page.goto(f"/bots/{version.bot_id}/")
    badge = page.locator("#v1 header .badge")
    expect(badge).to_have_text("pending")  # upper case by CSS only
    assert "this updates by itself" in page.inner_text("#v1 header")
    screenshot("live-version-pending")
    page.evaluate("window.notReloaded = true")

    BotVersion.objects.filter(pk=version.pk).update(status=VersionStatus.ACTIVE)
    expect(badge).to_have_text("active", timeout=10_000)
    assert page.evaluate("window.notReloaded") is True  # the block changed, not the page
    assert page.locator("#versions[hx-trigger]").count() == 0  # and it stopped asking
    screenshot("live-version-active")


def test_the_ladder_shows_matches_queue_play_and_finish_by_itself(
    page: Any, screenshot: Any, alice: Any, bob: Any
) -> None:
    ladder = LadderFactory(slug="pairs", name="Classic, 2 seats", seats=2)
    a = BotVersionFactory(bot=BotFactory(owner=alice, name="shark"))
    b = BotVersionFactory(bot=BotFactory(owner=bob, name="turtle"))
    play_match(ladder, [a, b], 1)
    page.goto("/ladders/pairs/")
    expect(page.locator("#queue-counts")).to_contain_text("0 running · 0 queued")
    page.evaluate("window.notReloaded = true")

    match, _ = play_match(ladder, [b, a], 2)
    Match.objects.filter(pk=match.pk).update(status=MatchStatus.QUEUED, finished_at=None)
    row = page.locator(f'#queue li[data-match="{match.pk}"]')
    expect(row).to_contain_text("queued", timeout=12_000)
    Match.objects.filter(pk=match.pk).update(status=MatchStatus.RUNNING)
    expect(row).to_contain_text("running", timeout=12_000)
    screenshot("live-ladder-running")

    Match.objects.filter(pk=match.pk).update(status=MatchStatus.FINISHED)
    Match.objects.filter(pk=match.pk).update(finished_at=Match.objects.get(pk=match.pk).created_at)
    expect(page.locator(f'#latest-matches li[data-match="{match.pk}"]')).to_be_visible(
        timeout=12_000
    )
    expect(row).to_have_count(0)
    assert page.evaluate("window.notReloaded") is True
    screenshot("live-ladder-finished")


def test_the_league_form_fills_the_slug_and_withdrawing_asks_first(
    page: Any, log_in: Any, screenshot: Any, alice: Any
) -> None:
    fours = LadderFactory(slug="classic-4", name="Classic, 4 seats", rules="classic", seats=4)
    LadderFactory(slug="empty-4", name="A ladder nobody entered", rules="classic", seats=4)
    bots = make_bots(alice, 5, "cup")
    for bot in bots:
        Entry.objects.get_or_create(bot=bot, ladder=fours)
    log_in("alice", PASSWORD)
    page.goto("/leagues/new/")
    # The ladder with entrants is proposed, not the first by name.
    assert page.eval_on_selector("#id_ladder", "s => s.value") == "classic-4"
    page.fill("#id_name", "Spring Cup 2031!")
    assert page.input_value("#id_slug") == "spring-cup-2031"
    page.check("#id_start_now")
    assert page.is_disabled("#id_start_at")
    screenshot("league-new")

    league = create(
        alice, fours, bots, name="Autumn", slug="autumn", visibility=LeagueVisibility.PRIVATE
    )
    page.goto(f"/leagues/{league.slug}/")
    first = bots[0]
    box = page.locator(f"details.confirm-box:has(form[action$='/entries/{first.pk}/withdraw/'])")
    confirm = box.locator("button[type=submit]")
    expect(confirm).to_be_hidden()  # one click does not withdraw
    box.locator("summary").click()
    expect(confirm).to_be_visible()
    assert f"Withdraw {first.name} from Autumn?" in box.inner_text()
    screenshot("league-withdraw-asks")
    confirm.click()
    expect(page.locator(".messages")).to_contain_text(f"Withdrew {first.name}")


PHONE_PAGES = [
    "home",
    "ladder",
    "match",
    "bot",
    "player",
    "leagues",
    "league",
    "league-new",
    "challenge",
    "play",
    "table",
    "kits",
    "upload",
    "docs",
    "doc-play",
]


@pytest.fixture
def site(alice: Any, bob: Any, house: Any, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """One of everything, with long names, for the phone screenshots."""
    ladder = LadderFactory(slug="classic-4", name="Classic, 4 seats", rules="classic", seats=4)
    versions = [
        BotVersionFactory(bot=BotFactory(owner=owner, name=name, visibility=Visibility.PUBLIC))
        for owner, name in (
            (alice, "montecarlo-deluxe"),
            (bob, "turtle-the-patient"),
            (alice, "shark"),
            (bob, "greedy-gambler"),
        )
    ]
    match = None
    for seed in range(3):
        match, _ = play_match(ladder, versions, seed)
    assert match is not None
    league = create(
        alice,
        ladder,
        make_bots(alice, 4, "cup"),
        name="Autumn",
        slug="autumn",
        visibility=LeagueVisibility.PRIVATE,
    )
    challenge = Challenge.objects.create(
        requested_by=alice, ladder=ladder, bot_version=versions[0], games=1
    )
    challenge.matches.add(match)
    return {
        "home": "/",
        "ladder": "/ladders/classic-4/",
        "match": f"/matches/{match.pk}/",
        "bot": f"/bots/{versions[0].bot_id}/",
        "player": "/players/alice/",
        "leagues": "/leagues/",
        "league": f"/leagues/{league.slug}/",
        "league-new": "/leagues/new/",
        "challenge": f"/challenges/{challenge.pk}/",
        "play": "/play/",
        "table": f"/play/{finished_table(alice, house, monkeypatch).pk}/",
        "kits": "/kits/",
        "upload": "/upload/",
        "docs": "/docs/",
        "doc-play": "/docs/play/",
    }


def finished_table(alice: Any, house: Any, monkeypatch: pytest.MonkeyPatch) -> Table:
    """A four-seat table Alice played to the end (an engine game stands in for the worker)."""
    bots = [
        BotVersionFactory(bot=BotFactory(owner=house, name=name)).bot
        for name in ("greedy", "montecarlo", "gambler")
    ]
    table = table_start(
        table=table_create(player=alice, rules="classic", seats=4, seat=2, opponents=bots)
    )
    state = engine_play(vegas_engine.describe("classic", 4), table.seed, [greedy_policy] * 4)
    outcomes = [SeatOutcome(r.seat, r.money, r.rank) for r in state.result() or []]
    return table_finish(table=table, outcomes=outcomes, game_log=dumps(game_log(state)).encode())


@pytest.mark.parametrize("viewport", [PHONE])
def test_every_page_fits_a_phone(
    page: Any, log_in: Any, screenshot: Any, site: dict[str, str]
) -> None:
    log_in("alice", PASSWORD)
    cut: list[str] = []
    scrolled: list[str] = []
    for name in PHONE_PAGES:
        page.goto(site[name])
        if overflows_horizontally(page):
            cut.append(name)
        # The key tables reflow into labelled rows: none scrolls sideways in its box.
        wide = page.evaluate(
            """() => Array.from(document.querySelectorAll('.table.reflow'))
                .filter((t) => (t.parentElement.scrollWidth > t.parentElement.clientWidth + 1))
                .map((t) => t.className)"""
        )
        scrolled.extend(f"{name}: {table}" for table in wide)
        screenshot(f"phone-{name}")
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"phone-{name}-top.png"))
    assert not cut, f"pages wider than the phone: {cut}"
    assert not scrolled, f"tables that scroll instead of reflowing: {scrolled}"
