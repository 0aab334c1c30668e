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
are all guesses: with the smaller prior throughout, a luck-heavy field ranks
worse early on), but a newcomer placed against settled ratings does not:
there the smaller prior places strong newcomers closer (docs/design.md,
*Ratings*).

Why the shown Elo is stretched (:func:`stretch`): the falling K leaves a
wide field's ratings compressed. Each rating is a running estimate against
opponents that were themselves still compressed when the games were
played, and a running estimate's step corrects the field's spread as a
whole only slowly. Where results are decisive, as in duplicate deals, the
shown Elo was clearly too compressed (held-out deals went to the
higher-rated bot more often than its Elo difference said), and single games
on a field twice as wide are as compressed. A larger K spreads it but ranks
worse and over-spreads single games; counting each game's information
4p(1-p) instead of its number (Glicko-like) barely moves it, p coming from
the compressed ratings. So the updates run on a working Elo as before, and
the ratings shown are INITIAL_RATING + scale * (working - INITIAL_RATING):
once STRETCH_PAIRS pairs of results are in and the slope of the results on
the shown differences is clearly above 1, the ladder's ratings are
stretched by the root of that slope. Ranks, K, matchmaking and newcomers
are those of the working Elo; on 2-seat deals the slope comes close to 1,
and every other ladder of the bench is unchanged (``bench/ratings.py``
measures it, ``--no-stretch`` beside it: bench/README.md).

A sweep replaces a ladder's ratings by the fit of this same model on its
whole history every 50 rated units or so (:mod:`.refit`); between refits
these updates carry each result at once.

Each rating has a deviation, the model's own uncertainty (Elo points, as
shown): the refit sets it from its log posterior's curvature
(:func:`bots_sdk.rating.fit_deviations`), and each rated unit adds its
pairs' weight times p(1 - p) to that curvature (:func:`unit_deviations`,
Glicko's update without its growth over time: a bot version is a fixed
program, its strength does not drift). A rating is provisional while its
deviation is above PROVISIONAL_DEVIATION (:func:`is_provisional`), and two
neighbours whose difference is within TIE_Z deviations of it are tied
(:func:`is_tied`). Elo's K, the scheduler and the refit's newcomers still
count games (SETTLING_MATCHES): their tuning is measured on game counts
(``bench/ratings.py``), and the threshold is chosen to agree with them on a
4-seat ladder (docs/ratings.md).

Pure functions: the services load and lock the ratings, this module only
computes.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from bots_sdk.rating import (
    LOG_ODDS_PER_POINT,
    PRIOR_DEVIATION,
    deviation_of,
    information_of,
    pair_information,
    pair_score,
)

INITIAL_RATING = 1500.0
#: A rating without results: its prior's deviation (about 246 Elo points).
INITIAL_DEVIATION = PRIOR_DEVIATION
#: Above this deviation (Elo points) a rating is provisional: listed apart, shown with "?".
#: About 26-30 games of 4 seats, 47 or more 1v1 games or duplicate deals (docs/ratings.md).
PROVISIONAL_DEVIATION = 50.0
#: Two neighbours are tied while their difference is under TIE_Z standard errors of it:
#: the verdicts' "level" (within one standard error).
TIE_Z = 1.0
#: Under this many rated units Elo's K, the scheduler and the refit treat a rating as
#: still settling (its first steps are larger, its seeds draw settled opponents).
SETTLING_MATCHES = 30
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
                not is_settling(rated_matches[other]) for other in players - {player}
            ),
        )
        for player in players
    }


def is_settling(rated_matches: int) -> bool:
    """Whether Elo's K, the scheduler and the refit treat the rating as still settling."""
    return rated_matches < SETTLING_MATCHES


def is_provisional(deviation: float) -> bool:
    """Whether a rating with this deviation is provisional: its ± over PROVISIONAL_DEVIATION."""
    return deviation > PROVISIONAL_DEVIATION


def display_rating(rating: float, deviation: float) -> str:
    """A rating as shown on pages: "1623 ± 45", with "?" while provisional ("1500? ± 246")."""
    mark = "?" if is_provisional(deviation) else ""
    return f"{round(rating)}{mark} ± {round(deviation)}"


def is_tied(rating: float, deviation: float, other: float, other_deviation: float) -> bool:
    """Whether two ratings' difference is within the noise: under TIE_Z standard errors
    of the difference (the two deviations taken as independent)."""
    return abs(rating - other) < TIE_Z * math.hypot(deviation, other_deviation)


def tied_with_above(
    rows: Sequence[tuple[float, float]], above: tuple[float, float] | None = None
) -> list[bool]:
    """For each (rating, deviation) of a table, best first, whether it is tied with the row
    above it (:func:`is_tied`); ``above``: the row above the first (a previous page's last)."""
    tied = []
    for row in rows:
        tied.append(above is not None and is_tied(*row, *above))
        above = row
    return tied


def unit_deviations(
    standings: Sequence[tuple[P, int]],
    ratings: Mapping[P, float],
    deviations: Mapping[P, float],
    scale: float = 1.0,
) -> dict[P, float]:
    """Each player's deviation after one rated unit (a match, or a whole deal).

    The model's curvature of each rating grows by every pair's weight 3/(N+1)
    times p(1 - p), p from the working Elo before the unit (as the Elo step's
    expected scores); a player at two seats counts both seats' pairs.
    ``ratings`` and ``deviations`` are shown ones, stretched by ``scale``.
    """
    weight = 3.0 / (len(standings) + 1)
    working = {player: working_rating(ratings[player], scale) for player in ratings}
    information = {player: information_of(deviations[player] / scale) for player, _ in standings}
    for a, (player, _) in enumerate(standings):
        for other, _ in standings[a + 1 :]:
            if other == player:
                continue
            gained = pair_information(weight, working[player], working[other])
            information[player] += gained
            information[other] += gained
    return {player: scale * deviation_of(info) for player, info in information.items()}


def expected_score(rating: float, opponent: float) -> float:
    return 1.0 / (1.0 + math.pow(10.0, (opponent - rating) / 400.0))


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


def working_rating(shown: float, scale: float) -> float:
    """The Elo the updates run on, of a rating shown stretched by ``scale`` (:func:`stretch`)."""
    return INITIAL_RATING + (shown - INITIAL_RATING) / scale


def rating_changes(
    standings: Sequence[tuple[P, int]],
    ratings: Mapping[P, float],
    rated_matches: Mapping[P, int],
    scale: float = 1.0,
) -> dict[P, float]:
    """Each player's rating change for one rated unit (a match, or a whole deal).

    ``standings``: (player, rank) per seat, a player at two seats twice; it gets
    the sum of both seats' changes, applied once. ``ratings`` are shown ones,
    stretched by ``scale`` from the Elo the updates run on: the expected
    scores and Ks are those of the working Elo, the changes stretched back.
    """
    ks = unit_k_factors(standings, rated_matches)
    seats = [
        SeatRating(player, working_rating(ratings[player], scale), rank, ks[player])
        for player, rank in standings
    ]
    delta: dict[P, float] = defaultdict(float)
    for (player, _), change in zip(standings, seat_changes(seats), strict=True):
        delta[player] += scale * change
    return dict(delta)


#: Pairs of results between two stretches of a ladder's shown Elo.
STRETCH_PAIRS = 500
#: How many standard errors above 1 the slope must be to stretch.
STRETCH_Z = 2.0
#: The most one stretch multiplies the scale by (a ladder's first pairs are few and noisy).
STRETCH_LIMIT = 1.25


@dataclass(frozen=True)
class Calibration:
    """How well the shown Elo predicted a ladder's results since its last stretch.

    The score and information of the logistic slope of the pairs' results on
    their shown rating differences (before the unit), at slope 1.
    """

    gradient: float = 0.0
    curvature: float = 0.0
    pairs: int = 0

    def __add__(self, other: Calibration) -> Calibration:
        return Calibration(
            self.gradient + other.gradient,
            self.curvature + other.curvature,
            self.pairs + other.pairs,
        )


def unit_calibration(standings: Sequence[tuple[P, int]], ratings: Mapping[P, float]) -> Calibration:
    """The calibration evidence of one rated unit: each pair of seats of different players."""
    gradient = curvature = 0.0
    pairs = 0
    for a, (player, rank) in enumerate(standings):
        for other, other_rank in standings[a + 1 :]:
            if other == player:
                continue
            x = LOG_ODDS_PER_POINT * (ratings[player] - ratings[other])
            p = expected_score(ratings[player], ratings[other])
            gradient += (pair_score(rank, other_rank) - p) * x
            curvature += p * (1.0 - p) * x * x
            pairs += 1
    return Calibration(gradient, curvature, pairs)


def stretch(calibration: Calibration) -> float | None:
    """How much to stretch a ladder's shown Elo about INITIAL_RATING, once STRETCH_PAIRS are in.

    The square root of the slope (one Newton step from 1): results going to
    the higher-rated more often than the Elo difference says (slope above 1)
    mean the ratings are compressed, as a falling K leaves a wide field's.
    None while the slope is less than STRETCH_Z standard errors above 1, the
    evidence adding up meanwhile; the root and STRETCH_LIMIT damp the noise
    of a few hundred results. Never a shrink: a slope below 1 is a new
    field's noise (its first ratings spread too wide), which the falling K
    takes away by itself; shrinking it left single-game ladders compressed
    later. STRETCH_Z of 2, not 1: at 1 calibrated ladders were stretched by
    chance, past calibration.
    """
    if calibration.pairs < STRETCH_PAIRS or calibration.curvature <= 0:
        return None
    # The score test of slope 1: no stretch for what the pairs' noise explains.
    if calibration.gradient < STRETCH_Z * math.sqrt(calibration.curvature):
        return None
    return min(math.sqrt(1.0 + calibration.gradient / calibration.curvature), STRETCH_LIMIT)
