"""Applying ratings: K schedule, provisional mark, inheritance, once, finish order, locks."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from arena.bots.models import VersionStatus
from arena.ladders.elo import (
    INITIAL_DEVIATION,
    LOG_ODDS_PER_POINT,
    STRETCH_PAIRS,
    Calibration,
    SeatRating,
    expected_score,
    k_factor,
    seat_changes,
    stretch,
    unit_calibration,
)
from arena.ladders.models import Ladder, Rating, RatingChange
from arena.ladders.services import ratings as ladder_services
from arena.ladders.services import ratings_apply
from arena.matches.models import Match
from tests.platform.conftest import needs_postgres
from tests.platform.factories import (
    BotFactory,
    BotVersionFactory,
    LadderFactory,
    RatingFactory,
    finished_match,
)

pytestmark = pytest.mark.django_db


def rating_of(version: Any, ladder: Any) -> Rating:
    return Rating.objects.get(bot_version=version, ladder=ladder)


@pytest.fixture
def ladder() -> Any:
    return LadderFactory(slug="classic-2")


@pytest.fixture
def alice_bot(alice: Any) -> Any:
    return BotVersionFactory(bot=BotFactory(owner=alice, name="shark"))


@pytest.fixture
def bob_bot(bob: Any) -> Any:
    return BotVersionFactory(bot=BotFactory(owner=bob, name="turtle"))


def test_first_match_creates_ratings_history_and_participant_ratings(
    ladder: Any, alice_bot: Any, bob_bot: Any
) -> None:
    match = finished_match(ladder, [alice_bot, bob_bot], ranks=[1, 2])

    assert ratings_apply(match=match) == [match.pk]

    alice_rating, bob_rating = rating_of(alice_bot, ladder), rating_of(bob_bot, ladder)
    # Both new: K = 140, so +-70.
    assert (alice_rating.rating, bob_rating.rating) == (1570.0, 1430.0)
    assert (alice_rating.rated_matches, bob_rating.rated_matches) == (1, 1)
    # A new rating's prior deviation (246) shrunk by one game at p = 1/2: 1/sqrt(1/2 + 1/4).
    assert alice_rating.display == "1570? ± 201"
    assert alice_rating.deviation == pytest.approx(1 / (LOG_ODDS_PER_POINT * math.sqrt(0.75)))
    change = RatingChange.objects.get(rating=alice_rating)
    assert (change.match_id, change.rating_before, change.rating_after) == (match.pk, 1500, 1570)
    assert (change.k, change.matches_before) == (140, 0)
    assert change.deviation_before == pytest.approx(INITIAL_DEVIATION)
    assert change.deviation_after == alice_rating.deviation
    seats = {p.seat: p for p in match.participants.all()}
    assert (seats[0].rating_before, seats[0].rating_after) == (1500, 1570)
    assert (seats[1].rating_before, seats[1].rating_after) == (1500, 1430)
    match.refresh_from_db()
    assert match.rated_at is not None
    ladder.refresh_from_db()
    assert ladder.rated_units == 1  # what the whole-history refit waits on


def test_an_unrated_match_changes_no_rating_and_holds_up_no_later_one(
    ladder: Any, alice_bot: Any, bob_bot: Any
) -> None:
    unrated = finished_match(ladder, [alice_bot, bob_bot], ranks=[1, 2], rated=False)
    later = finished_match(ladder, [alice_bot, bob_bot], ranks=[2, 1])

    assert ratings_apply(match=unrated) == []
    assert ratings_apply(match=later) == [later.pk]

    assert (rating_of(alice_bot, ladder).rating, rating_of(bob_bot, ladder).rating) == (1430, 1570)
    assert not RatingChange.objects.filter(match=unrated).exists()
    unrated.refresh_from_db()
    assert unrated.rated_at is None


def test_k_falls_with_each_rating_s_own_matches(ladder: Any, alice_bot: Any, bob_bot: Any) -> None:
    RatingFactory(ladder=ladder, bot_version=alice_bot, rating=1500, rated_matches=33)
    RatingFactory(ladder=ladder, bot_version=bob_bot, rating=1500, rated_matches=138)

    ratings_apply(match=finished_match(ladder, [alice_bot, bob_bot], ranks=[1, 2]))
    alice_rating = rating_of(alice_bot, ladder)
    # Both settled, so the prior is 2 games: alice: K = 700 / (2 + 33) = 20, so +10;
    # bob: 700 / (2 + 138) = 5, so -2.5.
    assert (alice_rating.rating, alice_rating.rated_matches) == (1510.0, 34)
    # 34 games of 2 seats: still over ± 50, provisional by its deviation.
    assert alice_rating.display == "1510? ± 58"
    assert rating_of(bob_bot, ladder).rating == 1497.5

    ratings_apply(match=finished_match(ladder, [alice_bot, bob_bot], ranks=[1, 2]))
    alice_rating.refresh_from_db()
    expected = seat_changes(
        [
            SeatRating("a", 1510.0, 1, k_factor(34, against_settled=True)),
            SeatRating("b", 1497.5, 2, k_factor(139, against_settled=True)),
        ]
    )
    assert alice_rating.rating == pytest.approx(1510.0 + expected[0])
    last = RatingChange.objects.filter(rating=alice_rating).order_by("id").last()
    assert last.k == pytest.approx(700 / 36)


def test_a_newcomer_against_settled_ratings_steps_with_a_prior_of_2_games(
    ladder: Any, alice_bot: Any, bob_bot: Any
) -> None:
    RatingFactory(ladder=ladder, bot_version=bob_bot, rating=1500, rated_matches=135)

    match = finished_match(ladder, [alice_bot, bob_bot], ranks=[1, 2])
    ratings_apply(match=match)

    # alice (new) meets a settled rating: K = 700 / (2 + 0) = 350, so +175; bob meets a
    # provisional one: K = 700 / (5 + 135) = 5, so -2.5.
    assert rating_of(alice_bot, ladder).rating == 1675.0
    assert rating_of(bob_bot, ladder).rating == 1497.5
    recorded = dict(
        RatingChange.objects.filter(match=match).values_list("rating__bot_version", "k")
    )
    assert recorded == {alice_bot.pk: 350, bob_bot.pk: 5}


def test_new_version_starts_from_its_parent_and_is_provisional_again(
    ladder: Any, alice: Any, alice_bot: Any, bob_bot: Any
) -> None:
    RatingFactory(ladder=ladder, bot_version=alice_bot, rating=1700, rated_matches=80)
    RatingFactory(ladder=ladder, bot_version=bob_bot, rating=1700, rated_matches=80)
    alice_bot.status = VersionStatus.RETIRED
    alice_bot.save()
    v2 = BotVersionFactory(bot=alice_bot.bot, number=2, parent=alice_bot)

    ratings_apply(match=finished_match(ladder, [v2, bob_bot], ranks=[1, 2]))

    v2_rating = rating_of(v2, ladder)
    # Starts at 1700 with 0 rated matches: K = 700 / (2 + 0) against a settled bob,
    # whose K is 700 / (5 + 80) against a provisional rating.
    assert v2_rating.rating == 1875.0
    # Its deviation starts afresh: a new version is provisional again.
    assert v2_rating.rated_matches == 1 and v2_rating.display == "1875? ± 201"
    assert v2_rating.prior == 1700.0  # the whole-history refit's centre for it
    assert rating_of(bob_bot, ladder).rating == pytest.approx(1700 - 700 / 85 / 2)
    assert rating_of(alice_bot, ladder).rating == 1700  # the parent's row is untouched


def test_inheritance_skips_an_unrated_failed_version(
    ladder: Any, alice_bot: Any, bob_bot: Any
) -> None:
    RatingFactory(ladder=ladder, bot_version=alice_bot, rating=1650, rated_matches=40)
    v2 = BotVersionFactory(
        bot=alice_bot.bot, number=2, parent=alice_bot, status=VersionStatus.FAILED
    )
    alice_bot.status = VersionStatus.RETIRED
    alice_bot.save()
    v3 = BotVersionFactory(bot=alice_bot.bot, number=3, parent=v2)

    ratings_apply(match=finished_match(ladder, [v3, bob_bot], ranks=[2, 1]))

    assert RatingChange.objects.get(rating__bot_version=v3).rating_before == 1650


def test_applying_the_same_match_twice_changes_nothing(
    ladder: Any, alice_bot: Any, bob_bot: Any
) -> None:
    match = finished_match(ladder, [alice_bot, bob_bot], ranks=[1, 2])
    assert ratings_apply(match=match) == [match.pk]
    before = list(Rating.objects.order_by("id").values_list("rating", "rated_matches"))

    assert ratings_apply(match=match) == []
    assert ratings_apply(match=Match.objects.get(pk=match.pk)) == []

    assert list(Rating.objects.order_by("id").values_list("rating", "rated_matches")) == before
    assert RatingChange.objects.count() == 2


def test_unfinished_match_is_not_rated(ladder: Any, alice_bot: Any, bob_bot: Any) -> None:
    match = finished_match(ladder, [alice_bot, bob_bot], ranks=[1, 2], status="running")
    assert ratings_apply(match=match) == []
    assert not Rating.objects.exists()


def test_ratings_follow_finish_order_when_tasks_run_out_of_order(
    ladder: Any, alice_bot: Any, bob_bot: Any, house: Any
) -> None:
    house_bot = BotVersionFactory(bot=BotFactory(owner=house, name="greedy"))
    now = timezone.now()
    first = finished_match(ladder, [alice_bot, bob_bot], ranks=[1, 2], finished_at=now)
    second = finished_match(
        ladder, [bob_bot, house_bot], ranks=[1, 2], finished_at=now + timedelta(seconds=1)
    )

    # The second match's task runs first: it rates the earlier match first.
    assert ratings_apply(match=second) == [first.pk, second.pk]
    assert ratings_apply(match=first) == []

    # bob: -70 in the first match, then beats the new house bot from 1430.
    bob_after_first = 1430.0
    expected = seat_changes(
        [SeatRating("b", bob_after_first, 1, k_factor(1)), SeatRating("h", 1500.0, 2, k_factor(0))]
    )
    assert rating_of(bob_bot, ladder).rating == pytest.approx(bob_after_first + expected[0])


def test_a_version_at_two_seats_is_rated_once_per_match(house: Any, alice_bot: Any) -> None:
    ladder = LadderFactory(slug="classic-3", seats=3)
    house_bot = BotVersionFactory(bot=BotFactory(owner=house, name="random"))

    ratings_apply(match=finished_match(ladder, [alice_bot, house_bot, house_bot], ranks=[1, 2, 3]))

    house_rating = rating_of(house_bot, ladder)
    assert house_rating.rated_matches == 1
    # K * 3/(3+1) = 105 a seat: each house seat loses 105 * 0.5, once each.
    assert house_rating.rating == 1500 - 52.5 - 52.5
    assert house_rating.changes.count() == 1


# --------------------------------------------------------------------------- concurrency


def _in_threads(*calls: Any) -> list[Any]:
    """Run each call in its own thread (own database connection), all at once."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)
    errors: list[BaseException] = []

    def run(index: int, call: Any) -> None:
        try:
            barrier.wait()
            results[index] = call()
        except BaseException as error:  # reported to the test below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    return results


@pytest.fixture
def slow_rating(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hold the lock a little longer, so the two threads really overlap."""
    real = ladder_services._rate_unit

    def slow(unit: Sequence[Match], ladder: Ladder) -> None:
        time.sleep(0.2)
        real(unit, ladder)

    monkeypatch.setattr(ladder_services, "_rate_unit", slow)


@needs_postgres
@pytest.mark.django_db(transaction=True)
def test_two_connections_rating_different_matches_apply_both_in_finish_order(
    slow_rating: None, alice: Any, bob: Any, house: Any
) -> None:
    ladder = LadderFactory(slug="classic-2")
    alice_bot = BotVersionFactory(bot=BotFactory(owner=alice, name="shark"))
    bob_bot = BotVersionFactory(bot=BotFactory(owner=bob, name="turtle"))
    house_bot = BotVersionFactory(bot=BotFactory(owner=house, name="greedy"))
    now = timezone.now()
    first = finished_match(ladder, [alice_bot, bob_bot], ranks=[2, 1], finished_at=now)
    second = finished_match(
        ladder, [bob_bot, house_bot], ranks=[2, 1], finished_at=now + timedelta(seconds=1)
    )

    results = _in_threads(
        lambda: ratings_apply(match=Match.objects.get(pk=second.pk)),
        lambda: ratings_apply(match=Match.objects.get(pk=first.pk)),
    )

    # Whichever thread got the lock first, each match was rated exactly once, in order.
    rated = sorted(pk for result in results for pk in result)
    assert rated == [first.pk, second.pk]
    assert RatingChange.objects.count() == 4
    bob_rating = rating_of(bob_bot, ladder)
    assert bob_rating.rated_matches == 2
    # bob won the first (+70 -> 1570), then lost to the new house bot at 1500.
    expected = seat_changes(
        [SeatRating("b", 1570.0, 2, k_factor(1)), SeatRating("h", 1500.0, 1, k_factor(0))]
    )
    assert bob_rating.rating == pytest.approx(1570.0 + expected[0])
    changes = list(bob_rating.changes.order_by("id").values_list("match_id", flat=True))
    assert changes == [first.pk, second.pk]


@needs_postgres
@pytest.mark.django_db(transaction=True)
def test_two_connections_rating_the_same_match_apply_it_once(
    slow_rating: None, alice: Any, bob: Any
) -> None:
    ladder = LadderFactory(slug="classic-2")
    alice_bot = BotVersionFactory(bot=BotFactory(owner=alice, name="shark"))
    bob_bot = BotVersionFactory(bot=BotFactory(owner=bob, name="turtle"))
    match = finished_match(ladder, [alice_bot, bob_bot], ranks=[1, 2])

    results = _in_threads(
        lambda: ratings_apply(match=Match.objects.get(pk=match.pk)),
        lambda: ratings_apply(match=Match.objects.get(pk=match.pk)),
    )

    assert sorted(results, key=len) == [[], [match.pk]]
    assert rating_of(alice_bot, ladder).rating == 1570.0
    assert RatingChange.objects.count() == 2


def test_a_ladder_s_ratings_stretch_when_its_results_call_for_it(
    ladder: Any, alice_bot: Any, bob_bot: Any
) -> None:
    carol_bot = BotVersionFactory(bot=BotFactory(name="carol"))
    RatingFactory(ladder=ladder, bot_version=alice_bot, rating=1700, rated_matches=100)
    RatingFactory(ladder=ladder, bot_version=bob_bot, rating=1500, rated_matches=100)
    RatingFactory(
        ladder=ladder, bot_version=carol_bot, rating=1400, rated_matches=100, deviation=40.0
    )
    # Evidence of compression so far (slope 1.44), one pair short of a stretch.
    ladder.calibration = Calibration(44.0, 100.0, STRETCH_PAIRS - 1)
    ladder.save()

    ratings_apply(match=finished_match(ladder, [alice_bot, bob_bot], ranks=[1, 2]))

    # The unit's pair completes the evidence; then every rating of the ladder is stretched
    # about 1500, carol's too, and the ladder's scale grows by the same factor.
    evidence = ladder.calibration + unit_calibration(
        [("alice", 1), ("bob", 2)], {"alice": 1700.0, "bob": 1500.0}
    )
    factor = stretch(evidence)
    assert factor == pytest.approx(math.sqrt(1 + evidence.gradient / evidence.curvature))
    step = 700 / (2 + 100) * (1 - expected_score(1700, 1500))
    assert rating_of(alice_bot, ladder).rating == pytest.approx(1500 + factor * (200 + step))
    assert rating_of(bob_bot, ladder).rating == pytest.approx(1500 - factor * step)
    assert rating_of(carol_bot, ladder).rating == pytest.approx(1500 - factor * 100)
    # Deviations stretch with the ratings: the ± keeps meaning what the differences mean.
    assert rating_of(carol_bot, ladder).deviation == pytest.approx(factor * 40.0)
    ladder.refresh_from_db()
    assert ladder.elo_scale == pytest.approx(factor)
    assert ladder.calibration == Calibration()
    # The history keeps the numbers shown at the time.
    change = RatingChange.objects.get(rating__bot_version=alice_bot)
    assert change.rating_after == pytest.approx(1700 + step)

    # The next match moves the working Elo as before, its change stretched.
    shown = {v: rating_of(v, ladder).rating for v in (alice_bot, bob_bot)}
    ratings_apply(match=finished_match(ladder, [alice_bot, bob_bot], ranks=[2, 1]))
    k = 700 / (2 + 101)
    working = (shown[alice_bot] - shown[bob_bot]) / factor
    moved = factor * k * (0 - 1 / (1 + 10 ** (-working / 400)))
    assert rating_of(alice_bot, ladder).rating == pytest.approx(shown[alice_bot] + moved)
    last = RatingChange.objects.filter(rating__bot_version=alice_bot).order_by("id").last()
    assert last.k == pytest.approx(factor * k)
