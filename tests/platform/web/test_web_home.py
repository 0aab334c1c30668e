"""The home page: matches in play (linked to their live pages), the latest results, each
ladder's leaders with their owners (a team's bots with their team), and no competition
slot while there is none; read in a bounded number of queries whatever the number of
bots, then from the cache."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client
from django.utils import timezone

from arena.bots.models import Visibility
from arena.competitions.models import Competition, Phase
from arena.ladders.models import Ladder, Rating
from arena.matches.models import Match, MatchStatus
from arena.players.models import User
from arena.players.services import team_create
from arena.web import selectors
from tests.platform.factories import (
    BotFactory,
    BotVersionFactory,
    LadderFactory,
    MatchFactory,
    ParticipantFactory,
    RatingFactory,
    UserFactory,
)
from tests.platform.scenes import play_match
from tests.platform.web.test_web import text_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def pairs(db: None) -> Ladder:
    return LadderFactory(slug="classic-2", name="Classic, 2 seats", rules="classic", seats=2)


def running(ladder: Ladder, versions: list[Any]) -> Match:
    """A match being played, as the worker leaves it while it plays."""
    match = MatchFactory(
        ladder=ladder, status=MatchStatus.RUNNING, attempts=1, started_at=timezone.now()
    )
    for seat, version in enumerate(versions):
        ParticipantFactory(match=match, seat=seat, bot_version=version)
    return match


def section(html: str, ident: str) -> str:
    found = re.search(rf'<section[^>]* id="{ident}">(.*?)</section>', html, flags=re.S)
    assert found, ident
    return found.group(1)


def test_the_home_page_shows_matches_in_play_results_and_leaders(
    pairs: Ladder, alice: User, bob: User
) -> None:
    shark = BotVersionFactory(bot__owner=alice, bot__name="shark")
    turtle = BotVersionFactory(bot__owner=bob, bot__name="turtle")
    hidden = BotVersionFactory(
        bot__owner=bob, bot__name="secret", bot__visibility=Visibility.PRIVATE
    )
    finished, log = play_match(pairs, [shark, turtle], seed=7)
    live = running(pairs, [turtle, shark])
    private = running(pairs, [hidden, shark])
    # Rated by the match; settled here, with ratings to read.
    for version, rating in ((shark, 1620.4), (turtle, 1580)):
        Rating.objects.filter(ladder=pairs, bot_version=version).update(
            rating=rating, rated_matches=40, deviation=40.0
        )

    response = Client().get("/")
    assert response.status_code == 200
    html = response.content.decode()
    playing = section(html, "playing-now")
    # The match in play links to its page (which follows it live); each bot with its owner.
    assert f'href="/matches/{live.pk}/"' in playing
    assert re.search(
        r"turtle</a>\s*<span[^>]*>· <a[^>]*href=\"/players/bob/\">bob</a></span>"
        r".*shark</a>\s*<span[^>]*>· <a[^>]*>alice</a>",
        playing,
        re.S,
    )
    # Another player's private bot's match is not listed (as in every list of matches).
    assert f"/matches/{private.pk}/" not in html
    results = section(html, "latest-results")
    assert f'href="/matches/{finished.pk}/"' in results
    winner = next(row for row in log["events"][-1]["result"] if row["rank"] == 1)
    name = ["shark", "turtle"][winner["seat"]]
    assert re.search(rf"1\. <span class=\"bot-owner\"><a href=\"/bots/\d+/\">{name}</a>", results)
    assert f"${winner['money']:,}" in results
    # Each ladder's leaders, best first, with owners; the bots counted.
    text = text_of(response)
    assert re.search(
        r"Classic, 2 seats 2 seats 1\. shark · alice 1620 ± 40 2\. turtle · bob 1580 ± 40 2 ",
        text,
    ), text
    # No competition exists: the slot shows nothing.
    assert 'class="home-competitions"' not in html and "Competitions</h2>" not in html


def test_a_team_s_bot_is_credited_to_its_team_everywhere_on_the_home_page(
    pairs: Ladder, alice: User, bob: User
) -> None:
    sharks = team_create(user=alice, name="Sharks")
    shark = BotVersionFactory(bot__owner=alice, bot__team=sharks, bot__name="shark")
    turtle = BotVersionFactory(bot__owner=bob, bot__name="turtle")
    play_match(pairs, [shark, turtle], seed=7)
    running(pairs, [turtle, shark])
    Rating.objects.filter(ladder=pairs).update(rated_matches=40, deviation=40.0)  # settled

    html = Client().get("/").content.decode()
    team_link = rf'· <a class="owner" href="/teams/{sharks.pk}/">Sharks</a>'
    for ident in ("playing-now", "latest-results"):
        part = section(html, ident)
        assert re.search(rf"shark</a>\s*<span[^>]*>{team_link}</span>", part), part
        assert '· <a class="owner" href="/players/bob/">bob</a>' in part
        # The member who made the bot is not who it is credited to.
        assert ">alice<" not in part
    assert re.search(r"shark · Sharks \d+", text_of(Client().get("/")))
    # Kept in the cache as plain values.
    row = selectors.home_page_read().ladders[0].leaders
    assert {(leader.bot.credit, leader.bot.credit_url) for leader in row} == {
        ("Sharks", f"/teams/{sharks.pk}/"),
        ("bob", "/players/bob/"),
    }


def test_competitions_under_way_are_shown_with_their_countdowns(pairs: Ladder, carol: User) -> None:
    now = timezone.now()

    def competition(slug: str, phase: str, closes: timedelta) -> Competition:
        return Competition.objects.create(
            slug=slug,
            title=slug.capitalize(),
            organiser=carol,
            invitation_token=slug,
            phase=phase,
            entry_opens_at=now - timedelta(days=1),
            entry_closes_at=now + closes,
            freeze_at=now + closes + timedelta(days=1),
            final_starts_at=now + closes + timedelta(days=2),
            final_format="round_robin",
        )

    competition("winter", Phase.ENTRY, timedelta(days=2, hours=3))
    competition("draft", Phase.DRAFT, timedelta(days=3))
    competition("old", Phase.ARCHIVED, timedelta(days=4))
    html = Client().get("/").content.decode()
    slot = section(html, "competitions").replace("\xa0", " ")
    assert 'href="/competitions/winter/"' in slot and "Winter" in slot
    # The countdown to its next step, written when the page is.
    assert re.search(r"entry closes in\s*<time datetime=\"[^\"]+\">2 days, [23] hours</time>", slot)
    # Neither a draft nor a past competition.
    assert "Draft" not in slot and "Old" not in slot


def test_the_home_page_is_read_in_bounded_queries_then_from_the_cache(
    pairs: Ladder, django_assert_max_num_queries: Any, django_assert_num_queries: Any
) -> None:
    LadderFactory(slug="classic-4", name="Classic, 4 seats", rules="classic", seats=4)
    owners = [UserFactory() for _ in range(3)]
    # Two owners' bots are their teams': each team's name comes with its bots, not per bot.
    teams = [None, team_create(user=owners[1], name="t1"), team_create(user=owners[2], name="t2")]
    made = 0
    for count in (2, 40):
        versions = [
            BotVersionFactory(
                bot=BotFactory(owner=owners[i % 3], team=teams[i % 3], name=f"b{made + i}")
            )
            for i in range(count)
        ]
        made += count
        for i, version in enumerate(versions):
            RatingFactory(ladder=pairs, bot_version=version, rating=1500 + i, rated_matches=40)
        for i in range(0, count - 1, 2):
            running(pairs, versions[i : i + 2])
            play_match(pairs, versions[i : i + 2], seed=made + i)
        cache.clear()
        # The private versions left out, the matches in play + their seats, the results +
        # their seats; the ladders, the competitions under way, then per ladder its count
        # (stopped at the cap) and its leaders.
        with django_assert_max_num_queries(5 + 2 + 2 * 2):
            first = Client().get("/")
        assert first.status_code == 200
        # Then from the cache, with no query.
        with django_assert_num_queries(0):
            again = Client().get("/")
        assert again.content == first.content
        # The page's cache expires before the counts' (kept longer): no count then.
        cache.delete(selectors.HOME_CACHE_KEY)
        with django_assert_max_num_queries(5 + 2 + 2):
            assert Client().get("/").content == first.content


def test_a_ladders_bots_are_counted_up_to_a_cap(
    pairs: Ladder, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(4):
        RatingFactory(ladder=pairs, bot_version__bot__name=f"c{i}")
    assert selectors.home_page_read().ladders[0].bot_count_shown == "4"
    monkeypatch.setattr(selectors, "HOME_BOT_COUNT_CAP", 3)
    cache.clear()  # the counts are kept a while
    row = selectors.home_page_read().ladders[0]
    assert (row.bot_count, row.bot_count_shown) == (4, "3+")


def test_a_competitions_ladder_is_left_to_its_competition(pairs: Ladder) -> None:
    """The ladders' section lists the platform's ladders, not every competition's."""
    LadderFactory(slug="spring-cup-classic", name="Spring cup: classic", restricted=True)
    html = Client().get("/").content.decode()
    classic = section(html, "game-classic")
    assert pairs.name in classic
    assert "Spring cup" not in html
