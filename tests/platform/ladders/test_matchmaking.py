"""Matchmaking: who seeds, who is drawn, seats, caps, and fairness over a simulated day.

The day is simulated on the real database without playing games: the
scheduler queues matches, the test finishes them through the service with
results following hidden strengths, and ratings are applied as the rating
task would.
"""

from __future__ import annotations

import random
from collections import Counter, deque
from typing import Any

import pytest
from django.conf import settings as django_settings

from arena.bots.models import VersionStatus, Visibility
from arena.ladders.flows import ladder_create
from arena.ladders.matchmaking import (
    DEALS_RATING_WIDTH,
    RATING_WIDTH,
    LadderQueue,
    Pick,
    opponent_weight,
    pick_seating,
    plan_picks,
    rating_width,
    series_units,
)
from arena.ladders.models import Entry, Ladder, Qualification, QualificationStatus, Rating
from arena.ladders.selectors import MatchmakingCandidate
from arena.ladders.services import ladder_fill_queue, ratings_apply
from arena.ladders.tasks import ladders_fill_queues
from arena.matches.models import Match, MatchStatus, Participant
from arena.matches.outcomes import SeatOutcome
from arena.matches.services import match_finish, match_start
from tests.platform.factories import BotFactory, BotVersionFactory, RatingFactory
from tests.platform.scenes import enter, never_run, publish_matches

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


@pytest.fixture(autouse=True)
def _no_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """Queued matches are not played here (tasks are eager in tests)."""
    from arena.ladders import tasks

    never_run(monkeypatch, tasks.match_run)


def candidate(version_id: int, rating: float = 1500, games: int = 0, queued: int = 0) -> Any:
    return MatchmakingCandidate(version_id=version_id, rating=rating, games=games, queued=queued)


def classic(seats: int, series_games: int = 1) -> Ladder:
    """Single games, 2 seats included, by default in series of one (a pick is one match).

    These tests count matches (deals: test_ladder_deals)."""
    return ladder_create(
        slug=f"classic-{seats}",
        name=f"Classic {seats}",
        rules="classic",
        seats=seats,
        series_games=series_games,
        duplicate_deals=False,
    )


def bots(count: int, *ladders: Ladder) -> list[Any]:
    """``count`` active versions of public bots, entered and qualified on ``ladders``."""
    versions = [BotVersionFactory(bot=BotFactory(name=f"bot{i:02d}")) for i in range(count)]
    for version in versions:
        for ladder in ladders:
            enter(version, ladder)
    return versions


# --------------------------------------------------------------------------- the policy


def test_the_candidate_with_the_fewest_games_seeds() -> None:
    pool = [candidate(1, games=9), candidate(2, games=3), candidate(3, games=8)]
    for _ in range(20):
        seating = pick_seating(pool, seats=2, max_queued=2, rng=random.Random())
        assert seating is not None and 2 in {c.version_id for c in seating}


def test_opponents_are_drawn_by_rating_distance_plus_a_uniform_tenth() -> None:
    seed = candidate(0, rating=1500, games=0)
    near, middle, far = (
        candidate(i, rating=r, games=1) for i, r in ((1, 1550), (2, 1800), (3, 9000))
    )
    rng = random.Random(7)
    drawn: Counter[int] = Counter()
    for _ in range(20_000):
        seating = pick_seating([seed, near, middle, far], seats=2, max_queued=2, rng=rng)
        assert seating is not None
        drawn.update(c.version_id for c in seating if c is not seed)
    share = {i: drawn[i] / 20_000 for i in (1, 2, 3)}
    weights = [opponent_weight(1500, c.rating, RATING_WIDTH) for c in (near, middle, far)]
    expected = [0.9 * w / sum(weights) + 0.1 / 3 for w in weights]
    assert share[1] > share[2] > share[3]
    for i, want in zip((1, 2, 3), expected, strict=True):
        assert share[i] == pytest.approx(want, abs=0.015)
    # Only the uniform tenth reaches a bot thousands of points away.
    assert share[3] == pytest.approx(0.1 / 3, abs=0.01)


def test_two_seat_duplicate_deals_draw_nearer_opponents() -> None:
    # A field every 25 Elo up to 600 away on both sides of the seed.
    def fresh() -> list[MatchmakingCandidate]:
        field = [candidate(i, rating=1500 + 25 * (i - 24), games=1) for i in range(49) if i != 24]
        return [candidate(24, rating=1500, games=0), *field]

    rng = random.Random(11)

    def mean_distance(seats: int, duplicate_deals: bool) -> float:
        distances = []
        for _ in range(3_000):
            queue = LadderQueue(
                1, seats, fresh(), queued=0, target=1, duplicate_deals=duplicate_deals
            )
            (pick,) = plan_picks([queue], max_queued=2, house_only_games=0, rng=rng)
            distances += [abs(c.rating - 1500) for c in pick.seating if c.version_id != 24]
        return sum(distances) / len(distances)

    # 50 Elo wide on 2-seat deals, 200 elsewhere (uniform tenth included: about 120
    # against 210-230 Elo).
    assert mean_distance(2, duplicate_deals=True) < 150
    assert mean_distance(2, duplicate_deals=False) > 190
    assert mean_distance(4, duplicate_deals=True) > 190
    assert rating_width(2, duplicate_deals=True) == DEALS_RATING_WIDTH < RATING_WIDTH


def test_the_seed_s_seat_rotates_with_its_games() -> None:
    seats = []
    for games in range(8):
        pool = [candidate(0, games=games), *(candidate(i, games=games + 1) for i in (1, 2, 3))]
        seating = pick_seating(pool, seats=4, max_queued=2, rng=random.Random(games))
        assert seating is not None
        seats.append([c.version_id for c in seating].index(0))
    assert seats == [0, 1, 2, 3, 0, 1, 2, 3]


def test_newcomers_arriving_together_are_placed_against_the_settled_field() -> None:
    # 40 settled bots with about 100 games, 10 newcomers: by the seed's games alone
    # (1.1 x 0 + 1) the newcomers would only meet each other.
    field = [candidate(i, rating=1300 + 10 * i, games=100 + i % 5) for i in range(40)]
    newcomers = [candidate(100 + i) for i in range(10)]
    rng = random.Random(3)
    for _ in range(200):
        seating = pick_seating([*field, *newcomers], seats=4, max_queued=2, rng=rng)
        assert seating is not None
        seed = min(seating, key=lambda c: c.games)
        assert seed.version_id >= 100
        assert sum(c.version_id >= 100 for c in seating) == 1
        for seated in seating:
            seated.games += 1
    # The settled opponents keep their balance: only those within 1.1 x (+1) of the least-played.
    assert max(c.games for c in field) <= 1.1 * min(c.games for c in field) + 2


def test_a_second_wave_of_newcomers_meets_the_field_not_only_the_first_wave() -> None:
    # The first wave just settled (40 games): by the least-played settled bot alone
    # the second wave would meet only the first.
    field = [candidate(i, rating=1300 + 10 * i, games=100 + i % 5) for i in range(40)]
    first = [candidate(50 + i, rating=1500 + 10 * i, games=40) for i in range(10)]
    second = [candidate(100 + i) for i in range(10)]
    rng = random.Random(4)
    met: Counter[str] = Counter()
    for _ in range(100):
        seating = pick_seating([*field, *first, *second], seats=4, max_queued=2, rng=rng)
        assert seating is not None
        assert sum(c.version_id >= 100 for c in seating) == 1
        met.update(
            "first" if 50 <= c.version_id < 100 else "field" for c in seating if c.version_id < 100
        )
        for seated in seating:
            seated.games += 1
    assert met["field"] > 3 * met["first"]


def test_a_young_ladder_s_newcomers_play_each_other() -> None:
    # Only a few settled bots: newcomers are not all sent to them (they would be overplayed).
    settled = [candidate(i, games=40) for i in range(3)]
    newcomers = [candidate(100 + i, games=2) for i in range(10)]
    seating = pick_seating([*settled, *newcomers], seats=2, max_queued=2, rng=random.Random(1))
    assert seating is not None and all(c.version_id >= 100 for c in seating)


def test_a_young_ladder_plays_in_rounds() -> None:
    # Bots with 4 games meet bots with 4, not 5, though the ratio's slack (1.1 x 4 + 1)
    # would let 5 play: a pick would leave a 6 beside the 4s (1.5 times).
    rng = random.Random(5)
    for _ in range(200):
        field = [candidate(i, rating=1500 + 10 * i, games=4 + i % 2) for i in range(20)]
        seating = pick_seating(field, seats=2, max_queued=2, rng=rng)
        assert seating is not None and [c.games for c in seating] == [4, 4]
    # The round's last bot meets the field by rating (the ratio's slack), not whoever
    # comes first among the least-played.
    met: Counter[int] = Counter()
    for _ in range(2_000):
        field = [candidate(i, rating=1500 + 25 * i, games=5) for i in range(1, 20)]
        seating = pick_seating([candidate(0, games=4), *field], seats=2, max_queued=2, rng=rng)
        assert seating is not None
        met.update(c.version_id for c in seating if c.version_id)
    assert met[1] > met[10] > met[19] > 0
    # Settled bots keep the ratio's slack: 100 games meet 111, not 112.
    field = [candidate(0, games=100), *(candidate(i, games=105) for i in range(1, 6))]
    field += [candidate(6, games=111), candidate(7, games=112)]
    met.clear()
    for _ in range(500):
        seating = pick_seating(field, seats=2, max_queued=2, rng=rng)
        assert seating is not None
        met.update(c.version_id for c in seating if c.version_id)
    assert met[6] > 0 and met[7] == 0


def test_a_new_two_seat_deal_ladder_keeps_every_bot_within_1_2_times_the_deals_of_the_others() -> (
    None
):
    """200 new bots of spread ratings, deals planned and finished oldest first.

    The ratio's slack alone let them spread to 1.4 (7 deals against 5)."""
    rng = random.Random(8)
    field = [candidate(i, rating=rng.gauss(1500, 200)) for i in range(200)]
    queue = LadderQueue(
        1, 2, field, queued=0, target=24, pick_size=2, pick_units=1, duplicate_deals=True
    )
    running: deque[Pick] = deque()
    ratios = []
    for _ in range(1_500):  # 15 deals a bot
        running.extend(plan_picks([queue], max_queued=2, house_only_games=0, rng=rng))
        finished = running.popleft()
        queue.queued -= finished.size
        for seated in finished.seating:
            seated.queued -= 1
        least = min(c.games for c in field)
        if least >= 5:
            ratios.append(max(c.games for c in field) / least)
    assert len(ratios) > 500 and max(ratios) <= 1.2


def test_a_series_is_one_game_while_provisional_and_grows_with_the_least_played_bot() -> None:
    # At most a twelfth of the least-played bot's games, up to the ladder's series.
    units = [series_units(12, games) for games in (0, 29, 30, 60, 100, 143, 144, 1000)]
    assert units == [1, 1, 2, 5, 8, 11, 12, 12]
    assert series_units(4, 1000) == 4


def test_a_pick_with_a_provisional_bot_is_one_game_settled_bots_play_the_full_series() -> None:
    def plan(games: list[int]) -> list[tuple[int, int]]:
        field = [candidate(i, games=g) for i, g in enumerate(games)]
        queue = LadderQueue(1, 4, field, queued=0, target=24, pick_size=12, pick_units=12)
        picks = plan_picks([queue], max_queued=1, house_only_games=0, rng=random.Random())
        for pick in picks:
            # Each bot counts the pick's games; the queue its matches.
            assert {c.games for c in pick.seating} == {g + pick.units for g in games}
        assert queue.queued == sum(pick.size for pick in picks)
        return [(pick.units, pick.size) for pick in picks]

    assert plan([200, 200, 200, 200]) == [(12, 12)]
    assert plan([200, 200, 200, 0]) == [(1, 1)]  # a newcomer's first games
    assert plan([200, 200, 200, 60]) == [(5, 5)]


def test_short_picks_fill_the_queue_a_full_series_would_overflow() -> None:
    settled = [candidate(i, games=500) for i in range(4)]
    fresh = [candidate(10 + i) for i in range(8)]
    queue = LadderQueue(1, 2, [*settled, *fresh], queued=20, target=24, pick_size=12, pick_units=12)
    picks = plan_picks([queue], max_queued=1, house_only_games=0, rng=random.Random(2))
    # 4 games of room: single games of the fresh bots go (they seed, with the fewest
    # games), a series of 12 would not fit.
    assert [pick.size for pick in picks] == [1, 1, 1, 1]
    assert all(any(c.version_id >= 10 for c in pick.seating) for pick in picks)


def test_bots_with_enough_queued_matches_sit_out() -> None:
    pool = [candidate(1, queued=2), candidate(2), candidate(3, queued=1)]
    seating = pick_seating(pool, seats=2, max_queued=2, rng=random.Random())
    assert seating is not None and {c.version_id for c in seating} == {2, 3}
    assert pick_seating(pool, seats=3, max_queued=2, rng=random.Random()) is None


# --------------------------------------------------------------------------- on the database


def test_the_queue_is_filled_to_its_target_within_the_per_bot_cap(settings: Any) -> None:
    settings.ARENA_LADDER_QUEUE_TARGET = 5
    settings.ARENA_BOT_MAX_QUEUED = 2
    ladder = classic(2)
    bots(6, ladder)

    assert len(publish_matches(ladder_fill_queue(ladder=ladder))) == 5
    assert publish_matches(ladder_fill_queue(ladder=ladder)) == []  # full
    per_version = Counter(Participant.objects.values_list("bot_version_id", flat=True))
    assert max(per_version.values()) <= 2 and sum(per_version.values()) == 10


# About 120 Elo on average 50 wide, 210 at 200 (the uniform tenth included).
@pytest.mark.parametrize(("duplicate_deals", "low", "high"), [(True, 0, 160), (False, 175, 600)])
def test_a_two_seat_ladder_draws_as_wide_as_its_deals_ask(
    settings: Any, duplicate_deals: bool, low: float, high: float
) -> None:
    # A newcomer at 1500 seeds every pick; the settled field stands every 25 Elo up to
    # 600 away. Duplicate deals draw 50 Elo wide, single games 200 (rating_width).
    settings.ARENA_LADDER_QUEUE_TARGET = 1
    ladder = ladder_create(
        slug="classic-2",
        name="Classic 2",
        rules="classic",
        seats=2,
        series_games=2,
        duplicate_deals=duplicate_deals,
    )
    newcomer, *field = bots(49, ladder)
    for k, version in enumerate(field):
        offset = 25 * (k - 24 + (k >= 24))
        RatingFactory(ladder=ladder, bot_version=version, rating=1500 + offset, rated_matches=100)
    distances = []
    for _ in range(150):
        assert publish_matches(ladder_fill_queue(ladder=ladder))
        seated = Participant.objects.filter(match__ladder=ladder)
        assert seated.filter(bot_version=newcomer).exists()
        (opponent,) = {p.bot_version_id for p in seated if p.bot_version_id != newcomer.pk}
        distances.append(abs(Rating.objects.get(bot_version_id=opponent).rating - 1500))
        Match.objects.filter(ladder=ladder).delete()
    assert low < sum(distances) / len(distances) < high


def test_only_active_versions_of_public_bots_are_scheduled(settings: Any) -> None:
    settings.ARENA_LADDER_QUEUE_TARGET = 10
    ladder = classic(2)
    playing = bots(3, ladder)
    enter(BotVersionFactory(bot=BotFactory(name="secret", visibility=Visibility.PRIVATE)), ladder)
    for status in (VersionStatus.PENDING, VersionStatus.RETIRED, VersionStatus.FAILED):
        enter(BotVersionFactory(bot=BotFactory(name=f"not-{status}"), status=status), ladder)

    publish_matches(ladder_fill_queue(ladder=ladder))

    scheduled = set(Participant.objects.values_list("bot_version_id", flat=True))
    assert scheduled == {v.pk for v in playing}


def test_only_bots_entered_and_qualified_on_the_ladder_are_scheduled(settings: Any) -> None:
    settings.ARENA_LADDER_QUEUE_TARGET = 10
    ladder, other = classic(2), classic(4)
    playing = bots(3, ladder)
    bots_elsewhere = [BotVersionFactory(bot=BotFactory(name="elsewhere"))]
    enter(bots_elsewhere[0], other)  # entered on another ladder only
    failed = BotVersionFactory(bot=BotFactory(name="failed-here"))
    enter(failed, ladder)
    Qualification.objects.filter(bot_version=failed).update(status=QualificationStatus.FAILED)
    withdrawn = BotVersionFactory(bot=BotFactory(name="withdrawn"))
    enter(withdrawn, ladder)
    Entry.objects.filter(bot=withdrawn.bot).delete()  # qualified, then left the ladder

    publish_matches(ladder_fill_queue(ladder=ladder))

    scheduled = set(Participant.objects.values_list("bot_version_id", flat=True))
    assert scheduled == {v.pk for v in playing}


def test_house_bots_alone_play_until_calibrated_then_rest(
    house: Any, alice: Any, settings: Any
) -> None:
    settings.ARENA_HOUSE_ONLY_GAMES = 2
    settings.ARENA_BOT_MAX_QUEUED = 10
    settings.ARENA_LADDER_QUEUE_TARGET = 10
    ladder = classic(2)
    for name in ("greedy", "random", "montecarlo"):
        enter(BotVersionFactory(bot=BotFactory(owner=house, name=name)), ladder)
    queued = publish_matches(ladder_fill_queue(ladder=ladder))
    # A fresh platform's house bots play at once, each until it has 2 games.
    assert queued
    seats = Counter(Participant.objects.values_list("bot_version_id", flat=True))
    assert len(seats) == 3 and min(seats.values()) >= 2
    assert publish_matches(ladder_fill_queue(ladder=ladder)) == []

    enter(BotVersionFactory(bot=BotFactory(owner=alice, name="shark")), ladder)
    assert publish_matches(ladder_fill_queue(ladder=ladder)) != []


def test_beat_fills_every_open_ladder(settings: Any) -> None:
    settings.ARENA_LADDER_QUEUE_TARGET = 2
    open_ladder, closed = classic(2), classic(4)
    Ladder.objects.filter(pk=closed.pk).update(is_open=False)
    bots(8, open_ladder, closed)

    assert ladders_fill_queues() == 2
    assert set(Match.objects.values_list("ladder_id", flat=True)) == {open_ladder.pk}
    schedule = django_settings.CELERY_BEAT_SCHEDULE["fill-ladder-queues"]
    assert schedule["task"] == ladders_fill_queues.name


def test_a_simulated_day_keeps_every_bot_within_1_2_times_the_games_of_the_others(
    settings: Any,
) -> None:
    """10 bots of spread strengths on a 4-seat ladder, 50 rounds of fill-and-finish."""
    settings.ARENA_LADDER_QUEUE_TARGET = 3
    settings.ARENA_BOT_MAX_QUEUED = 2
    ladder = classic(4)
    versions = bots(10, ladder)
    strength = {v.pk: i * 80.0 for i, v in enumerate(versions)}  # ratings spread ~700 points
    rng = random.Random(2024)
    ratios = []
    for _ in range(50):
        for match in publish_matches(ladder_fill_queue(ladder=ladder, rng=rng)):
            seated = list(
                match.participants.order_by("seat").values_list("bot_version_id", flat=True)
            )
            score = [strength[v] + rng.gauss(0, 150) for v in seated]
            order = sorted(range(len(seated)), key=lambda s: -score[s])
            outcomes = [SeatOutcome(seat=s, money=0, rank=order.index(s) + 1) for s in range(4)]
            match_finish(match=match_start(match=match), outcomes=outcomes, game_log=b"{}")
            ratings_apply(match=match)  # as the rating task would
        games = Counter(Participant.objects.values_list("bot_version_id", flat=True))
        if min(games.values(), default=0) >= 40:  # a day's worth: the first hours are noisy
            ratios.append(max(games.values()) / min(games.values()))

    assert len(games) == 10 and min(games.values()) >= 50 and ratios
    assert max(ratios) <= 1.2, (max(ratios), sorted(games.values()))
    assert not Match.objects.exclude(status=MatchStatus.FINISHED).exists()
    # Ratings spread out with strength, and the weakest bot played every seat.
    ratings = dict(ladder.ratings.values_list("bot_version_id", "rating"))
    assert ratings[versions[-1].pk] - ratings[versions[0].pk] > 300
    seats = Counter(
        Participant.objects.filter(bot_version=versions[0]).values_list("seat", flat=True)
    )
    assert len(seats) == 4 and min(seats.values()) >= 0.15 * sum(seats.values())
