"""Elo by pairwise decomposition, K that falls with the games: examples computed by hand."""

from __future__ import annotations

import math
import random
from itertools import pairwise

import pytest

from arena.ladders.elo import (
    INITIAL_DEVIATION,
    INITIAL_RATING,
    K_FLOOR,
    LOG_ODDS_PER_POINT,
    PROVISIONAL_DEVIATION,
    STRETCH_LIMIT,
    STRETCH_PAIRS,
    Calibration,
    SeatRating,
    display_rating,
    expected_score,
    is_provisional,
    is_settling,
    is_tied,
    k_factor,
    rating_changes,
    seat_changes,
    seat_weight,
    stretch,
    tied_with_above,
    unit_calibration,
    unit_deviations,
    unit_k_factors,
    working_rating,
)
from arena.ladders.matchmaking import UNIFORM_SHARE, opponent_weight, rating_width


def seat(player: str, rating: float, rank: int, k: float = 20.0) -> SeatRating:
    return SeatRating(player=player, rating=rating, rank=rank, k=k)


def test_two_equal_new_bots_winner_takes_half_of_k() -> None:
    # A new rating's K: 700 / (5 + 0) = 140; E = 0.5 each, so +-70.
    assert k_factor(0) == 140
    assert seat_changes([seat("alice", 1500, 1, 140), seat("bob", 1500, 2, 140)]) == [70.0, -70.0]


def test_two_seats_upset_with_different_k() -> None:
    # alice 1600 (30 matches, K=20) loses to bob 1400 (new, K=140).
    # E_alice = 1 / (1 + 10^(-200/400)) = 1 / (1 + 0.316228) = 0.759747
    # alice: 20 * (0 - 0.759747) = -15.19494; bob: 140 * (1 - 0.240253) = +106.36458
    changes = seat_changes([seat("alice", 1600, 2, k=20), seat("bob", 1400, 1, k=140)])
    assert changes == pytest.approx([-15.19494, 106.36458], abs=1e-4)


def test_two_seats_draw_between_equals_changes_nothing() -> None:
    assert seat_changes([seat("alice", 1500, 1), seat("bob", 1500, 1)]) == [0.0, 0.0]


def test_four_equal_seats_ranked_in_order() -> None:
    # K * 3/(N+1) = 20 * 0.6 = 12. Seat 1: 3 wins * 0.5 = 1.5 -> +18; seat 2: -0.5 +0.5 +0.5 -> +6.
    seats = [seat(name, 1500, rank) for name, rank in (("a", 1), ("b", 2), ("c", 3), ("d", 4))]
    assert seat_changes(seats) == pytest.approx([18.0, 6.0, -6.0, -18.0])


def test_four_seats_with_a_tie() -> None:
    # b and c share rank 2: their pair is a draw; each has one win and one loss otherwise.
    seats = [seat(name, 1500, rank) for name, rank in (("a", 1), ("b", 2), ("c", 2), ("d", 4))]
    assert seat_changes(seats) == pytest.approx([18.0, 0.0, 0.0, -18.0])


def test_four_seats_mixed_ratings_by_hand() -> None:
    # E(100 above) = 0.640065, E(200 above) = 0.759747, E(equal) = 0.5; K * 3/5 = 12.
    # seat 0 (1600, last):  12 * -(0.640065 + 0.640065 + 0.759747) = -24.47852
    # seat 1 (1500, first): 12 * (0.640065 + 0.5 + 0.359935)       = +18
    # seat 2 (1500, 2nd):   12 * (0.640065 - 0.5 + 0.359935)       = +6
    # seat 3 (1400, 3rd):   12 * (0.759747 - 0.359935 - 0.359935)  = +0.47852
    seats = [seat("a", 1600, 4), seat("b", 1500, 1), seat("c", 1500, 2), seat("d", 1400, 3)]
    changes = seat_changes(seats)
    assert changes == pytest.approx([-24.47852, 18.0, 6.0, 0.47852], abs=1e-4)
    assert sum(changes) == pytest.approx(0.0, abs=1e-9)


def test_two_seats_of_the_same_player_are_not_rated_against_each_other() -> None:
    # The house bot sits twice: only its games against alice count. K * 3/4 = 15.
    seats = [seat("alice", 1500, 1), seat("house", 1500, 2), seat("house", 1500, 3)]
    # alice: 15 * (0.5 + 0.5) = +15; each house seat: 15 * (0 - 0.5) = -7.5
    assert seat_changes(seats) == [15.0, -7.5, -7.5]


def test_rating_changes_sum_a_player_s_seats_and_take_k_from_its_matches() -> None:
    changes = rating_changes(
        [("alice", 1), ("house", 2), ("house", 3)],
        {"alice": 1500.0, "house": 1500.0},
        {"alice": 0, "house": 100},
    )
    # alice is new against a settled house bot: K = 700 / (2 + 0) = 350; house has 100
    # matches of 3 seats against a provisional alice: K = 700 / (5 + 150).
    k_house = 700 / 155
    assert changes == pytest.approx({"alice": 350 * 0.75, "house": -k_house * 0.75})


def test_expected_scores_are_symmetric() -> None:
    assert expected_score(1700, 1500) + expected_score(1500, 1700) == pytest.approx(1.0)


def test_a_ranking_of_n_is_worth_3_n_minus_1_over_n_plus_1_one_against_one_games() -> None:
    # Over equal players a seat's pair total (N - rank) varies (N^2 - 1) / 12, against
    # (N - 1) / 4 for independent pairs: the information of one ranking, in 1v1 games.
    for n in (2, 3, 4, 5):
        totals = [n - rank for rank in range(1, n + 1)]
        mean = sum(totals) / n
        variance = sum((t - mean) ** 2 for t in totals) / n
        assert variance == pytest.approx((n * n - 1) / 12)
        assert seat_weight(n) == pytest.approx((n - 1) ** 2 / 4 / variance)
    assert [seat_weight(n) for n in (2, 3, 4, 5)] == pytest.approx([1.0, 1.5, 1.8, 2.0])


def test_k_falls_with_the_games_a_rating_has_seen_down_to_a_floor() -> None:
    # 700 / (5 + games), games counted in one-against-one games' worth.
    assert [k_factor(n) for n in (0, 30, 100)] == pytest.approx([140, 20, 700 / 105])
    assert k_factor(25, seats=4) == pytest.approx(700 / (5 + 25 * 1.8))
    assert k_factor(10_000) == K_FLOOR == 4
    for seats in (2, 4):
        ks = [k_factor(n, seats) for n in range(300)]
        assert all(k >= K_FLOOR for k in ks)
        assert all(a >= b for a, b in pairwise(ks))


def test_against_settled_opponents_only_the_prior_is_2_games() -> None:
    assert k_factor(0, against_settled=True) == 350  # 700 / (2 + 0)
    assert k_factor(20, seats=4, against_settled=True) == pytest.approx(700 / (2 + 20 * 1.8))
    assert k_factor(10_000, against_settled=True) == K_FLOOR


def test_each_player_s_k_knows_whether_its_opponents_are_settled() -> None:
    settled, other_settled, newcomer = 30, 100, 0
    played = {"old": settled, "older": other_settled, "new": newcomer, "newer": 29}
    # The newcomer meets two settled bots: the prior of 2; they meet a provisional one: 5.
    assert unit_k_factors([("new", 1), ("old", 2), ("older", 3)], played) == pytest.approx(
        {"new": 700 / (2 + 0), "old": 700 / (5 + 30 * 1.5), "older": 700 / (5 + 100 * 1.5)}
    )
    # One provisional opponent is enough for the prior of 5.
    ks = unit_k_factors([("new", 1), ("old", 2), ("newer", 3)], played)
    assert ks["new"] == pytest.approx(700 / 5)
    # Two seats of one version: its opponents are the others only.
    assert unit_k_factors([("new", 1), ("new", 2), ("old", 3)], played)["new"] == 350
    # rating_changes steps with these Ks.
    changes = rating_changes([("new", 1), ("old", 2)], {"new": 1500, "old": 1500}, played)
    assert changes == pytest.approx({"new": 350 / 2, "old": -(700 / 35) / 2})


def test_provisional_by_the_deviation_shown_with_the_rating() -> None:
    assert is_provisional(PROVISIONAL_DEVIATION + 0.1)
    assert not is_provisional(PROVISIONAL_DEVIATION)
    assert display_rating(1523.6, 61.2) == "1524? ± 61"
    assert display_rating(1523.4, 44.6) == "1523 ± 45"
    # K, the scheduler and the refit still count games.
    assert is_settling(29) and not is_settling(30)


def test_neighbours_within_one_standard_error_of_their_difference_are_tied() -> None:
    # The difference's standard error: hypot(30, 40) = 50.
    assert is_tied(1600, 30, 1551, 40)
    assert not is_tied(1600, 30, 1550, 40)
    # Best first: each row against the one above it, the first against ``above``.
    rows = [(1600.0, 30.0), (1560.0, 30.0), (1450.0, 30.0), (1440.0, 100.0)]
    assert tied_with_above(rows) == [False, True, False, True]
    assert tied_with_above(rows, above=(1620.0, 20.0)) == [True, True, False, True]
    assert tied_with_above([]) == []


def _information(deviation: float) -> float:
    """The log posterior's curvature (natural log-odds) of a rating with this deviation."""
    return 1.0 / (LOG_ODDS_PER_POINT * deviation) ** 2


def test_a_new_rating_has_its_priors_deviation_and_each_pair_adds_weight_p_1_minus_p() -> None:
    # Two virtual draws at p = 1/2: a curvature of 2/4.
    assert _information(INITIAL_DEVIATION) == pytest.approx(0.5)
    ratings = {"a": 1500.0, "b": 1700.0, "c": 1400.0}
    deviations = {"a": INITIAL_DEVIATION, "b": 80.0, "c": 120.0}

    after = unit_deviations([("a", 1), ("b", 2), ("c", 3)], ratings, deviations)

    weight = 3 / 4  # each pair of a 3-seat game

    def pq(x: float, y: float) -> float:
        p = expected_score(x, y)
        return weight * p * (1 - p)

    assert _information(after["a"]) == pytest.approx(0.5 + pq(1500, 1700) + pq(1500, 1400))
    assert _information(after["b"]) == pytest.approx(
        _information(80.0) + pq(1700, 1500) + pq(1700, 1400)
    )
    # Win or lose, the curvature grows the same: the deviation never grows with a result.
    assert unit_deviations([("c", 1), ("b", 2), ("a", 3)], ratings, deviations) == after
    assert all(after[p] < deviations[p] for p in ratings)


def test_a_player_at_two_seats_counts_the_pairs_of_both_against_the_others_only() -> None:
    ratings = {"house": 1500.0, "ann": 1500.0}
    deviations = {"house": 100.0, "ann": 100.0}

    after = unit_deviations([("house", 1), ("ann", 2), ("house", 3)], ratings, deviations)

    # Two pairs of weight 3/4 at p = 1/2 for each, none of house against itself.
    assert _information(after["house"]) == pytest.approx(_information(100.0) + 2 * 0.75 / 4)
    assert after["ann"] == pytest.approx(after["house"])


def test_the_deviation_of_a_stretched_ladder_is_stretched_with_its_ratings() -> None:
    scale = 1.2
    working = {"a": 1550.0, "b": 1450.0}
    shown = {p: INITIAL_RATING + scale * (r - INITIAL_RATING) for p, r in working.items()}

    plain = unit_deviations([("a", 1), ("b", 2)], working, {"a": 90.0, "b": 60.0})
    stretched = unit_deviations(
        [("a", 1), ("b", 2)], shown, {"a": 90.0 * scale, "b": 60.0 * scale}, scale
    )

    assert stretched == pytest.approx({p: d * scale for p, d in plain.items()})


@pytest.mark.parametrize(("seats", "settled_after"), [(2, 47), (3, 31), (4, 26), (5, 24)])
def test_against_its_equals_a_new_rating_settles_after_about_30_games_of_4_seats(
    seats: int, settled_after: int
) -> None:
    """The threshold's choice (docs/ratings.md): on a 4-seat ladder a new version stops
    being provisional after about as many games as the 30 counted before; a game of
    fewer seats tells less, so it takes more of them."""
    field = [f"p{i}" for i in range(1, seats)]
    deviation = INITIAL_DEVIATION
    games = 0
    while is_provisional(deviation):
        ratings = dict.fromkeys(["new", *field], INITIAL_RATING)
        deviations = {"new": deviation, **dict.fromkeys(field, 30.0)}
        standings = [("new", 1), *((p, rank) for rank, p in enumerate(field, start=2))]
        deviation = unit_deviations(standings, ratings, deviations)["new"]
        games += 1
    assert games == settled_after


def test_a_game_needs_two_seats() -> None:
    with pytest.raises(ValueError, match="at least 2 seats"):
        seat_changes([seat("alice", 1500, 1)])


def _spearman(a: list[float], b: list[float]) -> float:
    def ranks(values: list[float]) -> list[int]:
        order = sorted(range(len(values)), key=values.__getitem__)
        return [order.index(i) for i in range(len(values))]

    ra, rb = ranks(a), ranks(b)
    n = len(a)
    return 1 - 6 * sum((x - y) ** 2 for x, y in zip(ra, rb, strict=True)) / (n * (n * n - 1))


def test_ratings_keep_learning_where_a_fixed_k_of_16_stops() -> None:
    # 30 bots 150 Elo apart per standard deviation, 200 one-against-one games each,
    # results drawn by Elo's own curve: the falling K ranks them closer to the truth.
    rng = random.Random(5)
    true = [150 * rng.gauss(0, 1) for _ in range(30)]
    schedule = dict.fromkeys(range(30), INITIAL_RATING)
    fixed = dict.fromkeys(range(30), INITIAL_RATING)
    played = dict.fromkeys(range(30), 0)
    for _ in range(3000):
        a, b = rng.sample(range(30), 2)
        a_wins = rng.random() < expected_score(true[a], true[b])
        standings = [(a, 1 if a_wins else 2), (b, 2 if a_wins else 1)]
        for player, change in rating_changes(standings, schedule, played).items():
            schedule[player] += change
            played[player] += 1
        changes = seat_changes([SeatRating(p, fixed[p], rank, 16.0) for p, rank in standings])
        for (player, _), change in zip(standings, changes, strict=True):
            fixed[player] += change
    by_schedule = _spearman(list(schedule.values()), true)
    by_fixed = _spearman(list(fixed.values()), true)
    assert by_schedule > by_fixed + 0.01, (by_schedule, by_fixed)
    assert by_schedule > 0.95


def test_a_stretched_ladder_moves_as_its_working_elo_only_stretched() -> None:
    standings = [("a", 1), ("b", 2), ("c", 3)]
    played = {"a": 3, "b": 40, "c": 12}
    working = {"a": 1540.0, "b": 1480.0, "c": 1400.0}
    plain = rating_changes(standings, working, played)
    shown = {p: INITIAL_RATING + 1.6 * (r - INITIAL_RATING) for p, r in working.items()}
    assert working_rating(shown["c"], 1.6) == pytest.approx(1400.0)
    stretched = rating_changes(standings, shown, played, scale=1.6)
    assert stretched == pytest.approx({p: 1.6 * change for p, change in plain.items()})


def test_calibration_evidence_of_a_unit_by_hand() -> None:
    # 1700 against 1500: x = 200 Elo points in log-odds, p = 1 / (1 + 10^-0.5) = 0.7597.
    x = 200 * LOG_ODDS_PER_POINT
    p = 1 / (1 + 10**-0.5)
    won = unit_calibration([("a", 1), ("b", 2)], {"a": 1700.0, "b": 1500.0})
    assert won == Calibration(pytest.approx((1 - p) * x), pytest.approx(p * (1 - p) * x * x), 1)
    lost = unit_calibration([("a", 2), ("b", 1)], {"a": 1700.0, "b": 1500.0})
    assert lost.gradient == pytest.approx(-p * x)
    # Equal ratings say nothing of the slope; a player's two seats are no pair.
    level = unit_calibration([("a", 1), ("a", 2), ("b", 3)], {"a": 1500.0, "b": 1500.0})
    assert level == Calibration(0.0, 0.0, 2)
    assert won + lost == Calibration(won.gradient + lost.gradient, 2 * won.curvature, 2)


def test_the_stretch_waits_for_its_pairs_and_a_clear_slope_then_takes_its_root() -> None:
    # Slope 1 + gradient / curvature: 1.44 stretches by 1.2.
    assert stretch(Calibration(44.0, 100.0, STRETCH_PAIRS - 1)) is None
    assert stretch(Calibration(44.0, 100.0, STRETCH_PAIRS)) == pytest.approx(1.2)
    # Not for a slope the pairs' noise explains: the score 5 is half its standard error 10.
    assert stretch(Calibration(5.0, 100.0, 10 * STRETCH_PAIRS)) is None
    # Never a shrink (slope 0.81 here), and at most STRETCH_LIMIT at once.
    assert stretch(Calibration(-19.0, 100.0, STRETCH_PAIRS)) is None
    assert stretch(Calibration(900.0, 100.0, STRETCH_PAIRS)) == STRETCH_LIMIT


def _slope(pairs: list[tuple[float, float]]) -> float:
    """The logistic slope of results on Elo differences (1: the differences mean what they say)."""
    beta = 1.0
    for _ in range(30):
        gradient = curvature = 0.0
        for difference, score in pairs:
            x = LOG_ODDS_PER_POINT * difference
            p = 1 / (1 + math.exp(-beta * x))
            gradient += (score - p) * x
            curvature += p * (1 - p) * x * x
        beta += gradient / curvature
    return beta


def _decisive_ladder(stretched: bool) -> tuple[list[float], float]:
    """40 bots 500 Elo apart per standard deviation (decisive, as duplicate deals are), each
    game against an opponent drawn as the scheduler draws, results drawn by Elo's own
    curve; its ratings after 4,000 games and their slope on 4,000 fresh games of random
    pairs."""
    rng = random.Random(3)
    true = [500 * rng.gauss(0, 1) for _ in range(40)]
    rating = dict.fromkeys(range(40), INITIAL_RATING)
    played = dict.fromkeys(range(40), 0)
    scale, calibration = 1.0, Calibration()
    for _ in range(4000):
        a = rng.randrange(40)
        others = [o for o in range(40) if o != a]
        # As the scheduler draws (matchmaking.pick_seating), on the working Elo.
        weights = [
            opponent_weight(
                working_rating(rating[a], scale),
                working_rating(rating[o], scale),
                rating_width(2, duplicate_deals=True),
            )
            for o in others
        ]
        b = rng.choice(others) if rng.random() < UNIFORM_SHARE else rng.choices(others, weights)[0]
        a_wins = rng.random() < expected_score(true[a], true[b])
        standings = [(a, 1 if a_wins else 2), (b, 2 if a_wins else 1)]
        if stretched:
            calibration += unit_calibration(standings, rating)
        for player, change in rating_changes(standings, rating, played, scale).items():
            rating[player] += change
            played[player] += 1
        factor = stretch(calibration)
        if factor is not None:
            # As ratings_apply stretches a ladder.
            rating = {p: INITIAL_RATING + factor * (r - INITIAL_RATING) for p, r in rating.items()}
            scale, calibration = scale * factor, Calibration()
    fresh = []
    for _ in range(4000):
        a, b = rng.sample(range(40), 2)
        fresh.append(
            (rating[a] - rating[b], float(rng.random() < expected_score(true[a], true[b])))
        )
    return list(rating.values()), _slope(fresh)


def test_the_stretch_calibrates_a_decisive_ladder_without_reordering_it() -> None:
    plain, plain_slope = _decisive_ladder(stretched=False)
    shown, shown_slope = _decisive_ladder(stretched=True)
    # The falling K leaves the ratings compressed: held-out results go to the
    # higher-rated more often than their differences say.
    assert plain_slope > 1.25, plain_slope
    assert 0.85 < shown_slope < 1.15, shown_slope
    # The working Elo played the same games: the order is the same.
    assert sorted(range(40), key=plain.__getitem__) == sorted(range(40), key=shown.__getitem__)
