"""The server-rendered pages: what each visitor sees, forms, query counts.

Query counts are asserted with ``django_assert_max_num_queries`` on pages
with many rows, so a page costs the same few queries whatever its size (no
N+1): that is what keeps the ladder fast with 10,000 bots and 1,000,000
matches, beside the indexes the selectors rely on.
"""

from __future__ import annotations

import io
import json
import random
import re
import zipfile
from datetime import timedelta
from html import unescape
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client
from django.utils import timezone

from arena.bots.models import Bot, BotVersion, VersionStatus, Visibility
from arena.ladders.models import Ladder, Rating, RatingChange
from arena.matches.models import Match, MatchStatus, Participant
from arena.matches.selectors import bot_latest_seats, bot_opponent_records
from arena.players.models import User
from arena.web import charts, presenters
from tests.platform.factories import (
    BotFactory,
    BotVersionFactory,
    LadderFactory,
    MatchFactory,
    ParticipantFactory,
    RatingFactory,
    finished_match,
)
from tests.platform.scenes import (
    CRASH_STDERR,
    FAILING_REQUEST,
    GOOD_BOT,
    failed_version,
    play_match,
    referee_section,
)

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


def client_for(user: Any = None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def text_of(response: Any) -> str:
    """The page's text without tags, whitespace collapsed (what a reader sees)."""
    html = response.content.decode()
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    html = re.sub(r"</?(a|abbr|code|em|span|strong)\b[^>]*>", "", html)  # inline: no word break
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html))).strip()


def replay_data(response: Any) -> dict[str, Any]:
    found = re.search(
        r'<script id="replay-data" type="application/json">(.*?)</script>',
        response.content.decode(),
        flags=re.S,
    )
    assert found, "no replay data on the page"
    return json.loads(found.group(1))


@pytest.fixture
def ladder() -> Any:
    return LadderFactory(slug="classic-2", name="Classic, 2 seats")


def board(ladder: Any, count: int, *, changes: int = 0) -> list[Rating]:
    """``count`` public bots rated on ``ladder``, best first, each with ``changes`` history rows;
    settled (± 40), each one Elo below the one before: tied with it."""
    ratings = []
    for i in range(count):
        version = BotVersionFactory(bot=BotFactory(name=f"bot{i:03d}"))
        rating = RatingFactory(
            ladder=ladder, bot_version=version, rating=2000 - i, rated_matches=30 + i, deviation=40
        )
        ratings.append(rating)
    if changes:
        matches = [MatchFactory(ladder=ladder, status=MatchStatus.FINISHED) for _ in range(changes)]
        RatingChange.objects.bulk_create(
            RatingChange(
                rating=rating,
                match=matches[step],
                rating_before=1500 + step * 3,
                rating_after=1500 + (step + 1) * 3,
                k=48,
                matches_before=step,
            )
            for rating in ratings
            for step in range(changes)
        )
    return ratings


# --------------------------------------------------------------------------- home and ladder


def test_home_lists_the_ladders_with_their_bot_count(ladder: Any) -> None:
    board(ladder, 3)
    response = client_for().get("/")
    assert response.status_code == 200
    text = text_of(response)
    assert "Classic, 2 seats" in text
    # Grouped by game: the rule system's title, then each ladder with seats, leaders, bots.
    assert re.search(
        r"Las Vegas, the dice game \(alea 2012\) classic .* Classic, 2 seats 2 seats "
        r"1\. bot000 · \S+ 2000 ± 40 2\. bot001 · \S+ 1999 ± 40 3\. bot002 · \S+ 1998 ± 40 3 ",
        text,
    ), text


def test_the_ladder_ranks_settled_bots_and_lists_provisional_ones_apart(ladder: Any) -> None:
    ratings = board(ladder, 5)
    rows = Rating.objects.filter
    rows(pk=ratings[0].pk).update(rated_matches=30, rating=1612.4, deviation=45)
    # A newcomer's lucky start: rated above everyone, but its ± still over 50.
    rows(pk=ratings[1].pk).update(rated_matches=29, rating=1724.6, deviation=55.2)
    rows(pk=ratings[2].pk).update(rated_matches=0, rating=1500, deviation=245.7)
    # Settled by its deviation whatever its games: 62 below bot000, more than the
    # hypot(45, 38) = 59 of noise; bot004 is 40 below it, within hypot(38, 30) = 48: tied.
    rows(pk=ratings[3].pk).update(rated_matches=12, rating=1550, deviation=38)
    rows(pk=ratings[4].pk).update(rated_matches=45, rating=1510, deviation=30)

    response = client_for().get("/ladders/classic-2/")

    assert response.status_code == 200
    text = text_of(response)
    owner = [r.bot.owner.username for r in ratings]
    ranked, provisional = text.split("Provisional", 1)
    assert f"1 bot000 v1 {owner[0]} 1612 ± 45 30" in ranked
    assert f"2 bot003 v1 {owner[3]} 1550 ± 38 12" in ranked
    assert f"3 ≈ bot004 v1 {owner[4]} 1510 ± 30 45" in ranked
    assert "bot001" not in ranked and "bot002" not in ranked
    # Best first, unranked, the number still an Elo, with its ±.
    assert re.search(
        rf"bot001 v1 {owner[1]} 1725\? ± 55 29 .*bot002 v1 {owner[2]} 1500\? ± 246 0",
        provisional,
    )


def test_a_ladder_with_only_provisional_bots_says_none_is_ranked_yet(ladder: Any) -> None:
    version = BotVersionFactory(bot=BotFactory(name="rookie"))
    RatingFactory(ladder=ladder, bot_version=version, rating=1550, rated_matches=3)
    text = text_of(client_for().get("/ladders/classic-2/"))
    assert (
        "No settled rating yet: a bot is ranked once its rating is sure to ± 50 Elo "
        "(after some 47 rated games against bots of its level)." in text
    )
    assert "rookie v1" in text.split("Provisional", 1)[1]


def test_the_ladder_draws_each_bots_recent_trend(ladder: Any) -> None:
    board(ladder, 2, changes=15)
    html = client_for().get("/ladders/classic-2/").content.decode()
    lines = re.findall(r'<svg class="sparkline trend-up".*?<polyline points="([^"]+)"', html)
    assert len(lines) == 2
    # The last TREND_POINTS changes and the rating before the first of them.
    assert all(len(points.split()) == 13 for points in lines)


def test_the_leaderboards_trends_are_the_last_changes_values(ladder: Any) -> None:
    """rating_trends (one LATERAL query on PostgreSQL) reads what the changes say:
    the rating before the last TREND_POINTS changes, then after each."""
    from arena.ladders.selectors import rating_changes_recent, rating_trends

    ratings = board(ladder, 4)
    matches = [MatchFactory(ladder=ladder, status=MatchStatus.FINISHED) for _ in range(20)]
    rng = random.Random(3)
    # Histories of 20, 13, 1 and no changes, interleaved as matches rate several bots.
    RatingChange.objects.bulk_create(
        RatingChange(
            rating=rating,
            match=matches[step],
            rating_before=rng.uniform(1000, 2000),
            rating_after=rng.uniform(1000, 2000),
            k=48,
            matches_before=step,
        )
        for step in range(20)
        for rating, length in zip(ratings, (20, 13, 1, 0), strict=True)
        if step < length
    )
    ids = [r.pk for r in ratings]
    for points in (1, 12, 30):
        old = {
            rating_id: [changes[0].rating_before, *(c.rating_after for c in changes)]
            if changes
            else []
            for rating_id, changes in rating_changes_recent(rating_ids=ids, points=points).items()
        }
        assert rating_trends(rating_ids=ids, points=points) == old
        lengths = [min(n, points) + 1 if n else 0 for n in (20, 13, 1, 0)]
        assert [len(old[i]) for i in ids] == lengths
    assert rating_trends(rating_ids=[], points=12) == {}


def test_pages_near_the_end_are_read_from_the_end_with_the_same_rows(ladder: Any) -> None:
    """EndNearPaginator reads the second half's pages in the reversed order: the rows,
    order and numbering are Django's Paginator's, ties in rating included."""
    from django.core.paginator import Paginator

    from arena.ladders.selectors import ladder_leaderboard
    from arena.pagination import EndNearPaginator

    board(ladder, 23)
    Rating.objects.filter(bot__name__in=["bot003", "bot004", "bot005", "bot020"]).update(
        rating=1990
    )
    leaderboard = ladder_leaderboard(ladder=ladder)
    for per_page in (5, 7, 23, 50):
        plain, near = Paginator(leaderboard, per_page), EndNearPaginator(leaderboard, per_page)
        assert near.num_pages == plain.num_pages
        for number in range(1, plain.num_pages + 1):
            ours, django = near.page(number), plain.page(number)
            assert [r.pk for r in ours] == [r.pk for r in django]
            assert ours.start_index() == django.start_index()
    assert EndNearPaginator(leaderboard, 5, count=40).num_pages == 8  # a count given is used


def test_the_ladder_count_is_reused_for_a_few_seconds(ladder: Any) -> None:
    """The ladder page's count of ranked bots is counted once per LEADERBOARD_COUNT_SECONDS
    (in the cache): a bot ranked meanwhile shows on its page, in the count after that."""
    from django.core.cache import cache

    from arena.ladders.selectors import ladder_leaderboard_count

    board(ladder, 3)
    assert ladder_leaderboard_count(ladder=ladder, provisional=False) == 3
    RatingFactory(ladder=ladder, rating=1000, rated_matches=40, deviation=40)
    assert ladder_leaderboard_count(ladder=ladder, provisional=False) == 3
    assert ladder_leaderboard_count(ladder=ladder) == 4  # counted apart
    cache.clear()  # as when the seconds are up
    assert ladder_leaderboard_count(ladder=ladder, provisional=False) == 4


def test_the_leaderboards_links_and_names_are_reverses_and_escaped(ladder: Any) -> None:
    """The rows written in Python link as reverse() does (quoting a non-ASCII username)
    and escape what players named."""
    from django.urls import reverse

    from arena.web.templatetags.arena_web import _link

    for name in ("zoë", "a.b+c@d_-", "bench0"):
        assert _link("web:player", name) == reverse("web:player", args=[name])
    assert _link("web:bot", 42) == reverse("web:bot", args=[42])
    rating = board(ladder, 1)[0]
    Bot.objects.filter(pk=rating.bot_id).update(name="<b>&co")
    User.objects.filter(pk=rating.bot.owner_id).update(username="zoë")
    html = client_for().get("/ladders/classic-2/").content.decode()
    assert f'<a href="/bots/{rating.bot_id}/">&lt;b&gt;&amp;co</a>' in html
    assert '<a class="owner" href="/players/zo%C3%AB/">zoë</a>' in html


def test_the_ladder_hides_private_bots_and_inactive_versions(ladder: Any, alice: Any) -> None:
    ratings = board(ladder, 3)
    Bot.objects.filter(pk=ratings[0].bot_id).update(visibility=Visibility.PRIVATE)
    BotVersion.objects.filter(pk=ratings[1].bot_version_id).update(status=VersionStatus.RETIRED)
    text = text_of(client_for().get("/ladders/classic-2/"))
    assert "bot000" not in text and "bot001" not in text
    assert "1 bot002" in text


def test_the_ladder_pages_by_fifty(ladder: Any) -> None:
    board(ladder, 55)
    text = text_of(client_for().get("/ladders/classic-2/?page=2"))
    assert "Page 2 of 2" in text
    # Its first row is tied with the last of page 1 (1 Elo apart, ± 40 each): marked.
    assert re.search(r"\b51 ≈ bot050\b", text)
    assert "bot049" not in text
    assert client_for().get("/ladders/nope/").status_code == 404


def test_the_ladder_says_its_ratings_are_refitted_and_when_last(ladder: Any) -> None:
    board(ladder, 3)
    before = text_of(client_for().get("/ladders/classic-2/"))
    assert "refitted on every result so far" in before and "last on" not in before

    Ladder.objects.filter(pk=ladder.pk).update(
        refit_units=120, refit_at=timezone.now() - timedelta(minutes=3)
    )
    after = text_of(client_for().get("/ladders/classic-2/"))

    assert "(last on 120 rated games, 3 minutes ago)" in after


def test_the_ladder_costs_the_same_few_queries_for_a_full_page(
    ladder: Any, django_assert_max_num_queries: Any
) -> None:
    ratings = board(ladder, 60, changes=20)
    for seed in range(3):
        play_match(ladder, [ratings[0].bot_version, ratings[1].bot_version], seed)
    client = client_for()
    # ladder, count, page, provisional, trend cut-offs, trends, the private versions hidden
    # from the visitor, the queue's counts, latest matches + their seats, the queue, the
    # season running and the past ones
    with django_assert_max_num_queries(11):
        response = client.get("/ladders/classic-2/")
    assert response.content.count(b'class="sparkline') == 50
    # Page 2 reads the row above its first, for the tie mark: one query more.
    with django_assert_max_num_queries(12):
        second = client.get("/ladders/classic-2/?page=2")
    assert second.content.count(b'class="sparkline') == 10
    assert b"Match #" in response.content


# --------------------------------------------------------------------------- bot page


def test_a_public_bot_shows_its_versions_ratings_history_matches_and_record(
    ladder: Any, alice: Any, bob: Any
) -> None:
    shark = BotFactory(owner=alice, name="shark")
    v1 = BotVersionFactory(bot=shark, number=1, status=VersionStatus.RETIRED)
    v2 = BotVersionFactory(bot=shark, number=2, parent=v1)
    turtle = BotVersionFactory(bot=BotFactory(owner=bob, name="turtle"))
    for seed in range(4):
        versions = [v2, turtle] if seed % 2 else [turtle, v2]
        play_match(ladder, versions, seed)

    response = client_for().get(f"/bots/{shark.pk}/")

    assert response.status_code == 200
    text = text_of(response)
    assert "shark" in text and "by alice" in text
    assert "v2 active" in text and "v1 retired" in text
    assert "Elo on Classic, 2 seats, last 4 rated matches; the band is its ± " in text
    assert response.content.count(b'<polyline class="line"') == 1
    # Each point's ± drawn around the line, from the changes' deviations.
    assert response.content.count(b'<polygon class="band"') == 1
    rating = Rating.objects.get(bot_version=v2)
    assert f"v2 active {round(rating.rating)}? ± {round(rating.deviation)} 4" in text
    # Four recent matches, and the record against turtle adds up to them.
    assert len(re.findall(r'href="/matches/\d+/"', response.content.decode())) == 4
    record = re.search(r"turtle bob (\d+) (\d+) (\d+) (\d+)", text)
    assert record is not None
    games, wins, draws, losses = map(int, record.groups())
    assert games == 4 and wins + draws + losses == 4
    assert "Upload a new version" not in text  # not her page for the anonymous visitor


def test_the_record_counts_every_pair_of_seats_against_each_opponent_bot(
    alice: Any, bob: Any
) -> None:
    """Four seats, ties, two versions on each side: each pair (the bot's seat, another
    seat) is one game, won, drawn or lost on rank, summed over the opponent's versions."""
    ladder = LadderFactory(slug="quads", seats=4)
    shark = BotFactory(owner=alice, name="shark")
    v1 = BotVersionFactory(bot=shark, number=1, status=VersionStatus.RETIRED)
    v2 = BotVersionFactory(bot=shark, number=2, parent=v1)
    crab = BotFactory(owner=bob, name="crab")
    c1 = BotVersionFactory(bot=crab, number=1, status=VersionStatus.RETIRED)
    c2 = BotVersionFactory(bot=crab, number=2, parent=c1)
    others = [BotVersionFactory(bot=BotFactory(owner=bob, name=f"fish{i}")) for i in range(3)]
    rng = random.Random(4)
    for n in range(12):
        seated = [v1 if n < 6 else v2, c1 if n % 2 else c2, *rng.sample(others, 2)]
        finished_match(ladder, seated, [rng.randint(1, 3) for _ in seated])  # ties too
    expected: dict[str, list[int]] = {}
    for seats in (
        list(Participant.objects.filter(match=match).select_related("bot_version__bot"))
        for match in Match.objects.filter(participants__bot_version__bot=shark)
    ):
        mine = [seat.rank for seat in seats if seat.bot_version.bot_id == shark.pk]
        for seat in seats:
            if seat.bot_version.bot_id == shark.pk:
                continue
            row = expected.setdefault(seat.bot_version.bot.name, [0, 0, 0, 0])
            for rank in mine:
                row[0] += 1
                row[1 if rank < seat.rank else 2 if rank == seat.rank else 3] += 1

    versions = [v1.pk, v2.pk]
    latest = bot_latest_seats(version_ids=versions, user=AnonymousUser(), limit=1000)
    records = bot_opponent_records(version_ids=versions, seats=latest, limit=50)
    assert {r["name"]: [r["games"], r["wins"], r["draws"], r["losses"]] for r in records} == (
        expected
    )
    assert records[0]["name"] == "crab" and records[0]["games"] == 12
    assert all((r["owner"], r["team"]) == ("bob", None) for r in records)
    assert [r["games"] for r in records] == sorted((r["games"] for r in records), reverse=True)
    # Most met first, then by name: a shorter list is the longer one's head, ties included.
    keys = [(-r["games"], r["name"]) for r in records]
    assert keys == sorted(keys)
    for limit in range(1, len(records) + 1):
        cut = bot_opponent_records(version_ids=versions, seats=latest, limit=limit)
        assert cut == records[:limit]
    # The latest matches only: the six of the second version.
    recent = bot_opponent_records(version_ids=versions, seats=latest[:6], limit=1)
    assert [(r["name"], r["games"]) for r in recent] == [("crab", 6)]


@pytest.mark.parametrize("two_versions", [False, True])
def test_a_bots_latest_seats_skip_matches_hidden_from_the_visitor(
    two_versions: bool, alice: Any, bob: Any
) -> None:
    """Read a window at a time and checked for hidden versions window by window, the
    latest seats are the plain query's: the visible finished matches, newest first."""
    from arena.matches.selectors import LATEST_SEATS_WINDOW, _hidden_among

    ladder = LadderFactory(slug="trios", seats=3)
    shark = BotFactory(owner=alice, name="shark")
    v1 = BotVersionFactory(bot=shark, number=1, status=VersionStatus.RETIRED)
    v2 = BotVersionFactory(bot=shark, number=2, parent=v1)
    secret = BotVersionFactory(bot=BotFactory(owner=bob, name="secret", visibility="private"))
    crab = BotVersionFactory(bot=BotFactory(owner=bob, name="crab"))
    rng = random.Random(9)
    total = 2 * LATEST_SEATS_WINDOW + 30
    for n in range(total):
        mine = [v2] if not two_versions else [v1, v2] if n % 7 == 0 else [rng.choice([v1, v2])]
        # Most of them with the private bot: the visible ones span every window.
        third = secret if rng.random() < 0.8 else crab
        seated = [*mine, third, crab][:3]
        match = finished_match(ladder, seated, [1, 2, 3])
        if n % 11 == 0:  # not finished: no rank
            Participant.objects.filter(match=match).update(rank=None)
    versions = [v1.pk, v2.pk]

    def plain(hidden: set[int]) -> list[tuple[int, int]]:
        out = set(
            Participant.objects.filter(bot_version_id__in=hidden).values_list("match_id", flat=True)
        )
        seats = Participant.objects.filter(bot_version_id__in=versions, rank__isnull=False)
        rows = [(s.match_id, s.seat, s.pk) for s in seats if s.match_id not in out]
        return [(pk, match_id) for match_id, _, pk in sorted(rows, key=lambda r: (-r[0], r[1]))]

    # Some hidden from the anonymous visitor (not from the private bot's owner), with
    # visible ones several windows deep.
    assert 30 < len(plain({secret.pk})) < len(plain(set())) - 30
    for user, hidden in ((AnonymousUser(), {secret.pk}), (bob, set())):
        expected = plain(hidden)
        for limit in (1, 20, 40, 1000):  # 40: more than the first window shows
            got = bot_latest_seats(version_ids=versions, user=user, limit=limit)
            assert got == expected[:limit]
    # A rare bot's matches far apart: probed by id, not by their range.
    ids = sorted(Match.objects.values_list("pk", flat=True))
    sparse = {ids[0], ids[-1]}
    out = set(Participant.objects.filter(bot_version=secret).values_list("match_id", flat=True))
    assert _hidden_among(sparse, [secret.pk]) == sparse & out
    assert _hidden_among(set(ids), [secret.pk]) == out


def test_the_bot_page_costs_a_bounded_number_of_queries(
    ladder: Any, alice: Any, bob: Any, django_assert_max_num_queries: Any
) -> None:
    shark = BotVersionFactory(bot=BotFactory(owner=alice, name="shark"))
    rivals = [BotVersionFactory(bot=BotFactory(owner=bob, name=f"rival{i}")) for i in range(6)]
    for seed, rival in enumerate(rivals * 2):
        play_match(ladder, [shark, rival], seed)
    client = client_for()
    # bot, versions, entries, pre-flights, ratings, history (cut-offs, changes), latest
    # seats (the private versions hidden from the visitor, the seats), recent seats (rows,
    # their matches' seats), record (every seat of those matches, their versions' bots,
    # the names of the opponents shown), the levels' bots, its season placings, its
    # competition placings; on SQLite the history's cut-offs and changes are two queries
    # (PostgreSQL: one LATERAL join)
    with django_assert_max_num_queries(16 if connection.vendor == "postgresql" else 17):
        response = client.get(f"/bots/{shark.bot_id}/")
    assert response.content.count(b'href="/matches/') == 12


def test_a_private_bot_is_its_owners_alone(alice: Any, bob: Any, carol: Any) -> None:
    secret = BotFactory(owner=alice, name="secret", visibility=Visibility.PRIVATE)
    BotVersionFactory(bot=secret)
    assert client_for().get(f"/bots/{secret.pk}/").status_code == 404
    assert client_for(bob).get(f"/bots/{secret.pk}/").status_code == 404
    assert client_for(alice).get(f"/bots/{secret.pk}/").status_code == 200
    assert client_for(carol).get(f"/bots/{secret.pk}/").status_code == 200


def test_the_owner_reads_the_failure_report_others_see_the_status(alice: Any, bob: Any) -> None:
    bot = BotFactory(owner=alice, name="crashy")
    version = failed_version(bot)
    assert version.status == VersionStatus.FAILED

    mine = client_for(alice).get(f"/bots/{bot.pk}/")
    text = text_of(mine)
    assert "v1 failed" in text
    assert "Validation failed: the report" in text
    assert "Fault: crashed" in text
    assert "crashed: exit status 1" in text  # the exit cause
    html = unescape(mine.content.decode())
    # The failing request: its fields on one line, its observation folded.
    request = re.search(r'<pre class="request">(.*?)</pre>', html, flags=re.S)
    observation = re.search(r'<pre class="observation">(.*?)</pre>', html, flags=re.S)
    assert request and observation
    assert {**json.loads(request.group(1)), "observation": json.loads(observation.group(1))} == (
        FAILING_REQUEST
    )
    assert "Legal actions: place 1" in text
    assert '{"type": "act' in html  # the reply
    assert CRASH_STDERR in html  # the stderr tail
    assert "Upload a new version" in text

    for visitor in (client_for(), client_for(bob)):
        other = visitor.get(f"/bots/{bot.pk}/")
        assert "v1 failed" in text_of(other)
        assert b"ZeroDivisionError" not in other.content
        assert b"Failing request" not in other.content


def test_a_syntax_error_report_shows_the_file_and_line(
    alice: Any, django_capture_on_commit_callbacks: Any
) -> None:
    client = client_for(alice)
    with django_capture_on_commit_callbacks(execute=True):  # the validation task
        client.post(
            "/upload/",
            {"name": "broken", "visibility": "public", "file": _upload("main.py", b"def f(:\n")},
        )
    bot = Bot.objects.get(name="broken")
    text = text_of(client.get(f"/bots/{bot.pk}/"))
    assert "v1 failed" in text
    assert "main.py, line 1: invalid syntax" in text


# --------------------------------------------------------------------------- match page


def test_the_match_page_shows_results_and_embeds_the_log_for_the_replay(
    ladder: Any, alice: Any, bob: Any
) -> None:
    shark = BotVersionFactory(bot=BotFactory(owner=alice, name="shark"))
    turtle = BotVersionFactory(bot=BotFactory(owner=bob, name="turtle"))
    match, log = play_match(ladder, [shark, turtle], 11)

    response = client_for().get(f"/matches/{match.pk}/")

    assert response.status_code == 200
    text = text_of(response)
    result = {r["seat"]: r for r in log["events"][-1]["result"]}
    for seat, name, owner in ((0, "shark", "alice"), (1, "turtle", "bob")):
        money = f"${result[seat]['money']:,}"
        assert re.search(rf"{result[seat]['rank']} seat {seat} {name} v1 {owner} \{money}", text)
    assert "1500 → " in text  # rated: Elo before and after
    data = replay_data(response)
    assert data["events"] == log["events"]
    assert data["players"] == [
        {"seat": 0, "name": "shark", "version": 1, "owner": "alice", "house": False},
        {"seat": 1, "name": "turtle", "version": 1, "owner": "bob", "house": False},
    ]
    assert b"web/replay.js" in response.content


def test_a_seats_stderr_is_shown_to_its_owner_only(ladder: Any, alice: Any, bob: Any) -> None:
    shark = BotVersionFactory(bot=BotFactory(owner=alice, name="shark"))
    turtle = BotVersionFactory(bot=BotFactory(owner=bob, name="turtle"))
    referee = referee_section(2, stderr={0: "shark thinks: place 6\n", 1: "turtle secret\n"})
    match, _ = play_match(ladder, [shark, turtle], 5, referee=referee)

    alices = client_for(alice).get(f"/matches/{match.pk}/").content
    assert b"shark thinks: place 6" in alices
    assert b"turtle secret" not in alices
    bobs = client_for(bob).get(f"/matches/{match.pk}/").content
    assert b"turtle secret" in bobs and b"shark thinks" not in bobs
    anonymous = client_for().get(f"/matches/{match.pk}/").content
    assert b"turtle secret" not in anonymous and b"shark thinks" not in anonymous
    assert b"stderr" not in replay_data_bytes(anonymous)


def replay_data_bytes(content: bytes) -> bytes:
    found = re.search(rb'<script id="replay-data".*?</script>', content, flags=re.S)
    assert found
    return found.group(0)


def test_the_match_page_shows_the_seed_only_once_the_match_finished(
    ladder: Any, alice: Any, bob: Any, carol: Any
) -> None:
    shark = BotVersionFactory(bot=BotFactory(owner=alice, name="shark"))
    turtle = BotVersionFactory(bot=BotFactory(owner=bob, name="turtle"))
    live = MatchFactory(ladder=ladder, status=MatchStatus.RUNNING, seed=424242)
    for seat, version in enumerate([shark, turtle]):
        ParticipantFactory(match=live, seat=seat, bot_version=version)
    played, _ = play_match(ladder, [shark, turtle], 11)

    for who in (None, alice, carol):
        page = client_for(who).get(f"/matches/{live.pk}/")
        assert page.status_code == 200 and "424242" not in text_of(page)
        assert "seed" not in text_of(page)
    assert "seed 11" in text_of(client_for().get(f"/matches/{played.pk}/"))


def test_a_match_with_someone_elses_private_bot_is_hidden(
    ladder: Any, alice: Any, bob: Any
) -> None:
    secret = BotVersionFactory(
        bot=BotFactory(owner=alice, name="secret", visibility=Visibility.PRIVATE)
    )
    turtle = BotVersionFactory(bot=BotFactory(owner=bob, name="turtle"))
    match, _ = play_match(ladder, [secret, turtle], 3)
    assert client_for().get(f"/matches/{match.pk}/").status_code == 404
    assert client_for(bob).get(f"/matches/{match.pk}/").status_code == 404
    assert client_for(alice).get(f"/matches/{match.pk}/").status_code == 200
    # Nor does it show on turtle's page to others.
    assert (
        f"/matches/{match.pk}/".encode() not in client_for().get(f"/bots/{turtle.bot_id}/").content
    )


def test_the_match_page_costs_a_bounded_number_of_queries(
    alice: Any, django_assert_max_num_queries: Any
) -> None:
    ladder = LadderFactory(slug="boulevard-4", rules="boulevard", seats=4, options={})
    versions = [BotVersionFactory(bot=BotFactory(owner=alice)) for _ in range(4)]
    match, _ = play_match(ladder, versions, 2)
    client = client_for(alice)
    # session, user, the private versions hidden from the user, match + ladder, its seats,
    # its log (a row of the database storage)
    with django_assert_max_num_queries(6):
        response = client.get(f"/matches/{match.pk}/")
    assert len(replay_data(response)["players"]) == 4


# --------------------------------------------------------------------------- upload


def _upload(name: str, content: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, content, content_type="application/octet-stream")


def _zip(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_uploading_needs_a_login() -> None:
    response = client_for().get("/upload/")
    assert response.status_code == 302
    assert response["Location"] == "/login/?next=/upload/"


def test_a_good_upload_creates_the_bot_and_shows_its_version(alice: Any) -> None:
    client = client_for(alice)
    # Validation (a sandboxed game) is queued on commit: the browser test runs it.
    response = client.post(
        "/upload/",
        {"name": "shark", "visibility": "public", "file": _upload("shark.py", GOOD_BOT)},
    )
    bot = Bot.objects.get(owner=alice, name="shark")
    assert response.status_code == 302 and response["Location"] == f"/bots/{bot.pk}/"
    text = text_of(client.get(response["Location"]))
    assert "Uploaded shark version 1 (pending)." in text
    assert "v1 pending" in text

    again = client.post(
        "/upload/", {"name": "SHARK", "file": _upload("b.zip", _zip({"main.py": GOOD_BOT}))}
    )
    text = text_of(client.get(again["Location"]))
    assert "Uploaded shark version 2 (pending)." in text
    assert "v2 pending" in text and "v1 pending" in text
    assert sorted(bot.versions.values_list("number", "code_format")) == [(1, "file"), (2, "zip")]


@pytest.mark.parametrize(
    ("filename", "content", "message"),
    [
        (
            "shark.txt",
            b"print(1)",
            "'shark.txt' is no bot file the arena knows: upload one source file (.c, .cc, "
            ".cpp, .cxx, .go, .java, .js, .py, .rs), or a .zip with its main file (main.py, "
            "main.js, main.c, main.cpp, main.java, main.rs, main.go) at the top; or choose the "
            "runtime.",
        ),
        (
            "shark.py",
            b"# caf\xe9\n",
            "'shark.py' is not UTF-8 text (byte 5, line 1): save shark.py with UTF-8 encoding.",
        ),
        (
            "shark.zip",
            _zip({"shark/main.py": GOOD_BOT}),
            "the archive has no main file (main.py, main.js, main.c, main.cpp, main.java, "
            "main.rs, main.go) at its top level: the arena starts the bot there. It has "
            "'shark/main.py': zip the contents of the folder 'shark', not the folder itself.",
        ),
        ("shark.zip", b"PK\x03\x04 not a zip", "'shark.zip' is not a readable .zip archive"),
    ],
)
def test_a_bad_upload_shows_the_specific_error(
    alice: Any, filename: str, content: bytes, message: str
) -> None:
    response = client_for(alice).post(
        "/upload/", {"name": "shark", "visibility": "public", "file": _upload(filename, content)}
    )
    assert response.status_code == 200
    assert message in unescape(response.content.decode())
    assert not Bot.objects.filter(name="shark").exists()


def test_a_bad_bot_name_is_reported_on_the_name(alice: Any) -> None:
    response = client_for(alice).post(
        "/upload/", {"name": "no spaces", "visibility": "public", "file": _upload("a.py", GOOD_BOT)}
    )
    assert "Use 1-40 letters, digits" in unescape(response.content.decode())


def test_the_upload_form_offers_the_owners_bots(alice: Any) -> None:
    BotFactory(owner=alice, name="shark")
    response = client_for(alice).get("/upload/?bot=shark")
    html = response.content.decode()
    assert '<option value="shark">' in html  # the name field's suggestions
    assert re.search(r'<input type="text" name="name" value="shark"', html)  # prefilled


# --------------------------------------------------------------------------- accounts


def test_signing_up_creates_the_player_and_logs_in() -> None:
    client = client_for()
    response = client.post(
        "/signup/",
        {
            "username": "dora",
            "email": "dora@example.org",
            "password1": "a long passphrase 42",
            "password2": "a long passphrase 42",
        },
    )
    assert response.status_code == 302 and response["Location"] == "/upload/"
    dora = User.objects.get(username="dora")
    assert dora.profile.display_name == "dora"
    assert client.get("/upload/").status_code == 200


def test_sign_up_errors_are_shown(alice: Any) -> None:
    mismatch = client_for().post(
        "/signup/",
        {"username": "dora", "password1": "a long passphrase 42", "password2": "other"},
    )
    assert "The two passwords differ." in text_of(mismatch)
    weak = client_for().post(
        "/signup/", {"username": "dora", "password1": "123", "password2": "123"}
    )
    assert "This password is too short." in text_of(weak)
    taken = client_for().post(
        "/signup/",
        {
            "username": "alice",
            "password1": "a long passphrase 42",
            "password2": "a long passphrase 42",
        },
    )
    assert "the username 'alice' is taken: choose another." in text_of(taken)
    assert not User.objects.filter(username="dora").exists()


def test_login_and_logout(alice: Any) -> None:
    client = client_for()
    response = client.post(
        "/login/", {"username": "alice", "password": "correct horse battery staple"}
    )
    assert response.status_code == 302 and response["Location"] == "/"
    assert "Log out" in text_of(client.get("/"))
    assert client.post("/logout/").status_code == 302
    assert "Log in" in text_of(client.get("/"))


# --------------------------------------------------------------------------- player page


def test_the_player_page_lists_the_bots_the_visitor_may_see(
    ladder: Any, alice: Any, bob: Any
) -> None:
    shark = BotVersionFactory(bot=BotFactory(owner=alice, name="shark"))
    RatingFactory(ladder=ladder, bot_version=shark, rating=1600, rated_matches=40)
    BotVersionFactory(bot=BotFactory(owner=alice, name="secret", visibility=Visibility.PRIVATE))

    public = text_of(client_for(bob).get("/players/alice/"))
    assert "shark public 1 v1 Classic, 2 seats: 1600" in public
    assert "secret" not in public
    own = text_of(client_for(alice).get("/players/alice/"))
    assert "secret private" in own and "Upload a bot" in own
    assert client_for().get("/players/nobody/").status_code == 404


def test_home_and_player_pages_cost_a_bounded_number_of_queries(
    ladder: Any, alice: Any, django_assert_max_num_queries: Any
) -> None:
    for i in range(12):
        version = BotVersionFactory(bot=BotFactory(owner=alice, name=f"shark{i}"))
        RatingFactory(ladder=ladder, bot_version=version)
    client = client_for()
    # The private versions hidden, matches in play and results (+ their seats), the
    # ladders, the competitions, each ladder's count and leaders (test_web_home.py).
    with django_assert_max_num_queries(9):
        client.get("/")
    with django_assert_max_num_queries(3):  # player + profile, bots, their ratings
        response = client.get("/players/alice/")
    assert response.content.count(b'href="/bots/') == 12


# --------------------------------------------------------------------------- helpers


def test_sparkline_scales_values_into_the_box() -> None:
    line = charts.sparkline([1500, 1520, 1510], width=100, height=20, pad=0)
    assert line is not None
    assert line.points == "0.0,20.0 50.0,0.0 100.0,10.0"
    assert line.trend == "up"
    assert charts.sparkline([1500]) is None
    flat = charts.sparkline([1500, 1500])
    assert flat is not None and flat.trend == "flat"


def test_line_chart_has_round_ticks_and_version_marks() -> None:
    chart = charts.line_chart([1500, 1540, 1480, 1610], marks=[(0, "v1"), (2, "v2")])
    assert chart is not None
    labels = [tick.label for tick in chart.y_ticks]
    assert labels[0] <= "1480" and labels[-1] >= "1610"
    assert all(int(label) % 10 == 0 for label in labels)
    assert [mark.label for mark in chart.marks] == ["v1", "v2"]
    assert chart.end_label == "1610"
    assert chart.bands == []  # no deviations: no band


def _band(polygon: str) -> list[tuple[float, float]]:
    return [(float(x), float(y)) for x, y in (p.split(",") for p in polygon.split())]


def test_line_chart_draws_the_deviation_as_a_band_clipped_to_the_plot() -> None:
    values = [1500.0, 1540.0, 1480.0, 1610.0, 1600.0]
    # The first change was made before deviations were kept: no band there.
    chart = charts.line_chart(values, deviations=[None, 200.0, 60.0, 40.0, 30.0])
    assert chart is not None
    (band,) = chart.bands
    points = _band(band)
    upper, lower = points[:4], points[4:][::-1]
    line = _band(chart.points)
    # The band spans the points with a deviation, above and below the line at each.
    assert [x for x, _ in upper] == [x for x, _ in lower] == [x for x, _ in line[1:]]
    assert all(u <= y <= d for (_, u), (_, y), (_, d) in zip(upper, line[1:], lower, strict=True))
    # 1540 ± 200 runs past the axis (1450-1650): clipped to the plot's edges.
    assert (upper[0][1], lower[0][1]) == (chart.top, chart.bottom)
    # 1600 ± 30: 60 Elo of a 200 Elo axis, the same share of the plot's height.
    assert lower[-1][1] - upper[-1][1] == pytest.approx(0.3 * (chart.bottom - chart.top))
    # A gap in the deviations splits the band.
    split = charts.line_chart(values, deviations=[50.0, 50.0, None, 40.0, 30.0])
    assert split is not None and len(split.bands) == 2


@pytest.mark.parametrize(
    ("fault", "cause"),
    [
        (
            {"cause": "crashed", "signal": 9, "exit_code": None},
            "crashed: killed by signal 9 (SIGKILL)",
        ),
        ({"cause": "crashed", "signal": None, "exit_code": 2}, "crashed: exit status 2"),
        ({"cause": "timeout", "elapsed_ms": 1001.4}, "timeout after 1001 ms"),
        ({"cause": "illegal_action"}, "illegal action"),
    ],
)
def test_the_exit_cause_of_a_fault(fault: dict[str, Any], cause: str) -> None:
    game = {"passed": False, "fault": {"message": "m", **fault}}
    (check,) = presenters.version_report({"games": {"classic-4": game}}).games
    assert check.fault is not None and check.fault.exit_cause == cause
    # A report of the first validator (one game, its fault at the top) reads the same.
    (old,) = presenters.version_report({"fault": {"message": "m", **fault}}).games
    assert old.fault is not None and old.fault.exit_cause == cause
