"""Ratings refitted on a ladder's whole history: Elo's own model, fitted to every result at once.

Why: a bot version is a fixed program, so its strength does not drift and
every result it ever had is evidence of the same strength. Elo's running
estimate (:mod:`.elo`) weighs each result by the K of its day and against
the opponents' ratings of that day, which were guesses themselves early
on; the maximum likelihood of the same model over all the results uses
each of them fully, as computer-chess rating lists rate fixed engines
(BayesElo, Ordo). ``services.ratings_apply`` still moves ratings by Elo as
each result comes in; a sweep (``services.ladders_refit_due``, every
minute) replaces a ladder's ratings by this fit of its history once 50
more units are rated, or 2% more of a large history (:func:`refit_due`).

The model is the one Elo updates on: each pair of seats of an N-seat unit
is a one-against-one game of weight 3/(N+1) (:func:`.elo.seat_changes`),
scored 1 / 0.5 / 0 by rank, on Elo's logistic curve (Bradley-Terry). The
prior: PRIOR_DRAWS virtual draws of each version against a fixed player at
the rating it started from (its parent version's, or INITIAL_RATING), so a
version without results keeps that rating and one that won every game stays
finite. ``bench/ratings.py`` measures it (docs/platform.md, *Rating
quality*).

Pure functions: the services load the results, this module only computes.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from .elo import INITIAL_RATING, LOG_ODDS_PER_POINT, is_provisional, pair_score

P = TypeVar("P", bound=Hashable)

#: Virtual draws of each version against its starting rating.
PRIOR_DRAWS = 2.0
#: The fit stops once no rating moved more than this many Elo points in an iteration.
TOLERANCE = 0.001
#: At most this many iterations (a cold start on a large, sparse field needs hundreds).
MAX_ITERATIONS = 2000
#: A ladder is refitted once this many units were rated since its last refit ...
REFIT_MIN_UNITS = 50
#: ... or this share of the units it was last refitted on, whichever is more.
REFIT_GROWTH = 0.02


def refit_due(rated_units: int, refit_units: int) -> bool:
    """Whether a ladder with ``rated_units``, last refitted on ``refit_units``, is due a refit.

    Once REFIT_MIN_UNITS new units are in, or REFIT_GROWTH of its history if
    more: a refit reads the whole history, so a large ladder is refitted
    less often (every 20,000 units at 1,000,000), its cost spread over the
    units; a few percent more results barely move a large history's fit.
    """
    return rated_units - refit_units >= max(REFIT_MIN_UNITS, math.ceil(REFIT_GROWTH * refit_units))


@dataclass
class PairTotals(Generic[P]):
    """What the fit needs of a history: each version's weighted score and pairs' weighted games.

    Sufficient statistics of the model: the results' order does not matter.
    """

    #: Weighted points each player won over its pairs.
    score: dict[P, float] = field(default_factory=lambda: defaultdict(float))
    #: Weighted games between two players, both ways (``games[a][b] == games[b][a]``).
    games: dict[P, dict[P, float]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(float))
    )
    #: Rated units added.
    units: int = 0

    def add(self, standings: Sequence[tuple[P, int]]) -> None:
        """One rated unit: (player, rank) per seat, a player at two seats twice."""
        weight = 3.0 / (len(standings) + 1)
        for a, (player, rank) in enumerate(standings):
            for other, other_rank in standings[a + 1 :]:
                if other == player:
                    continue
                won = pair_score(rank, other_rank)
                self.score[player] += weight * won
                self.score[other] += weight * (1.0 - won)
                self.games[player][other] += weight
                self.games[other][player] += weight
        self.units += 1

    @classmethod
    def of(cls, units: Iterable[Sequence[tuple[P, int]]]) -> PairTotals[P]:
        totals: PairTotals[P] = cls()
        for standings in units:
            totals.add(standings)
        return totals


def refitted(rated_matches: Mapping[P, int]) -> set[P]:
    """The players whose ratings a refit sets, of those with these rated matches (units).

    Every one, except provisional ratings while the settled ones are at least
    half of the field: a newcomer among settled ratings keeps its running Elo
    until it settles. Against settled opponents Elo places it closer than the
    fit of its few results, which its prior draws pull to the middle
    (placement error after 20 games on 2-seat deals, skill-heavy, with a
    refit every 100 units: .087 against .101 refitted, ``bench/ratings.py``);
    in a new field, where every rating is a guess, the fit ranks better.
    """
    settled = {p for p, matches in rated_matches.items() if not is_provisional(matches)}
    if 2 * len(settled) >= len(rated_matches):
        return settled
    return set(rated_matches)


def _strength(rating: float) -> float:
    return math.exp(LOG_ODDS_PER_POINT * (rating - INITIAL_RATING))


def _rating(strength: float) -> float:
    return INITIAL_RATING + math.log(strength) / LOG_ODDS_PER_POINT


def fit(
    totals: PairTotals[P],
    priors: Mapping[P, float],
    start: Mapping[P, float] | None = None,
) -> dict[P, float]:
    """The maximum a posteriori Elo of every player of ``priors``, from ``start`` (default priors).

    ``priors``: each player's starting rating, the centre of its virtual draws;
    every player of ``totals`` must have one. Hunter's MM iteration, with an
    exact step of the whole field's level after each: the results fix only
    the differences, the weak prior the level, and MM alone would take
    thousands of iterations to move it.
    """
    unknown = set(totals.games) - set(priors)
    if unknown:
        raise ValueError(f"players without a prior: {sorted(map(str, unknown))}")
    begin = start or priors
    strength = {p: _strength(begin.get(p, priors[p])) for p in priors}
    centre = {p: _strength(prior) for p, prior in priors.items()}
    half = PRIOR_DRAWS / 2.0
    for _ in range(MAX_ITERATIONS):
        updated = {}
        for p, s in strength.items():
            exposure = PRIOR_DRAWS / (s + centre[p])
            for other, games in totals.games.get(p, {}).items():
                exposure += games / (s + strength[other])
            updated[p] = (totals.score.get(p, 0.0) + half) / exposure
        updated = _level(updated, centre)
        moved = max((abs(math.log(updated[p] / strength[p])) for p in strength), default=0.0)
        strength = updated
        if moved / LOG_ODDS_PER_POINT < TOLERANCE:
            break
    return {p: _rating(s) for p, s in strength.items()}


def _level(strength: dict[P, float], centre: Mapping[P, float]) -> dict[P, float]:
    """``strength`` shifted as a whole to where the prior's draws are likeliest.

    Only the prior depends on the field's level: Newton's method on the
    shift (in log-odds) of PRIOR_DRAWS draws' log-likelihood, which is concave.
    """
    gaps = [math.log(s / centre[p]) for p, s in strength.items()]
    if not gaps:
        return strength
    shift = 0.0
    for _ in range(20):
        won = [1.0 / (1.0 + math.exp(-(gap + shift))) for gap in gaps]
        gradient = sum(0.5 - w for w in won)
        curvature = sum(w * (1.0 - w) for w in won)
        step = gradient / curvature
        shift += step
        if abs(step) < 1e-9:
            break
    factor = math.exp(shift)
    return {p: s * factor for p, s in strength.items()}
