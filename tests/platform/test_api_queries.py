"""Every API read runs a fixed number of queries, whatever the number of rows (no N+1).

Each endpoint is measured with few and with many rows behind it; the bound
is the same for both.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from arena.bots.models import BotVersion
from arena.ladders.models import Ladder
from arena.leagues.models import LeagueFormat
from arena.leagues.services import league_advance, league_create
from arena.matches import selectors as match_selectors
from arena.players.services import team_create

from .api_support import client_for, play_match
from .factories import BotFactory, BotVersionFactory, LadderFactory, RatingFactory, UserFactory

pytestmark = pytest.mark.django_db


def versions_of_new_bots(count: int, **bot_fields: Any) -> list[BotVersion]:
    """New bots, every other one its owner's team's: a team's name comes with its bots
    (bots.selectors.bot_credit), never a query per team bot."""
    versions = []
    for _ in range(count):
        owner = UserFactory()
        team = team_create(user=owner, name=f"team-{owner.username}") if next(_teams) else None
        versions.append(BotVersionFactory(bot=BotFactory(owner=owner, team=team, **bot_fields)))
    return versions


_teams = itertools.cycle((True, False))


def get(client: Any, url: str) -> None:
    response = client.get(url)
    assert response.status_code == 200, response.content
    if response.streaming:
        b"".join(response.streaming_content)


@pytest.fixture
def ladder(db: None) -> Ladder:
    return LadderFactory(slug="classic-2")


@pytest.fixture
def assert_bounded(django_assert_max_num_queries: Any) -> Callable[..., None]:
    """Run ``grow(n)`` for n = 1, then 6: the request stays within ``limit`` queries."""

    def check(url: str, grow: Callable[[int], Any], limit: int, user: Any = None) -> None:
        client = client_for(user)
        for count in (1, 6):
            grow(count)
            with django_assert_max_num_queries(limit):
                get(client, url)

    return check


def test_bot_list(assert_bounded: Callable[..., None], alice: Any) -> None:
    # count + page; the owner filter is a join, not a query per row.
    assert_bounded("/api/bots/", lambda n: versions_of_new_bots(n), 2, user=alice)


def test_bot_detail_and_versions(assert_bounded: Callable[..., None], alice: Any) -> None:
    bot = BotFactory(owner=alice, name="shark")

    def grow(n: int) -> None:
        start = bot.versions.count()
        for number in range(start + 1, start + n + 1):
            BotVersionFactory(bot=bot, number=number, status="retired")

    assert_bounded(f"/api/bots/{bot.pk}/", grow, 2)
    assert_bounded(f"/api/bots/{bot.pk}/versions/", grow, 3)
    assert_bounded(f"/api/bots/{bot.pk}/versions/1/", grow, 2, user=alice)


def test_ladders_and_leaderboard(assert_bounded: Callable[..., None], ladder: Ladder) -> None:
    def grow(n: int) -> None:
        for version in versions_of_new_bots(n):
            RatingFactory(ladder=ladder, bot_version=version)
        LadderFactory.create_batch(n)

    assert_bounded("/api/ladders/", grow, 2)
    assert_bounded("/api/ladders/classic-2/leaderboard/", grow, 3)


def test_match_lists_detail_log_and_stream(
    assert_bounded: Callable[..., None], ladder: Ladder, alice: Any, monkeypatch: Any
) -> None:
    shark = BotVersionFactory(bot=BotFactory(owner=alice, name="shark"))
    seeds = iter(range(1000))

    def grow(n: int) -> None:
        for opponent in versions_of_new_bots(n):
            play_match(ladder, [shark, opponent], seed=next(seeds))

    first = play_match(ladder, [shark, *versions_of_new_bots(1)], seed=999)
    # the private versions hidden from the reader, matches, participants (with their
    # versions, bots and owners).
    assert_bounded("/api/matches/", grow, 3, user=alice)
    # a bot's: its versions and its latest seats of each (one query) beside the above.
    assert_bounded(f"/api/matches/?ladder=classic-2&bot={shark.bot_id}", grow, 5)
    assert_bounded("/api/ladders/classic-2/matches/", grow, 4)
    assert_bounded(f"/api/matches/{first.pk}/", grow, 3)
    # the match with its seats, then its log: a row of the database storage.
    assert_bounded(f"/api/matches/{first.pk}/log/", grow, 4, user=alice)


def test_the_log_stream_runs_one_query_per_chunk_of_matches(
    ladder: Ladder,
    alice: Any,
    django_assert_num_queries: Any,
    monkeypatch: Any,
    each_storage: str,
) -> None:
    monkeypatch.setattr(match_selectors, "LOG_STREAM_CHUNK", 10)
    shark = BotVersionFactory(bot=BotFactory(owner=alice, name="shark"))
    for seed, opponent in enumerate(versions_of_new_bots(25)):
        play_match(ladder, [shark, opponent], seed=seed)

    # The ladder, the private versions hidden from the reader, the matches (one cursor,
    # fetched chunk by chunk), then the participants of each chunk of 10 matches: 3 chunks
    # for 25 matches, not a query per match. Each log is one read of the storage, whatever
    # it is: in the database storage a query (a file opened in a folder, a GET from S3).
    # The reader's teams are read once, for the access rule on the team bots' seats.
    reads = 25 if each_storage == "database" else 0
    with django_assert_num_queries(3 + 3 + 1 + reads):
        get(client_for(alice), "/api/ladders/classic-2/logs/")


def test_a_leagues_entries_fixtures_standings_and_bundle(
    django_assert_max_num_queries: Any, carol: Any
) -> None:
    """A league of 2 bots and one of 7 (team bots among them) are read in as many queries."""
    ladder = LadderFactory(slug="classic-2")
    start = datetime(2031, 3, 1, 18, 0, tzinfo=UTC)
    for slug, count in (("small", 2), ("big", 7)):
        league = league_create(
            organiser=carol,
            ladder=ladder,
            bots=[version.bot for version in versions_of_new_bots(count)],
            name=slug,
            slug=slug,
            format=LeagueFormat.ROUND_ROBIN,
            start_at=start,
            round_interval=timedelta(days=1),
            now=start - timedelta(days=1),
        )
        league_advance(league=league, now=start)
        client = client_for(carol)
        # The same for both leagues: no query per (team) bot.
        for path, limit in (("entries", 2), ("standings", 3), ("fixtures", 5), ("bundle", 8)):
            with django_assert_max_num_queries(limit):
                get(client, f"/api/leagues/{slug}/{path}/")
