"""Elo ratings for multiplayer games, by pairwise decomposition.

A game of N seats counts as N(N-1)/2 one-against-one games: each pair of
seats scores 1 / 0.5 / 0 by rank (rank 1 is best, equal ranks draw). A seat's
change is K/(N-1) times the sum, over its opponents, of (score - expected), so
one match moves a rating about as much as one 1v1 game, whatever N is.

Pure functions: the services load and lock the ratings, this module only
computes.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

INITIAL_RATING = 1500.0
PROVISIONAL_MATCHES = 30
K_PROVISIONAL = 48.0
K_ESTABLISHED = 16.0

P = TypeVar("P", bound=Hashable)


def k_factor(rated_matches: int) -> float:
    """K for a rating with this many rated matches: large while it is still being found."""
    return K_PROVISIONAL if rated_matches < PROVISIONAL_MATCHES else K_ESTABLISHED


def is_provisional(rated_matches: int) -> bool:
    return rated_matches < PROVISIONAL_MATCHES


def display_rating(rating: float, rated_matches: int) -> str:
    """A rating as shown on pages: rounded, with "?" while provisional."""
    return f"{round(rating)}{'?' if is_provisional(rated_matches) else ''}"


def expected_score(rating: float, opponent: float) -> float:
    return 1.0 / (1.0 + math.pow(10.0, (opponent - rating) / 400.0))


def pair_score(rank: int, opponent_rank: int) -> float:
    if rank < opponent_rank:
        return 1.0
    if rank == opponent_rank:
        return 0.5
    return 0.0


@dataclass(frozen=True)
class SeatRating:
    """A seat as Elo sees it."""

    #: Who plays the seat; two seats of the same player are not rated against each other.
    player: Hashable
    rating: float
    rank: int
    k: float


def seat_changes(seats: Sequence[SeatRating]) -> list[float]:
    """The rating change of each seat, in the order given."""
    n = len(seats)
    if n < 2:
        raise ValueError(f"a rated game needs at least 2 seats, got {n}")
    changes = []
    for i, seat in enumerate(seats):
        total = 0.0
        for j, other in enumerate(seats):
            if i == j or other.player == seat.player:
                continue
            total += pair_score(seat.rank, other.rank) - expected_score(seat.rating, other.rating)
        changes.append(seat.k / (n - 1) * total)
    return changes


def rating_changes(
    standings: Sequence[tuple[P, int]],
    ratings: Mapping[P, float],
    rated_matches: Mapping[P, int],
) -> dict[P, float]:
    """Each player's rating change for one rated unit (a match, or a whole deal).

    ``standings``: (player, rank) per seat, a player at two seats twice; it gets
    the sum of both seats' changes, applied once.
    """
    seats = [
        SeatRating(player, ratings[player], rank, k_factor(rated_matches[player]))
        for player, rank in standings
    ]
    delta: dict[P, float] = defaultdict(float)
    for (player, _), change in zip(standings, seat_changes(seats), strict=True):
        delta[player] += change
    return dict(delta)
