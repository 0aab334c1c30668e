"""Duplicate deals on a ladder: whole deals queued, rated once on money totals, void deals.

A duplicate ladder plays each seed once per seat rotation by the same bots
and rates the deal once, when its last game finishes. Games are finished
here through the services with chosen money (no referee), and ratings are
applied as the rating task would; the end-to-end test at the bottom plays a
deal on a real Celery worker.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from django.contrib import admin
from django.db import IntegrityError, transaction
from django.test import Client, RequestFactory
from django.utils import timezone
from rest_framework.test import APIClient

from arena.bots.models import BotVersion
from arena.ladders.admin import LadderAdmin
from arena.ladders.deals import DealTotal, deal_ranks
from arena.ladders.elo import SeatRating, k_factor, seat_changes
from arena.ladders.flows import ladder_create
from arena.ladders.matchmaking import pick_fits
from arena.ladders.models import Ladder, Rating, RatingChange
from arena.ladders.selectors import ladder_rated_units, matchmaking_candidates
from arena.ladders.services import (
    LadderInUseError,
    ladder_change_duplicate_deals,
    ladder_fill_queue,
    ratings_apply,
)
from arena.matches.models import ForfeitCause, Match, MatchStatus, Participant
from arena.matches.outcomes import SeatOutcome
from arena.matches.services import (
    match_cancel,
    match_create,
    match_create_deal,
    match_fail,
    match_finish,
    match_start,
)
from tests.platform.conftest import needs_postgres
from tests.platform.factories import BotFactory, BotVersionFactory, MatchFactory, RatingFactory
from tests.platform.ladders.test_match_pipeline import house_bot
from tests.platform.ladders.test_ratings import _in_threads
from tests.platform.scenes import enter, never_run, publish_match, publish_matches
from tests.platform.worker import needs_redis, needs_shared_database, redis_worker, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


def shark_and_turtle(alice: Any, bob: Any, ladder: Ladder) -> tuple[Any, Any]:
    """Alice's shark and Bob's turtle: one version each, entered and qualified on ``ladder``."""
    pair = (
        BotVersionFactory(bot=BotFactory(owner=alice, name="shark")),
        BotVersionFactory(bot=BotFactory(owner=bob, name="turtle")),
    )
    for version in pair:
        enter(version, ladder)
    return pair


@pytest.fixture(autouse=True)
def _no_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """Queued matches are not played in this process (tasks are eager in tests)."""
    from arena.ladders import tasks

    never_run(monkeypatch, tasks.match_run)


def duplicate(seats: int, slug: str | None = None, deals_per_series: int = 1) -> Ladder:
    """A duplicate ladder; by default a series is one deal (a pick is one deal)."""
    return ladder_create(
        slug=slug or f"classic-{seats}-duplicate",
        name=f"Classic {seats}, duplicate",
        rules="classic",
        seats=seats,
        duplicate_deals=True,
        series_games=seats * deals_per_series,
    )


def bots(count: int, ladder: Ladder | None = None) -> list[BotVersion]:
    """Active versions of public bots; entered and qualified on ``ladder`` if given."""
    versions = [BotVersionFactory(bot=BotFactory(name=f"bot{i:02d}")) for i in range(count)]
    for version in versions if ladder is not None else []:
        enter(version, ladder)
    return versions


def seated(match: Match) -> list[int]:
    """The version ids of a match in seat order."""
    return list(match.participants.order_by("seat").values_list("bot_version_id", flat=True))


def finish(
    match: Match,
    money: Mapping[int, int],
    *,
    at: datetime | None = None,
    forfeits: Sequence[int] = (),
) -> Match:
    """Finish ``match`` with ``money`` per version id; ranks by money, forfeits last."""
    versions = seated(match)
    keys = [(v not in forfeits, money[v]) for v in versions]
    outcomes = [
        SeatOutcome(
            seat=seat,
            money=money[version],
            rank=1 + sum(other > keys[seat] for other in keys),
            forfeit=ForfeitCause.CRASHED if version in forfeits else None,
        )
        for seat, version in enumerate(versions)
    ]
    running = match if match.status == MatchStatus.RUNNING else match_start(match=match)
    finished = match_finish(match=running, outcomes=outcomes, game_log=b"{}")
    if at is not None:
        Match.objects.filter(pk=match.pk).update(finished_at=at)
        finished.refresh_from_db()
    return finished


def rating_of(version: BotVersion, ladder: Ladder) -> Rating:
    return Rating.objects.get(bot_version=version, ladder=ladder)


# --------------------------------------------------------------------------- the option


def test_a_new_ladder_plays_duplicate_deals_on_2_seats_unless_told() -> None:
    made = {
        (seats, said): ladder_create(
            slug=f"classic-{seats}-{said}",
            name="Classic",
            rules="classic",
            seats=seats,
            duplicate_deals=said,
        ).duplicate_deals
        for seats in (2, 3)
        for said in (None, True, False)
    }
    assert made == {
        (2, None): True,
        (2, True): True,
        (2, False): False,
        (3, None): False,
        (3, True): True,
        (3, False): False,
    }


def test_duplicate_deals_change_only_while_the_ladder_has_no_match() -> None:
    ladder = ladder_create(
        slug="classic-2", name="Classic", rules="classic", seats=2, duplicate_deals=False
    )
    ladder = ladder_change_duplicate_deals(ladder=ladder, duplicate_deals=True)
    assert Ladder.objects.get(pk=ladder.pk).duplicate_deals is True

    MatchFactory(ladder=ladder)
    with pytest.raises(LadderInUseError) as refused:
        ladder_change_duplicate_deals(ladder=ladder, duplicate_deals=False)
    assert refused.value.message == (
        "Classic already has matches: its ratings cannot mix single games and duplicate "
        "deals; create a new ladder to play single games."
    )
    assert Ladder.objects.get(pk=ladder.pk).duplicate_deals is True
    # Asking for what it already is changes nothing and is no error.
    assert ladder_change_duplicate_deals(ladder=ladder, duplicate_deals=True).duplicate_deals


def test_the_admin_freezes_duplicate_deals_once_the_ladder_has_matches(carol: Any) -> None:
    ladder = duplicate(2)
    request = RequestFactory().get("/admin/")
    request.user = carol
    ladder_admin = LadderAdmin(Ladder, admin.site)
    assert "duplicate_deals" not in ladder_admin.get_readonly_fields(request, ladder)

    MatchFactory(ladder=ladder)
    assert "duplicate_deals" in ladder_admin.get_readonly_fields(request, ladder)


def test_a_new_2_seat_ladder_made_over_the_api_plays_duplicate_deals_unless_told(
    carol: Any,
) -> None:
    api = APIClient()
    api.force_authenticate(carol)
    body = {"name": "Classic", "rules": "classic"}
    made = {
        slug: api.post("/api/ladders/", {**body, "slug": slug, **extra}, format="json")
        for slug, extra in (
            ("two", {"seats": 2}),
            ("two-single", {"seats": 2, "duplicate_deals": False}),
            ("four", {"seats": 4}),
            ("four-deals", {"seats": 4, "duplicate_deals": True}),
            ("two-null", {"seats": 2, "duplicate_deals": None}),
        )
    }
    # A form post leaves the boolean out: by the seats too, not False.
    made["two-form"] = api.post("/api/ladders/", {**body, "slug": "two-form", "seats": 2})
    assert {slug: response.status_code for slug, response in made.items()} == dict.fromkeys(
        made, 201
    )
    assert dict(Ladder.objects.values_list("slug", "duplicate_deals")) == {
        "two": True,
        "two-single": False,
        "four": False,
        "four-deals": True,
        "two-null": True,
        "two-form": True,
    }
    assert made["two-form"].json()["duplicate_deals"] is True


def test_carol_creates_a_duplicate_ladder_in_the_admin(carol: Any, house: Any) -> None:
    greedy = BotFactory(owner=house, name="greedy")
    data = {
        "slug": "boulevard-3-duplicate",
        "name": "Boulevard 3, duplicate",
        "rules": "boulevard",
        "seats": 3,
        "options": "{}",
        "time_per_decision_ms": 1000,
        "time_bank_ms": 10000,
        "memory_mb": 256,
        "series_games": 12,
        "duplicate_deals": True,
        "is_open": True,
    }
    client = Client()
    client.force_login(carol)

    response = client.post("/admin/ladders/ladder/add/", data)

    assert response.status_code == 302, response.content.decode()[-2000:]
    ladder = Ladder.objects.get(slug="boulevard-3-duplicate")
    assert ladder.duplicate_deals is True
    # The house bots enter it at once, as they do a ladder made by the service.
    assert list(ladder.entries.values_list("bot", flat=True)) == [greedy.pk]


# --------------------------------------------------------------------------- creating deals


def test_a_deal_is_one_seed_played_once_per_rotation_every_bot_at_every_seat() -> None:
    ladder = duplicate(3)
    a, b, c = bots(3)

    games = publish_matches(
        match_create_deal(ladder_id=ladder.pk, game=ladder.game, versions=[a, b, c], seed=77)
    )

    first = games[0]
    assert [(g.deal_id, g.deal_game, g.seed) for g in games] == [
        (first.pk, 1, 77),
        (first.pk, 2, 77),
        (first.pk, 3, 77),
    ]
    stored = Match.objects.filter(deal=first).order_by("deal_game")
    assert [seated(g) for g in stored] == [
        [a.pk, b.pk, c.pk],
        [c.pk, a.pk, b.pk],
        [b.pk, c.pk, a.pk],
    ]
    assert all(g.status == MatchStatus.QUEUED and g.rated for g in stored)


def test_the_database_refuses_a_game_number_without_its_deal() -> None:
    match = MatchFactory(ladder=duplicate(2))
    with pytest.raises(IntegrityError), transaction.atomic():
        Match.objects.filter(pk=match.pk).update(deal_game=2)
    with pytest.raises(IntegrityError), transaction.atomic():
        # Game 1 is the deal's first match itself.
        Match.objects.filter(pk=match.pk).update(
            deal=MatchFactory(ladder=match.ladder), deal_game=1
        )


@pytest.mark.parametrize(
    ("target", "queued", "size", "picks"),
    [
        (8, 0, 1, 8),  # single games fill the room
        (8, 3, 1, 5),
        (5, 0, 2, 2),  # two deals of 2 fit under 5, a third would be half queued
        (5, 3, 2, 1),
        (5, 4, 2, 0),
        (3, 0, 4, 1),  # a deal larger than the target goes on an empty queue
        (3, 1, 4, 0),
        (3, 5, 1, 0),
    ],
)
def test_the_queue_takes_whole_picks_only(target: int, queued: int, size: int, picks: int) -> None:
    taken = 0
    while queued < target and pick_fits(target=target, queued=queued, size=size):
        taken += 1
        queued += size
    assert taken == picks


def test_matchmaking_queues_complete_deals_with_one_seed_each(settings: Any) -> None:
    settings.ARENA_LADDER_QUEUE_TARGET = 6
    settings.ARENA_BOT_MAX_QUEUED = 2
    ladder = duplicate(3)
    bots(6, ladder)

    created = publish_matches(ladder_fill_queue(ladder=ladder, rng=random.Random(5)))

    assert len(created) == 6
    deals: dict[int, list[Match]] = {}
    for match in Match.objects.order_by("deal_game"):
        assert match.deal_id is not None
        deals.setdefault(match.deal_id, []).append(match)
    assert len(deals) == 2
    for first_id, games in deals.items():
        assert [g.deal_game for g in games] == [1, 2, 3] and games[0].pk == first_id
        assert len({g.seed for g in games}) == 1
        seatings = [seated(g) for g in games]
        # The same bots in every game, each at every seat exactly once.
        assert len({frozenset(s) for s in seatings}) == 1
        for seat in range(3):
            assert sorted(s[seat] for s in seatings) == sorted(seatings[0])
    assert publish_matches(ladder_fill_queue(ladder=ladder)) == []  # full


def test_matchmaking_never_queues_half_a_deal_near_the_target(settings: Any) -> None:
    settings.ARENA_LADDER_QUEUE_TARGET = 5
    settings.ARENA_BOT_MAX_QUEUED = 5
    ladder = duplicate(2)
    bots(6, ladder)

    assert (
        len(publish_matches(ladder_fill_queue(ladder=ladder))) == 4
    )  # two deals; a third would not fit
    assert publish_matches(ladder_fill_queue(ladder=ladder)) == []

    match_start(match=Match.objects.filter(status=MatchStatus.QUEUED).first())
    assert len(publish_matches(ladder_fill_queue(ladder=ladder))) == 2  # room for one deal again
    per_deal = Counter(Match.objects.values_list("deal_id", flat=True))
    assert sorted(per_deal.values()) == [2, 2, 2]


def test_a_deal_larger_than_the_queue_target_is_queued_whole_on_an_empty_queue(
    settings: Any,
) -> None:
    settings.ARENA_LADDER_QUEUE_TARGET = 3
    ladder = duplicate(4)
    bots(8, ladder)

    assert len(publish_matches(ladder_fill_queue(ladder=ladder))) == 4
    assert publish_matches(ladder_fill_queue(ladder=ladder)) == []


def test_a_deal_counts_as_one_game_and_one_queued_match_of_each_bot(settings: Any) -> None:
    settings.ARENA_LADDER_QUEUE_TARGET = 20
    settings.ARENA_BOT_MAX_QUEUED = 1
    ladder = duplicate(2)
    versions = bots(4, ladder)

    # Each bot may have one deal queued: two deals of two games, not one.
    assert len(publish_matches(ladder_fill_queue(ladder=ladder))) == 4

    counts = {c.version_id: (c.games, c.queued) for c in matchmaking_candidates(ladder=ladder)}
    assert counts == {v.pk: (1, 1) for v in versions}
    assert Counter(Participant.objects.values_list("bot_version_id", flat=True)) == {
        v.pk: 2 for v in versions
    }


def test_a_simulated_duplicate_ladder_keeps_every_bot_within_1_2_times_the_deals(
    settings: Any,
) -> None:
    """8 bots on a 3-seat duplicate ladder, 40 rounds of fill, finish and rate."""
    settings.ARENA_LADDER_QUEUE_TARGET = 6
    settings.ARENA_BOT_MAX_QUEUED = 1
    ladder = duplicate(3)
    versions = bots(8, ladder)
    strength = {v.pk: i * 100.0 for i, v in enumerate(versions)}
    rng = random.Random(2025)
    for _ in range(40):
        for match in publish_matches(ladder_fill_queue(ladder=ladder, rng=rng)):
            money = {v: round(strength[v] + rng.gauss(0, 200)) for v in seated(match)}
            finish(match, money)
            ratings_apply(match=match)  # as the rating task would

    deals = dict(ladder.ratings.values_list("bot_version_id", "rated_matches"))
    assert len(deals) == 8 and min(deals.values()) >= 20
    assert max(deals.values()) / min(deals.values()) <= 1.2, sorted(deals.values())
    assert RatingChange.objects.values("match").distinct().count() == Match.objects.count() // 3
    ratings = dict(ladder.ratings.values_list("bot_version_id", "rating"))
    assert ratings[versions[-1].pk] > ratings[versions[0].pk]


# --------------------------------------------------------------------------- rating deals


def test_deal_ranks_go_by_money_ties_share_and_forfeits_sit_below() -> None:
    totals = [
        DealTotal(1, 30, False),
        DealTotal(2, 50, False),
        DealTotal(3, 30, False),
        DealTotal(4, 90, True),
    ]
    assert deal_ranks(totals) == [2, 1, 2, 4]


def test_a_deal_is_rated_once_on_money_totals_when_its_last_game_finishes(
    alice: Any, bob: Any, house: Any
) -> None:
    ladder = duplicate(3)
    a, b = shark_and_turtle(alice, bob, ladder)
    c = BotVersionFactory(bot=BotFactory(owner=house, name="greedy"))
    RatingFactory(ladder=ladder, bot_version=a, rating=1600, rated_matches=40)
    RatingFactory(ladder=ladder, bot_version=c, rating=1450, rated_matches=10)
    games = publish_matches(
        match_create_deal(ladder_id=ladder.pk, game=ladder.game, versions=[a, b, c])
    )
    start = timezone.now()
    # By game ranks shark does best (1st, 3rd, 1st), but turtle won the most money.
    money = [
        {a.pk: 10, b.pk: 5, c.pk: 0},
        {a.pk: 0, b.pk: 20, c.pk: 5},
        {a.pk: 12, b.pk: 0, c.pk: 8},
    ]

    finish(games[0], money[0], at=start)
    finish(games[1], money[1], at=start + timedelta(seconds=1))
    # The first games wait for the last one: nothing is rated yet.
    assert ratings_apply(match=games[0]) == []
    assert ratings_apply(match=games[1]) == []
    assert not RatingChange.objects.exists()
    finish(games[2], money[2], at=start + timedelta(seconds=2))

    assert ratings_apply(match=games[2]) == [g.pk for g in games]

    # Totals: turtle 25, shark 22, greedy 13.
    expected = seat_changes(
        [
            SeatRating(a.pk, 1600.0, 2, k_factor(40, 3)),
            SeatRating(b.pk, 1500.0, 1, k_factor(0, 3)),
            SeatRating(c.pk, 1450.0, 3, k_factor(10, 3)),
        ]
    )
    before = {a.pk: 1600.0, b.pk: 1500.0, c.pk: 1450.0}
    for version, change, matches in zip((a, b, c), expected, (41, 1, 11), strict=True):
        rating = rating_of(version, ladder)
        assert rating.rating == pytest.approx(before[version.pk] + change)
        assert rating.rated_matches == matches
        (recorded,) = rating.changes.all()
        assert recorded.match_id == games[0].pk  # the deal's first match
        assert recorded.rating_before == before[version.pk]
        assert recorded.k == k_factor(matches - 1, 3)
    assert expected[1] > 0 > expected[2]
    for game in Match.objects.filter(deal=games[0]):
        assert game.rated_at is not None
        for seat in game.participants.all():
            rating = rating_of(seat.bot_version, ladder)
            assert seat.rating_before == before[seat.bot_version_id]
            assert seat.rating_after == pytest.approx(rating.rating)

    # Applied again, from any of its games: nothing more.
    for game in games:
        assert ratings_apply(match=game) == []
    assert RatingChange.objects.count() == 3
    assert rating_of(a, ladder).rated_matches == 41


def test_equal_totals_share_the_rank_and_a_forfeit_ranks_last(alice: Any, bob: Any) -> None:
    ladder = duplicate(2)
    a, b = shark_and_turtle(alice, bob, ladder)
    tied = publish_matches(
        match_create_deal(ladder_id=ladder.pk, game=ladder.game, versions=[a, b])
    )
    finish(tied[0], {a.pk: 30, b.pk: 10})
    finish(tied[1], {a.pk: 10, b.pk: 30})
    ratings_apply(match=tied[1])
    assert (rating_of(a, ladder).rating, rating_of(b, ladder).rating) == (1500.0, 1500.0)

    # Shark won more money, but crashed in one game: the deal goes to turtle.
    crashed = publish_matches(
        match_create_deal(ladder_id=ladder.pk, game=ladder.game, versions=[a, b])
    )
    finish(crashed[0], {a.pk: 90, b.pk: 10}, forfeits=[a.pk])
    finish(crashed[1], {a.pk: 40, b.pk: 30})
    ratings_apply(match=crashed[1])
    # Each has 1 rated match: K = 700 / 6, half of it won and lost.
    half = k_factor(1) / 2
    ratings = (rating_of(a, ladder).rating, rating_of(b, ladder).rating)
    assert ratings == pytest.approx((1500.0 - half, 1500.0 + half))
    assert rating_of(a, ladder).rated_matches == 2
    # The whole-history refit reads each deal as one unit, ranked as Elo ranked it.
    ladder.refresh_from_db()
    assert ladder.rated_units == 2
    assert sorted(ladder_rated_units(ladder_id=ladder.pk)) == [
        [(a.pk, 1), (b.pk, 1)],
        [(a.pk, 2), (b.pk, 1)],
    ]


def test_deals_are_rated_in_the_order_their_last_games_finished(alice: Any, bob: Any) -> None:
    ladder = duplicate(2)
    a, b = shark_and_turtle(alice, bob, ladder)
    early = publish_matches(
        match_create_deal(ladder_id=ladder.pk, game=ladder.game, versions=[a, b])
    )
    late = publish_matches(
        match_create_deal(ladder_id=ladder.pk, game=ladder.game, versions=[b, a])
    )
    t = timezone.now()
    finish(early[0], {a.pk: 20, b.pk: 0}, at=t)  # shark wins the deal created first...
    finish(late[0], {a.pk: 0, b.pk: 20}, at=t + timedelta(seconds=1))
    finish(late[1], {a.pk: 0, b.pk: 20}, at=t + timedelta(seconds=2))
    finish(early[1], {a.pk: 20, b.pk: 0}, at=t + timedelta(seconds=3))  # ...which ends last

    # The last game's task runs first: it rates the deal that ended earlier first.
    assert ratings_apply(match=early[1]) == [late[0].pk, late[1].pk, early[0].pk, early[1].pk]
    assert ratings_apply(match=late[1]) == []

    history = list(rating_of(a, ladder).changes.order_by("id"))
    assert [change.match_id for change in history] == [late[0].pk, early[0].pk]
    # Shark lost the first rated deal (-70), then beat turtle from 1430 / 1570.
    won = seat_changes(
        [SeatRating("a", 1430.0, 1, k_factor(1)), SeatRating("b", 1570.0, 2, k_factor(1))]
    )[0]
    assert history[1].rating_after == pytest.approx(1430.0 + won)


@pytest.mark.parametrize("ending", ["failed_infra", "cancelled"])
def test_a_deal_with_a_game_that_did_not_finish_is_not_rated_and_holds_nothing_up(
    ending: str, alice: Any, bob: Any, settings: Any
) -> None:
    settings.ARENA_MATCH_MAX_ATTEMPTS = 1
    ladder = duplicate(2)
    a, b = shark_and_turtle(alice, bob, ladder)
    void = publish_matches(
        match_create_deal(ladder_id=ladder.pk, game=ladder.game, versions=[a, b])
    )
    later = publish_matches(
        match_create_deal(ladder_id=ladder.pk, game=ladder.game, versions=[b, a])
    )
    t = timezone.now()
    finish(void[0], {a.pk: 50, b.pk: 0}, at=t)
    if ending == "failed_infra":
        match_fail(match=match_start(match=void[1]), error="sandbox lost")
    else:
        match_cancel(match=void[1])
    assert Match.objects.get(pk=void[1].pk).status == ending
    finish(later[0], {a.pk: 0, b.pk: 10}, at=t + timedelta(seconds=1))
    finish(later[1], {a.pk: 0, b.pk: 10}, at=t + timedelta(seconds=2))

    assert ratings_apply(match=later[1]) == [later[0].pk, later[1].pk]

    assert rating_of(b, ladder).rating == 1570.0 and rating_of(b, ladder).rated_matches == 1
    assert not RatingChange.objects.filter(match=void[0]).exists()
    # The void deal's games count on no rating, so no later pass waits for them.
    assert list(Match.objects.filter(deal=void[0]).values_list("rated", "rated_at")) == [
        (False, None),
        (False, None),
    ]
    assert ratings_apply(match=void[0]) == []
    counts = {c.version_id: c.games for c in matchmaking_candidates(ladder=ladder)}
    assert counts == {a.pk: 1, b.pk: 1}
    void_page = Client().get(f"/matches/{void[0].pk}/").content.decode()
    assert "· unrated" in void_page and "rated on the deal's money totals" not in void_page


def test_a_single_match_on_a_duplicate_ladder_is_rated_as_a_match(alice: Any, bob: Any) -> None:
    """A league's games on a duplicate ladder are single matches, rated one by one."""
    ladder = duplicate(2)
    a, b = shark_and_turtle(alice, bob, ladder)
    match = finish(
        publish_match(match_create(ladder_id=ladder.pk, game=ladder.game, versions=[a, b])),
        {a.pk: 5, b.pk: 9},
    )

    assert ratings_apply(match=match) == [match.pk]
    assert rating_of(b, ladder).rating == 1570.0


@needs_postgres
@pytest.mark.django_db(transaction=True)
def test_two_connections_rating_the_games_of_one_deal_rate_it_once(
    alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.ladders import tasks

    # Committed here: the rating tasks would otherwise run (eagerly) as each game finishes.
    never_run(monkeypatch, tasks.ratings_apply_match)
    ladder = duplicate(2)
    a, b = shark_and_turtle(alice, bob, ladder)
    games = publish_matches(
        match_create_deal(ladder_id=ladder.pk, game=ladder.game, versions=[a, b])
    )
    for game in games:
        finish(game, {a.pk: 10, b.pk: 0})
    assert not RatingChange.objects.exists()

    # Each game's rating task, at once on two connections.
    results = _in_threads(
        lambda: ratings_apply(match=Match.objects.get(pk=games[0].pk)),
        lambda: ratings_apply(match=Match.objects.get(pk=games[1].pk)),
    )

    assert sorted(pk for result in results for pk in result) == [games[0].pk, games[1].pk]
    assert RatingChange.objects.count() == 2
    assert (rating_of(a, ladder).rating, rating_of(a, ladder).rated_matches) == (1570.0, 1)


# --------------------------------------------------------------------------- API and pages


def test_the_api_shows_the_option_and_each_game_s_deal(alice: Any, bob: Any) -> None:
    ladder = duplicate(2)
    plain = ladder_create(
        slug="classic-2", name="Classic", rules="classic", seats=2, duplicate_deals=False
    )
    a, b = shark_and_turtle(alice, bob, ladder)
    games = publish_matches(
        match_create_deal(ladder_id=ladder.pk, game=ladder.game, versions=[a, b])
    )
    single = publish_match(match_create(ladder_id=plain.pk, game=plain.game, versions=[a, b]))
    api = APIClient()

    assert api.get(f"/api/ladders/{ladder.slug}/").json()["duplicate_deals"] is True
    listed = {row["slug"]: row for row in api.get("/api/ladders/").json()["results"]}
    assert listed["classic-2"]["duplicate_deals"] is False
    second = api.get(f"/api/matches/{games[1].pk}/").json()
    assert (second["deal"], second["deal_game"]) == (games[0].pk, 2)
    assert [p["bot"] for p in second["participants"]] == ["turtle", "shark"]
    first = api.get(f"/api/matches/{games[0].pk}/").json()
    assert (first["deal"], first["deal_game"]) == (games[0].pk, 1)
    alone = api.get(f"/api/matches/{single.pk}/").json()
    assert (alone["deal"], alone["deal_game"]) == (None, None)
    schema = api.get("/api/schema/?format=json").json()["components"]["schemas"]
    assert {"deal", "deal_game"} <= set(schema["MatchOutput"]["properties"])
    assert "duplicate_deals" in schema["Ladder"]["properties"]


def test_the_pages_say_the_ladder_plays_duplicate_deals_and_which_game_a_match_is(
    alice: Any, bob: Any
) -> None:
    ladder = duplicate(2)
    a, b = shark_and_turtle(alice, bob, ladder)
    games = publish_matches(
        match_create_deal(ladder_id=ladder.pk, game=ladder.game, versions=[a, b])
    )
    finish(games[0], {a.pk: 10, b.pk: 5})
    finish(games[1], {a.pk: 10, b.pk: 5})
    ratings_apply(match=games[1])
    client = Client()

    page = client.get(f"/ladders/{ladder.slug}/").content.decode()
    assert "Duplicate deals: each deal's seed is played once per seat rotation" in page
    assert "Ratings change once per deal, on the bots' money over the deal." in page
    assert ">Deals</th>" in page
    assert f"game 2 of deal #{games[0].pk}" in page  # the latest matches

    match_page = client.get(f"/matches/{games[1].pk}/").content.decode()
    link = f'game 2 of deal <a href="/matches/{games[0].pk}/">#{games[0].pk}</a>'
    assert link in match_page
    assert "rated on the deal's money totals" in match_page

    plain = ladder_create(
        slug="classic-2", name="Classic", rules="classic", seats=2, duplicate_deals=False
    )
    single = publish_match(match_create(ladder_id=plain.pk, game=plain.game, versions=[a, b]))
    assert "Duplicate deals" not in client.get("/ladders/classic-2/").content.decode()
    assert " of deal " not in client.get(f"/matches/{single.pk}/").content.decode()


def exported_logs(api: APIClient, ladder: Ladder) -> list[bytes]:
    response = api.get(f"/api/ladders/{ladder.slug}/logs/")
    assert response.status_code == 200
    return b"".join(response.streaming_content).splitlines()  # type: ignore[attr-defined]


def test_a_game_s_seed_and_log_stay_sealed_until_its_whole_deal_is_played(
    alice: Any, bob: Any
) -> None:
    """Game 1's log shows the dice of game 2, which deals the same seed."""
    ladder = duplicate(2)
    a, b = shark_and_turtle(alice, bob, ladder)
    games = publish_matches(
        match_create_deal(ladder_id=ladder.pk, game=ladder.game, versions=[a, b], seed=4242)
    )
    finish(games[0], {a.pk: 10, b.pk: 5})
    api, client = APIClient(), Client()

    first = api.get(f"/api/matches/{games[0].pk}/").json()
    assert (first["status"], first["seed"], first["has_log"]) == ("finished", None, False)
    refused = api.get(f"/api/matches/{games[0].pk}/log/")
    assert refused.status_code == 404
    assert refused.json()["detail"] == (
        f"The log of match {games[0].pk} is sealed until the other games dealt by its seed "
        "(its duplicate deal) are played: it shows the dice they will roll."
    )
    assert exported_logs(api, ladder) == []
    page = client.get(f"/matches/{games[0].pk}/").content.decode()
    assert "The replay and the log are sealed until the other games of this deal" in page
    assert "4242" not in page and "Download log" not in page

    running = match_start(match=games[1])  # still to play
    assert api.get(f"/api/matches/{games[0].pk}/").json()["seed"] is None

    finish(running, {a.pk: 10, b.pk: 5})
    for game in games:
        shown = api.get(f"/api/matches/{game.pk}/").json()
        assert (shown["seed"], shown["has_log"]) == (4242, True)
        assert api.get(f"/api/matches/{game.pk}/log/").json() == {}
    assert len(exported_logs(api, ladder)) == 2
    assert "seed 4242" in client.get(f"/matches/{games[0].pk}/").content.decode()


def test_a_void_deal_unseals_its_finished_games(alice: Any, bob: Any) -> None:
    ladder = duplicate(2)
    a, b = shark_and_turtle(alice, bob, ladder)
    games = publish_matches(
        match_create_deal(ladder_id=ladder.pk, game=ladder.game, versions=[a, b], seed=99)
    )
    finish(games[0], {a.pk: 10, b.pk: 5})
    assert Match.objects.get(pk=games[0].pk).sealed

    match_cancel(match=games[1])  # never to be played: its dice are no secret

    assert not Match.objects.get(pk=games[0].pk).sealed
    assert APIClient().get(f"/api/matches/{games[0].pk}/").json()["seed"] == 99


# --------------------------------------------------------------------------- end to end


@needs_shared_database
@needs_redis
@pytest.mark.django_db(transaction=True)
def test_a_worker_plays_a_duplicate_deal_and_it_is_rated_once(
    house: Any, settings: Any, media_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.undo()  # the worker plays the games this time
    settings.ARENA_LADDER_QUEUE_TARGET = 2
    ladder = duplicate(2)
    greedy, rand = house_bot(house, "greedy"), house_bot(house, "random")
    enter(greedy, ladder)
    enter(rand, ladder)

    def rated() -> list[Match] | None:
        games = list(Match.objects.filter(ladder=ladder).order_by("deal_game"))
        if any(g.status in (MatchStatus.FAILED_INFRA, MatchStatus.CANCELLED) for g in games):
            raise AssertionError(f"a game did not finish: {[(g.pk, g.error) for g in games]}")
        return games if games and all(g.rated_at is not None for g in games) else None

    with redis_worker(tmp_path, media_root):
        created = publish_matches(ladder_fill_queue(ladder=ladder))
        assert len(created) == 2
        games = wait_for(rated, timeout=90, what="the worker to play and rate the deal")

    first = games[0]
    assert [(g.deal_id, g.deal_game, g.seed) for g in games] == [
        (first.pk, 1, first.seed),
        (first.pk, 2, first.seed),
    ]
    assert seated(games[1]) == list(reversed(seated(games[0])))
    # One rating change per bot, on the deal's first match, from the money totals.
    assert sorted(RatingChange.objects.values_list("match_id", flat=True)) == [first.pk] * 2
    totals = Counter[int]()
    forfeited: set[int] = set()
    for seat in Participant.objects.filter(match__in=games):
        totals[seat.bot_version_id] += seat.money or 0
        if seat.forfeit:
            forfeited.add(seat.bot_version_id)
    ranks = deal_ranks([DealTotal(v.pk, totals[v.pk], v.pk in forfeited) for v in (greedy, rand)])
    expected = seat_changes(
        [
            SeatRating(v.pk, 1500.0, rank, k_factor(0))
            for v, rank in zip((greedy, rand), ranks, strict=True)
        ]
    )
    for version, change in zip((greedy, rand), expected, strict=True):
        rating = rating_of(version, ladder)
        assert rating.rated_matches == 1
        assert rating.rating == pytest.approx(1500.0 + change)
