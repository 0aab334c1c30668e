"""Elo by pairwise decomposition: examples computed by hand."""

from __future__ import annotations

import pytest

from arena.ladders.elo import (
    SeatRating,
    display_rating,
    expected_score,
    is_provisional,
    k_factor,
    seat_changes,
)


def seat(player: str, rating: float, rank: int, k: float = 48.0) -> SeatRating:
    return SeatRating(player=player, rating=rating, rank=rank, k=k)


def test_two_equal_new_bots_winner_takes_half_of_k() -> None:
    # E = 0.5 each; winner: 48/1 * (1 - 0.5) = +24, loser -24.
    assert seat_changes([seat("alice", 1500, 1), seat("bob", 1500, 2)]) == [24.0, -24.0]


def test_two_seats_upset_with_different_k() -> None:
    # alice 1600 (established, K=16) loses to bob 1400 (new, K=48).
    # E_alice = 1 / (1 + 10^(-200/400)) = 1 / (1 + 0.316228) = 0.759747
    # alice: 16 * (0 - 0.759747) = -12.15595; bob: 48 * (1 - 0.240253) = +36.46786
    changes = seat_changes([seat("alice", 1600, 2, k=16), seat("bob", 1400, 1, k=48)])
    assert changes == pytest.approx([-12.15595, 36.46786], abs=1e-4)


def test_two_seats_draw_between_equals_changes_nothing() -> None:
    assert seat_changes([seat("alice", 1500, 1), seat("bob", 1500, 1)]) == [0.0, 0.0]


def test_four_equal_seats_ranked_in_order() -> None:
    # K/(N-1) = 16. Seat 1: 3 wins * 0.5 = 1.5 -> +24; seat 2: -0.5 +0.5 +0.5 -> +8.
    seats = [seat(name, 1500, rank) for name, rank in (("a", 1), ("b", 2), ("c", 3), ("d", 4))]
    assert seat_changes(seats) == [24.0, 8.0, -8.0, -24.0]


def test_four_seats_with_a_tie() -> None:
    # b and c share rank 2: their pair is a draw; each has one win and one loss otherwise.
    seats = [seat(name, 1500, rank) for name, rank in (("a", 1), ("b", 2), ("c", 2), ("d", 4))]
    assert seat_changes(seats) == [24.0, 0.0, 0.0, -24.0]


def test_four_seats_mixed_ratings_by_hand() -> None:
    # E(100 above) = 0.640065, E(200 above) = 0.759747, E(equal) = 0.5.
    # seat 0 (1600, last):  16 * -(0.640065 + 0.640065 + 0.759747) = -32.63803
    # seat 1 (1500, first): 16 * (0.640065 + 0.5 + 0.359935)       = +24
    # seat 2 (1500, 2nd):   16 * (0.640065 - 0.5 + 0.359935)       = +8
    # seat 3 (1400, 3rd):   16 * (0.759747 - 0.359935 - 0.359935)  = +0.63803
    seats = [seat("a", 1600, 4), seat("b", 1500, 1), seat("c", 1500, 2), seat("d", 1400, 3)]
    changes = seat_changes(seats)
    assert changes == pytest.approx([-32.63803, 24.0, 8.0, 0.63803], abs=1e-4)
    assert sum(changes) == pytest.approx(0.0, abs=1e-9)


def test_two_seats_of_the_same_player_are_not_rated_against_each_other() -> None:
    # The house bot sits twice: only its games against alice count.
    seats = [seat("alice", 1500, 1), seat("house", 1500, 2), seat("house", 1500, 3)]
    # alice: 48/2 * (0.5 + 0.5) = +24; each house seat: 24 * (0 - 0.5) = -12
    assert seat_changes(seats) == [24.0, -12.0, -12.0]


def test_expected_scores_are_symmetric() -> None:
    assert expected_score(1700, 1500) + expected_score(1500, 1700) == pytest.approx(1.0)


def test_k_is_48_for_the_first_30_rated_matches_then_16() -> None:
    assert [k_factor(n) for n in (0, 1, 29, 30, 31, 500)] == [48, 48, 48, 16, 16, 16]


def test_provisional_mark() -> None:
    assert is_provisional(29) and not is_provisional(30)
    assert display_rating(1523.6, 29) == "1524?"
    assert display_rating(1523.4, 30) == "1523"


def test_a_game_needs_two_seats() -> None:
    with pytest.raises(ValueError, match="at least 2 seats"):
        seat_changes([seat("alice", 1500, 1)])
