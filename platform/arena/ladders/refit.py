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
finite. ``bench/ratings.py`` measures it (bench/README.md; the reasoning in
docs/design.md, *Ratings*).

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
    (``bench/ratings.py`` placed strong newcomers on 2-seat deals closer
    keeping their Elo than refitted); in a new field, where every rating is
    a guess, the fit ranks better.
    """
    settled = {p for p, matches in rated_matches.items() if not is_provisional(matches)}
    if 2 * len(settled) >= len(rated_matches):
        return settled
    return set(rated_matches)


def fit(
    totals: PairTotals[P],
    priors: Mapping[P, float],
    start: Mapping[P, float] | None = None,
) -> dict[P, float]:
    """The maximum a posteriori Elo of every player of ``priors``, from ``start`` (default priors).

    ``priors``: each player's starting rating, the centre of its virtual draws;
    every player of ``totals`` must have one. Hunter's MM iteration (each
    step raises the posterior), with an exact step of the whole field's
    level after each (the results fix only the differences, the weak prior
    the level, and MM alone would take thousands of iterations to move it),
    accelerated by SQUAREM (Varadhan and Roland, 2008): two steps give the
    direction the iteration is creeping along, and a long jump along it is
    kept only if the posterior is no lower than after the two steps: the
    same fit in a fraction of MM's time.
    """
    unknown = set(totals.games) - set(priors)
    if unknown:
        raise ValueError(f"players without a prior: {sorted(map(str, unknown))}")
    players = list(priors)
    index = {p: i for i, p in enumerate(players)}
    field = _Field(
        opponents=[[(index[o], g) for o, g in totals.games.get(p, {}).items()] for p in players],
        points=[totals.score.get(p, 0.0) + PRIOR_DRAWS / 2.0 for p in players],
        centre=[LOG_ODDS_PER_POINT * (priors[p] - INITIAL_RATING) for p in players],
    )
    begin = start or priors
    x = [LOG_ODDS_PER_POINT * (begin.get(p, priors[p]) - INITIAL_RATING) for p in players]
    for _ in range(MAX_ITERATIONS):
        once = field.step(x)
        twice = field.step(once)
        jumped = field.step(_squarem_jump(x, once, twice))
        following = jumped if field.log_posterior(jumped) >= field.log_posterior(twice) else twice
        moved = max((abs(a - b) for a, b in zip(following, x, strict=True)), default=0.0)
        x = following
        if moved / LOG_ODDS_PER_POINT < TOLERANCE:
            break
    return {p: INITIAL_RATING + v / LOG_ODDS_PER_POINT for p, v in zip(players, x, strict=True)}


def _squarem_jump(x: list[float], once: list[float], twice: list[float]) -> list[float]:
    """SQUAREM's extrapolation from ``x`` along its next two steps (at least as far as they go)."""
    r = [b - a for a, b in zip(x, once, strict=True)]
    v = [c - 2.0 * b + a for a, b, c in zip(x, once, twice, strict=True)]
    r_norm = math.sqrt(sum(t * t for t in r))
    v_norm = math.sqrt(sum(t * t for t in v))
    alpha = min(-r_norm / v_norm, -1.0) if v_norm > 0 else -1.0
    return [a - 2.0 * alpha * dr + alpha * alpha * dv for a, dr, dv in zip(x, r, v, strict=True)]


@dataclass(frozen=True)
class _Field:
    """The fit's problem by player index, in log-strengths (natural log-odds from 1500)."""

    #: Each player's (opponent index, weighted games).
    opponents: list[list[tuple[int, float]]]
    #: Each player's weighted points, the prior's half of its draws included.
    points: list[float]
    #: Each player's prior centre.
    centre: list[float]

    def step(self, x: list[float]) -> list[float]:
        """One MM step of every player (from the same ``x``), then the field's level."""
        strength = [math.exp(v) for v in x]
        stepped = []
        for i, s in enumerate(strength):
            exposure = PRIOR_DRAWS / (s + math.exp(self.centre[i]))
            for other, games in self.opponents[i]:
                exposure += games / (s + strength[other])
            stepped.append(math.log(self.points[i] / exposure))
        shift = _level_shift([v - c for v, c in zip(stepped, self.centre, strict=True)])
        return [v + shift for v in stepped]

    def log_posterior(self, x: list[float]) -> float:
        """The log posterior at ``x``, up to a constant."""
        strength = [math.exp(v) for v in x]
        total = 0.0
        for i, s in enumerate(strength):
            total += self.points[i] * x[i] - PRIOR_DRAWS * math.log(s + math.exp(self.centre[i]))
            for other, games in self.opponents[i]:
                if other > i:  # each pair once
                    total -= games * math.log(s + strength[other])
        return total


def _level_shift(gaps: list[float]) -> float:
    """How far (in log-odds) to shift the field as a whole to where the prior is likeliest.

    ``gaps``: each player's log-strength less its prior's centre. Only the
    prior depends on the field's level: Newton's method on the shift of the
    draws' log-likelihood, which is concave (the same for any number of
    draws, each player having as many).
    """
    if not gaps:
        return 0.0
    shift = 0.0
    for _ in range(20):
        won = [1.0 / (1.0 + math.exp(-(gap + shift))) for gap in gaps]
        step = sum(0.5 - w for w in won) / sum(w * (1.0 - w) for w in won)
        shift += step
        if abs(step) < 1e-9:
            break
    return shift
