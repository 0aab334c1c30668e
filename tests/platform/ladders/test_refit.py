"""Refitting a ladder's ratings on its whole history: the fit, the service and the sweep."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest
from django.utils import timezone

from arena.bots.models import VersionStatus
from arena.ladders import refit as refit_module
from arena.ladders.elo import (
    INITIAL_DEVIATION,
    INITIAL_RATING,
    LOG_ODDS_PER_POINT,
    PROVISIONAL_DEVIATION,
    SETTLING_MATCHES,
    Calibration,
    expected_score,
)
from arena.ladders.models import Ladder, Rating
from arena.ladders.refit import refit_due, refitted
from arena.ladders.selectors import ladder_rated_units
from arena.ladders.services import ladder_refit, ladders_refit_due, ratings_apply
from arena.ladders.services import ratings as ladder_services
from arena.ladders.tasks import ladders_refit_due as ladders_refit_due_task
from bots_sdk.rating import PRIOR_DRAWS, PairTotals, deviation_of, fit_deviations, information_of
from bots_sdk.rating import fit_totals as fit
from tests.platform.factories import (
    BotFactory,
    BotVersionFactory,
    LadderFactory,
    MatchFactory,
    RatingFactory,
    finished_match,
)


def _logistic(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def _posterior_gradient(
    totals: PairTotals[str], priors: dict[str, float], ratings: dict[str, float]
) -> dict[str, float]:
    """The derivative of the fit's log posterior in each player's log-strength."""
    gradient = {}
    for p, rating in ratings.items():
        expected = sum(
            games * expected_score(rating, ratings[other])
            for other, games in totals.games.get(p, {}).items()
        )
        virtual = PRIOR_DRAWS * (0.5 - _logistic(LOG_ODDS_PER_POINT * (rating - priors[p])))
        gradient[p] = totals.score.get(p, 0.0) - expected + virtual
    return gradient


# --------------------------------------------------------------------------- the fit


def test_pair_totals_weigh_each_pair_of_a_unit_by_3_over_seats_plus_1() -> None:
    totals = PairTotals.of([[("ann", 1), ("ben", 2), ("cat", 2)], [("ann", 2), ("ben", 1)]])

    # 3 seats: 3/4 a pair; 2 seats: 1 a pair. ben and cat drew.
    assert totals.units == 2
    assert totals.games["ann"] == {"ben": 0.75 + 1.0, "cat": 0.75}
    assert totals.games["ben"]["cat"] == totals.games["cat"]["ben"] == 0.75
    assert totals.score == {"ann": 1.5, "ben": 0.375 + 1.0, "cat": 0.375}


def test_a_player_at_two_seats_is_not_compared_with_itself() -> None:
    totals = PairTotals.of([[("house", 1), ("ann", 2), ("house", 3)]])

    assert dict(totals.games["house"]) == {"ann": 1.5}
    assert totals.score == {"house": 0.75, "ann": 0.75}


def test_the_fit_is_where_the_posterior_is_flat() -> None:
    rng = random.Random(7)
    truth = {"ann": 1700.0, "ben": 1550.0, "cat": 1500.0, "dan": 1350.0}
    units = []
    for _ in range(300):
        a, b = rng.sample(sorted(truth), 2)
        won = rng.random() < expected_score(truth[a], truth[b])
        units.append([(a, 1 if won else 2), (b, 2 if won else 1)])
    totals = PairTotals.of(units)
    priors = {"ann": 1500.0, "ben": 1500.0, "cat": 1600.0, "dan": 1500.0}

    ratings = fit(totals, priors)

    assert all(abs(g) < 1e-3 for g in _posterior_gradient(totals, priors, ratings).values())
    # 300 games place them in order, about as far apart as they are.
    assert sorted(ratings, key=ratings.__getitem__) == ["dan", "cat", "ben", "ann"]
    assert ratings["ann"] - ratings["dan"] == pytest.approx(350, abs=120)


def test_a_player_without_results_keeps_its_prior_and_an_unbeaten_one_stays_finite() -> None:
    totals = PairTotals.of([[("ann", 1), ("ben", 2)]] * 20)

    ratings = fit(totals, {"ann": 1500.0, "ben": 1500.0, "new": 1800.0})

    assert ratings["new"] == pytest.approx(1800.0, abs=0.01)
    assert math.isfinite(ratings["ann"]) and 1700 < ratings["ann"] < 2000
    assert ratings["ann"] - 1500 == pytest.approx(1500 - ratings["ben"], abs=0.1)


def test_where_the_fit_starts_does_not_change_where_it_ends() -> None:
    units = [[("ann", 1), ("ben", 2), ("cat", 3)], [("cat", 1), ("ann", 2), ("ben", 3)]] * 5
    totals = PairTotals.of(units)
    priors = dict.fromkeys(("ann", "ben", "cat"), INITIAL_RATING)

    cold = fit(totals, priors)
    warm = fit(totals, priors, {"ann": 2200.0, "ben": 900.0, "cat": 1500.0})

    assert warm == pytest.approx(cold, abs=0.1)


def test_a_player_without_a_prior_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="players without a prior: \\['ghost'\\]"):
        fit(PairTotals.of([[("ann", 1), ("ghost", 2)]]), {"ann": INITIAL_RATING})


def test_newcomers_keep_their_elo_only_while_settled_ratings_are_half_the_field() -> None:
    settled, provisional = SETTLING_MATCHES, SETTLING_MATCHES - 1

    assert refitted({"ann": settled, "ben": settled, "new": provisional}) == {"ann", "ben"}
    assert refitted({"ann": settled, "new": provisional}) == {"ann"}
    # A new field: every rating is a guess, every one is refitted.
    assert refitted({"ann": settled, "ben": 3, "cat": 0}) == {"ann", "ben", "cat"}


def test_a_refit_is_due_after_50_new_units_or_2_percent_of_the_history_if_more() -> None:
    assert not refit_due(49, 0) and refit_due(50, 0)
    assert not refit_due(1049, 1000) and refit_due(1050, 1000)
    assert not refit_due(101_999, 100_000) and refit_due(102_000, 100_000)


# --------------------------------------------------------------------------- the service


@pytest.fixture
def ladder(db: None) -> Ladder:
    return LadderFactory(slug="classic-3")


@pytest.fixture
def trio(db: None) -> list[Any]:
    return [BotVersionFactory(bot=BotFactory(name=name)) for name in ("shark", "turtle", "owl")]


def _rate(ladder: Ladder, versions: list[Any], ranks: list[int]) -> None:
    ratings_apply(match=finished_match(ladder, versions, ranks))


def _ratings(ladder: Ladder) -> dict[int, float]:
    return dict(Rating.objects.filter(ladder=ladder).values_list("bot_version_id", "rating"))


def _deviations(ladder: Ladder) -> dict[int, float]:
    return dict(Rating.objects.filter(ladder=ladder).values_list("bot_version_id", "deviation"))


#: The ranks of shark, turtle and owl in the ladder's first six matches.
HISTORY = [[1, 2, 3], [1, 3, 2], [2, 1, 3], [1, 2, 3], [3, 1, 2], [1, 2, 3]]


def _play_history(ladder: Ladder, trio: list[Any]) -> list[list[tuple[int, int]]]:
    """Rate the HISTORY's matches; returns them as the refit reads them."""
    for ranks in HISTORY:
        _rate(ladder, trio, ranks)
    return [[(v.pk, r) for v, r in zip(trio, ranks, strict=True)] for ranks in HISTORY]


@pytest.mark.django_db
def test_a_refit_sets_every_rating_to_the_fit_of_the_ladder_s_rated_history(
    ladder: Ladder, trio: list[Any]
) -> None:
    units = _play_history(ladder, trio)
    ladder.calibration = Calibration(3.0, 10.0, 12)
    ladder.elo_scale = 1.2
    ladder.save()
    elo = _ratings(ladder)

    assert ladder_refit(ladder_id=ladder.pk) == 3

    priors = dict.fromkeys(elo, INITIAL_RATING)
    expected = fit(PairTotals.of(units), priors)
    assert _ratings(ladder) == pytest.approx(expected, abs=0.01)
    assert _ratings(ladder) != pytest.approx(elo, abs=1.0)
    # Each deviation is the fit's own, from its curvature at the fitted ratings (shown
    # as they are: the stretch of 1.2 is gone with the working Elo).
    fitted = fit_deviations(PairTotals.of(units), priors, expected)
    assert _deviations(ladder) == pytest.approx(fitted, rel=1e-4)
    assert all(100 < d < 200 for d in fitted.values())  # six 3-seat games each
    assert sorted(ladder_rated_units(ladder_id=ladder.pk)) == sorted(units)
    ladder.refresh_from_db()
    # The fit's Elo is shown as it is: the stretch starts again.
    assert (ladder.elo_scale, ladder.calibration) == (1.0, Calibration())
    assert ladder.refit_at is not None


@pytest.mark.django_db
def test_a_new_version_s_prior_is_its_parent_s_rating_and_a_refit_keeps_it_there(
    ladder: Ladder, trio: list[Any]
) -> None:
    _play_history(ladder, trio)
    shark = trio[0]
    parent = Rating.objects.get(ladder=ladder, bot_version=shark).rating
    shark.status = VersionStatus.RETIRED
    shark.save()
    child = BotVersionFactory(bot=shark.bot, number=2, parent=shark)
    _rate(ladder, [child, trio[1]], [2, 1])
    assert Rating.objects.get(ladder=ladder, bot_version=child).prior == parent

    ladder_refit(ladder_id=ladder.pk)

    # One loss against turtle pulls it below its prior, not to the field's middle.
    refit = Rating.objects.get(ladder=ladder, bot_version=child).rating
    assert parent - 200 < refit < parent


@pytest.mark.django_db
def test_a_rating_is_provisional_by_its_deviation_not_its_games(
    ladder: Ladder, trio: list[Any]
) -> None:
    shark, turtle, owl = trio
    old = RatingFactory(ladder=ladder, bot_version=shark, rated_matches=200, deviation=32.0)
    RatingFactory(ladder=ladder, bot_version=turtle, rated_matches=200, deviation=32.0)
    assert not old.is_provisional
    # A settled version's child starts from its rating with a new rating's deviation.
    shark.status = VersionStatus.RETIRED
    shark.save()
    child = BotVersionFactory(bot=shark.bot, number=2, parent=shark)
    _rate(ladder, [child, turtle, owl], [1, 2, 3])
    assert Rating.objects.get(ladder=ladder, bot_version=child).is_provisional

    # Each game shrinks its deviation; it settles once the deviation is under the
    # threshold, whatever its count.
    deviations = [Rating.objects.get(ladder=ladder, bot_version=child).deviation]
    while Rating.objects.get(ladder=ladder, bot_version=child).is_provisional:
        _rate(ladder, [child, turtle], [1 + len(deviations) % 2, 2 - len(deviations) % 2])
        deviations.append(Rating.objects.get(ladder=ladder, bot_version=child).deviation)
    assert deviations == sorted(deviations, reverse=True)
    assert deviations[-2] > PROVISIONAL_DEVIATION >= deviations[-1]
    assert deviations[0] < INITIAL_DEVIATION
    # 1v1 games of a 3-seat ladder: some 45 of them, against a 30-game count before.
    assert 40 < len(deviations) < 60


@pytest.mark.django_db
def test_a_newcomer_among_settled_ratings_keeps_its_elo_through_a_refit(
    ladder: Ladder, trio: list[Any]
) -> None:
    shark, turtle, owl = trio
    for version, rating in ((shark, 1650.0), (turtle, 1450.0)):
        RatingFactory(ladder=ladder, bot_version=version, rating=rating, rated_matches=80)
    units = _play_history(ladder, trio)
    elo = _ratings(ladder)
    running = _deviations(ladder)

    ladder_refit(ladder_id=ladder.pk)

    refit = _ratings(ladder)
    assert refit[owl.pk] == elo[owl.pk]
    # It keeps its running deviation too: six games' worth, provisional still.
    assert _deviations(ladder)[owl.pk] == running[owl.pk] > PROVISIONAL_DEVIATION
    assert refit[shark.pk] != pytest.approx(elo[shark.pk], abs=1.0)
    priors = dict.fromkeys(elo, INITIAL_RATING)
    expected = fit(PairTotals.of(units), priors)
    assert refit[shark.pk] == pytest.approx(expected[shark.pk], abs=0.01)


@pytest.mark.django_db
def test_results_rated_while_the_fit_ran_keep_their_elo_steps_on_top_of_it(
    ladder: Ladder, trio: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    _play_history(ladder, trio)
    shark, turtle, owl = trio
    steps: dict[int, float] = {}

    gain_before: dict[int, float] = {}
    gain_after: dict[int, float] = {}

    def fit_while_a_match_is_rated(*args: Any) -> dict[int, float]:
        before = _ratings(ladder)
        gain_before.update(_deviations(ladder))
        _rate(ladder, [owl, turtle], [1, 2])
        gain_after.update(_deviations(ladder))
        steps.update({v: r - before[v] for v, r in _ratings(ladder).items()})
        fitted: dict[int, float] = fit(*args)
        fitted_of.update(fitted)
        return fitted

    fitted_of: dict[int, float] = {}
    monkeypatch.setattr(ladder_services, "fit_totals", fit_while_a_match_is_rated)

    ladder_refit(ladder_id=ladder.pk)

    assert steps[owl.pk] > 0 > steps[turtle.pk] and steps[shark.pk] == 0
    assert _ratings(ladder) == pytest.approx(
        {v: fitted_of[v] + steps[v] for v in (shark.pk, turtle.pk, owl.pk)}
    )
    # So do their curvature gains: the fit's deviation, shrunk by that match.
    totals = PairTotals.of(ladder_rated_units(ladder_id=ladder.pk))
    totals_of_fit = PairTotals.of(list(ladder_rated_units(ladder_id=ladder.pk))[:-1])
    priors = dict.fromkeys(fitted_of, INITIAL_RATING)
    at_fit = fit_deviations(totals_of_fit, priors, fitted_of)
    assert len(totals.games[owl.pk]) == 2  # the later match is in the history now
    deviations = _deviations(ladder)
    assert deviations[shark.pk] == pytest.approx(at_fit[shark.pk])
    for version in (owl, turtle):
        gained = information_of(gain_after[version.pk]) - information_of(gain_before[version.pk])
        assert gained > 0
        assert deviations[version.pk] == pytest.approx(
            deviation_of(information_of(at_fit[version.pk]) + gained)
        )
    # That match is in the next fit.
    assert len(list(ladder_rated_units(ladder_id=ladder.pk))) == len(HISTORY) + 1


@pytest.mark.django_db
def test_a_ladder_stretched_while_the_fit_ran_is_left_for_the_next_sweep(
    ladder: Ladder, trio: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    _play_history(ladder, trio)
    elo = _ratings(ladder)

    def fit_while_stretched(*args: Any) -> dict[int, float]:
        Ladder.objects.filter(pk=ladder.pk).update(elo_scale=1.1)
        result: dict[int, float] = fit(*args)
        return result

    monkeypatch.setattr(ladder_services, "fit_totals", fit_while_stretched)

    assert ladder_refit(ladder_id=ladder.pk) == 0

    assert _ratings(ladder) == elo
    ladder.refresh_from_db()
    assert ladder.refit_at is None


@pytest.mark.django_db
def test_the_sweep_refits_the_ladders_due_a_refit(
    ladder: Ladder, trio: list[Any], settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    entry = settings.CELERY_BEAT_SCHEDULE["refit-ratings"]
    assert (entry["task"], entry["schedule"]) == (ladders_refit_due_task.name, 60.0)
    monkeypatch.setattr(refit_module, "REFIT_MIN_UNITS", 2)
    quiet = LadderFactory(slug="classic-4")
    _rate(ladder, trio, [1, 2, 3])
    assert ladders_refit_due() == 0  # one new unit of the 2 a refit waits for

    _rate(ladder, trio, [3, 2, 1])
    assert ladders_refit_due_task.apply().get() == 1
    ladder.refresh_from_db()
    assert (ladder.rated_units, ladder.refit_units) == (2, 2)
    assert ladder.refit_at is not None

    _rate(ladder, trio, [2, 3, 1])
    assert ladders_refit_due() == 0
    _rate(ladder, trio, [2, 1, 3])
    assert ladders_refit_due() == 1
    ladder.refresh_from_db()
    quiet.refresh_from_db()
    assert (ladder.rated_units, ladder.refit_units) == (4, 4)
    assert quiet.refit_at is None


@pytest.mark.django_db(transaction=True)
def test_the_migration_gives_existing_ratings_the_rating_they_started_from() -> None:
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    before, after = [("ladders", "0008_ladder_elo_scale")], [("ladders", "0009_rating_prior_refit")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    try:
        _migrate_the_old_ratings(connection, executor, before, after)
    finally:
        # Every later migration back (those after `before` in other apps too), for the
        # tests that follow on this database.
        MigrationExecutor(connection).migrate(executor.loader.graph.leaf_nodes())


def _migrate_the_old_ratings(connection: Any, executor: Any, before: Any, after: Any) -> None:
    from django.db.migrations.executor import MigrationExecutor

    old = executor.loader.project_state(before).apps
    ladder = old.get_model("ladders", "Ladder").objects.create(slug="old", name="Old", seats=2)
    version = BotVersionFactory()
    Rating = old.get_model("ladders", "Rating")
    rated = Rating.objects.create(
        ladder=ladder,
        bot_id=version.bot_id,
        bot_version_id=version.pk,
        rating=1640,
        rated_matches=2,
    )
    unrated = Rating.objects.create(
        ladder=ladder, bot_id=version.bot_id, bot_version_id=BotVersionFactory().pk, rating=1720
    )
    # The current Match on the old ladder row (read without the columns it does not have yet).
    game = ("rules", "seats", "options", "time_per_decision_ms", "time_bank_ms", "memory_mb")
    old_ladder = Ladder.objects.only(*game).get(pk=ladder.pk)
    RatingChange = old.get_model("ladders", "RatingChange")
    for matches_before, rating_before in ((1, 1570.0), (0, 1610.0)):
        match = MatchFactory(ladder=old_ladder, rated_at=timezone.now())
        RatingChange.objects.create(
            rating=rated,
            match_id=match.pk,
            rating_before=rating_before,
            rating_after=rating_before + 30,
            k=30,
            matches_before=matches_before,
        )
    MatchFactory(ladder=old_ladder)  # not rated yet

    executor = MigrationExecutor(connection)
    executor.migrate(after)

    new = executor.loader.project_state(after).apps
    assert new.get_model("ladders", "Rating").objects.get(pk=rated.pk).prior == 1610.0
    assert new.get_model("ladders", "Rating").objects.get(pk=unrated.pk).prior == 1720.0
    # Its two rated matches, not the unrated one, are the ladder's units so far.
    assert new.get_model("ladders", "Ladder").objects.get(pk=ladder.pk).rated_units == 2


@pytest.mark.django_db(transaction=True)
def test_the_migration_gives_existing_ratings_the_deviation_of_their_games_until_a_refit() -> None:
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    before, after = [("ladders", "0013_team_name")], [("ladders", "0014_rating_deviation")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    try:
        old = executor.loader.project_state(before).apps
        OldLadder = old.get_model("ladders", "Ladder")
        fours = OldLadder.objects.create(
            slug="old-4", name="Old", seats=4, rated_units=900, refit_units=880
        )
        pairs = OldLadder.objects.create(slug="old-2", name="Old 2", seats=2)
        OldRating = old.get_model("ladders", "Rating")
        rows = {}
        for ladder, matches in ((fours, 26), (fours, 0), (pairs, 26)):
            version = BotVersionFactory()
            rows[ladder.seats, matches] = OldRating.objects.create(
                ladder=ladder,
                bot_id=version.bot_id,
                bot_version_id=version.pk,
                rated_matches=matches,
            ).pk

        executor = MigrationExecutor(connection)
        executor.migrate(after)

        new = executor.loader.project_state(after).apps
        deviation = dict(new.get_model("ladders", "Rating").objects.values_list("pk", "deviation"))
        # As the rating pass would leave them against equal opponents: a 4-seat game is
        # worth 1.8 1v1 games of curvature 1/4 each, on the prior's 1/2.
        assert deviation[rows[4, 26]] == pytest.approx(deviation_of(0.5 + 26 * 1.8 / 4))
        assert deviation[rows[4, 26]] < PROVISIONAL_DEVIATION < deviation[rows[2, 26]]
        assert deviation[rows[4, 0]] == pytest.approx(INITIAL_DEVIATION)
        # Every ladder is due a refit, which sets the model's own deviations.
        migrated = new.get_model("ladders", "Ladder").objects.get(pk=fours.pk)
        assert refit_due(migrated.rated_units, migrated.refit_units)
    finally:
        MigrationExecutor(connection).migrate(executor.loader.graph.leaf_nodes())
