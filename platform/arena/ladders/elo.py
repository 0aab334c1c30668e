"""Elo ratings for multiplayer games, by pairwise decomposition, with a K that keeps learning.

A game of N seats counts as N(N-1)/2 one-against-one games: each pair of
seats scores 1 / 0.5 / 0 by rank (rank 1 is best, equal ranks draw). A seat's
change is K * 3/(N+1) times the sum, over its opponents, of (score - expected).

Why 3/(N+1): the pairs of one ranking are not independent. Over equal
players a seat's pair total varies (N^2-1)/12 against (N-1)/4 for
independent pairs, so one ranking of N is worth 3(N-1)/(N+1) one-against-one
games (:func:`seat_weight`: 1, 1.5, 1.8, 2 for 2-5 seats), and the
information-weighted step is 3/(N+1) of a 1v1 game's per pair.

Why K falls as K_SCALE / (PRIOR_GAMES + games): that is the step of a
running maximum-likelihood estimate (4 / (ln 10 / 400) = 695, rounded to
700, Elo points over the games seen: a 1v1 game's Fisher information is 1/4
in log-odds), started
from a prior worth PRIOR_GAMES games: a new rating moves fast and settles
as its games add up, instead of dropping from one fixed K to another (a
fixed 16 stops improving and a fixed 48 never settles). K_FLOOR keeps an old
rating following a field that changes under it. ``bench/ratings.py`` measures
all of this against offline fits.

Why the prior is PRIOR_GAMES_AGAINST_SETTLED when every opponent is settled:
the prior also damps the first steps, which a new field needs (its ratings
are all guesses: with a prior of 2 a luck-heavy field ranks worse at 1k
matches), but a newcomer placed against settled ratings does not: there the
smaller prior places strong newcomers closer (docs/platform.md, *Rating
quality*).

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
#: Under this many rated matches a rating is provisional: listed apart, shown with "?".
PROVISIONAL_MATCHES = 30
#: K = K_SCALE / (PRIOR_GAMES + 1v1 games' worth played), never below K_FLOOR.
K_SCALE = 700.0
PRIOR_GAMES = 5.0
#: The prior of a rating whose opponents in the match are all settled.
PRIOR_GAMES_AGAINST_SETTLED = 2.0
K_FLOOR = 4.0

P = TypeVar("P", bound=Hashable)


def seat_weight(seats: int) -> float:
    """How many one-against-one games one ranking of ``seats`` players is worth."""
    return 3.0 * (seats - 1) / (seats + 1)


def k_factor(rated_matches: int, seats: int = 2, *, against_settled: bool = False) -> float:
    """K for a rating with this many rated matches of ``seats``: large while it is being found.

    ``against_settled``: every opponent in the match has a settled rating.
    """
    prior = PRIOR_GAMES_AGAINST_SETTLED if against_settled else PRIOR_GAMES
    return max(K_FLOOR, K_SCALE / (prior + rated_matches * seat_weight(seats)))


def unit_k_factors(
    standings: Sequence[tuple[P, int]], rated_matches: Mapping[P, int]
) -> dict[P, float]:
    """Each player's K for one rated unit (a match, or a whole deal) of these standings."""
    players = {player for player, _ in standings}
    return {
        player: k_factor(
            rated_matches[player],
            len(standings),
            against_settled=all(
                not is_provisional(rated_matches[other]) for other in players - {player}
            ),
        )
        for player in players
    }


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
        changes.append(seat.k * 3.0 / (n + 1) * total)
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
    ks = unit_k_factors(standings, rated_matches)
    seats = [SeatRating(player, ratings[player], rank, ks[player]) for player, rank in standings]
    delta: dict[P, float] = defaultdict(float)
    for (player, _), change in zip(standings, seat_changes(seats), strict=True):
        delta[player] += change
    return dict(delta)
