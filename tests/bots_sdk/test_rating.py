"""Elo from multi-player results, and the tournament schedule."""

from __future__ import annotations

import math
import random

import pytest

from bots_sdk.rating import (
    ELO_MEAN,
    LOG_ODDS_PER_POINT,
    PRIOR_DEVIATION,
    PRIOR_DRAWS,
    PairTotals,
    fit,
    fit_deviations,
    fit_totals,
    ratings,
)
from bots_sdk.referee import rotations, standings
from bots_sdk.tournament import schedule
from vegas_engine import SeatResult


def test_equal_players_rate_equal() -> None:
    games = [[(0, 1), (1, 2)], [(0, 2), (1, 1)]] * 10
    a, b = fit(games, 2)
    assert a == pytest.approx(ELO_MEAN) and b == pytest.approx(ELO_MEAN)


def test_stronger_player_rates_higher_and_stays_finite() -> None:
    games = [[(0, 1), (1, 2), (2, 3)]] * 30  # 0 beats 1 beats 2, always
    elo = fit(games, 3)
    assert elo[0] > elo[1] > elo[2]
    assert sum(elo) / 3 == pytest.approx(ELO_MEAN)
    assert elo[0] - elo[2] < 2000  # the virtual draws keep it finite


def test_interval_contains_the_estimate_and_shrinks_with_games() -> None:
    few = ratings([[(0, 1), (1, 2)], [(0, 2), (1, 1)], [(0, 1), (1, 2)]], 2)
    many = ratings([[(0, 1), (1, 2)], [(0, 2), (1, 1)], [(0, 1), (1, 2)]] * 30, 2)
    for rating in few + many:
        assert rating.low <= rating.elo <= rating.high
    assert many[0].margin < few[0].margin
    assert many[0].elo > many[1].elo


def test_ties_score_half() -> None:
    assert fit([[(0, 1), (1, 1)]] * 10, 2) == pytest.approx([ELO_MEAN, ELO_MEAN])


def test_rotations_seat_everyone_everywhere() -> None:
    seatings = list(rotations(3, 3))
    assert seatings == [[0, 1, 2], [2, 0, 1], [1, 2, 0]]
    for player in range(3):
        assert sorted(s.index(player) for s in seatings) == [0, 1, 2]


def test_schedule_plays_every_table() -> None:
    assert schedule(4, 2, 6) == [((a, b), 6) for a in range(4) for b in range(a + 1, 4)]
    with pytest.raises(ValueError, match="at least 3 bots"):
        schedule(2, 3, 1)


def test_forfeited_seats_rank_last() -> None:
    result = [SeatResult(0, 300, 3, 2), SeatResult(1, 500, 4, 1), SeatResult(2, 100, 1, 3)]
    ranked = standings(result, forfeited={1})
    assert [(r["rank"], r["forfeited"]) for r in ranked] == [(1, False), (3, True), (2, False)]


def test_a_large_field_keeps_its_scale() -> None:
    # 100 players 200 Elo apart per standard deviation, 60 one-against-one games each:
    # one virtual draw between every two players used to squeeze them to a third.
    rng = random.Random(0)
    true = [1500 + 200 * rng.gauss(0, 1) for _ in range(100)]
    games = []
    for _ in range(3000):
        a, b = rng.sample(range(100), 2)
        a_wins = rng.random() < 1 / (1 + 10 ** ((true[b] - true[a]) / 400))
        games.append([(a, 1 if a_wins else 2), (b, 2 if a_wins else 1)])
    elo = fit(games, 100)
    mean_true, mean_fit = sum(true) / 100, sum(elo) / 100
    slope = sum((t - mean_true) * (e - mean_fit) for t, e in zip(true, elo, strict=True)) / sum(
        (t - mean_true) ** 2 for t in true
    )
    assert 0.9 <= slope <= 1.2, slope


def _log_posterior(
    totals: PairTotals[str], priors: dict[str, float], elo: dict[str, float]
) -> float:
    """The fit's log posterior at ``elo``, written out from the model: each pair of weighted
    games on the logistic, each player's virtual draws against its prior."""
    x = {p: LOG_ODDS_PER_POINT * r for p, r in elo.items()}
    total = 0.0
    for p, prior in priors.items():
        centre = LOG_ODDS_PER_POINT * prior
        total += totals.score.get(p, 0.0) * x[p]
        total += PRIOR_DRAWS * (x[p] - math.log(math.exp(x[p] - centre) + 1.0) - centre / 2)
        for other, games in totals.games.get(p, {}).items():
            if other < p:  # each pair once
                total -= games * math.log(math.exp(x[p]) + math.exp(x[other]))
    return total


def _field(seed: int, newcomer_games: int) -> PairTotals[str]:
    """90 random 3-seat games of ann, ben and cat, and ``newcomer_games`` of dan against
    two of them."""
    rng = random.Random(seed)
    strength = {"ann": 200.0, "ben": 50.0, "cat": 0.0, "dan": -150.0}
    tables = [["ann", "ben", "cat"]] * 90
    tables += [["dan", *rng.sample(["ann", "ben", "cat"], 2)] for _ in range(newcomer_games)]
    units = []
    for table in tables:
        order = sorted(table, key=lambda p: -(strength[p] + rng.gauss(0, 300)))
        units.append([(p, order.index(p) + 1) for p in table])
    return PairTotals.of(units)


def test_a_deviation_is_the_log_posteriors_curvature_in_the_rating_others_held() -> None:
    totals = _field(3, 8)
    priors = {"ann": 1500.0, "ben": 1600.0, "cat": 1500.0, "dan": 1450.0}
    elo = fit_totals(totals, priors)

    deviations = fit_deviations(totals, priors, elo)

    h = 0.5  # Elo points
    for player in priors:
        at = _log_posterior(totals, priors, elo)
        up = _log_posterior(totals, priors, {**elo, player: elo[player] + h})
        down = _log_posterior(totals, priors, {**elo, player: elo[player] - h})
        curvature = -(up - 2 * at + down) / (LOG_ODDS_PER_POINT * h) ** 2
        assert deviations[player] == pytest.approx(
            1 / (LOG_ODDS_PER_POINT * math.sqrt(curvature)), rel=1e-4
        )


def test_a_deviation_is_larger_for_fewer_games_and_shrinks_as_they_add_up() -> None:
    priors = dict.fromkeys(("ann", "ben", "cat", "dan", "new"), ELO_MEAN)
    few = _field(5, 4)
    more = _field(5, 40)

    at_few = fit_deviations(few, priors, fit_totals(few, priors))
    at_more = fit_deviations(more, priors, fit_totals(more, priors))

    assert at_few["dan"] > max(at_few[p] for p in ("ann", "ben", "cat"))
    assert at_more["dan"] < at_few["dan"]
    # Without results a player has its prior's deviation, some 246 Elo.
    assert at_few["new"] == pytest.approx(PRIOR_DEVIATION) and 245 < PRIOR_DEVIATION < 247
    assert all(d < PRIOR_DEVIATION for p, d in at_few.items() if p != "new")
