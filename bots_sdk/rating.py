"""Elo ratings from multi-player games: the one rating fitter of the SDK and the platform.

The model is the one Elo updates on: each pair of seats of an N-seat game is
a one-against-one game of weight 3/(N+1) (:func:`pair_weight`), scored 1 /
0.5 / 0 by rank (:func:`pair_score`), on Elo's logistic curve (Bradley-Terry:
400 points are 10x the odds). Ratings are its maximum a posteriori:
:data:`PRIOR_DRAWS` virtual draws of each player against a fixed player at
its prior rating keep a player without results at its prior and one that won
every game finite, without squeezing a large field (the prior weighs the same
per player, whatever the field's size).

:func:`fit_totals` fits a field with a prior each (the platform's ladders
refit their whole history with it: ``arena.ladders.refit``); :func:`fit` and
:func:`ratings` rate a local tournament's players from a common prior, the
latter with bootstrap intervals that resample whole games, so they account for
games not being independent pairs.

Each rating's deviation is the model's own uncertainty: one over the root of
the log posterior's curvature in that rating, the others held at theirs
(:func:`fit_deviations`; the Laplace approximation of the player's
posterior given the field). The prior's draws give a player without results
:data:`PRIOR_DEVIATION`; each pair of a game adds its weight times p(1 - p)
to the curvature, so the deviation shrinks as the games add up. Held, not
joint: the field's common level is fixed only by the weak prior, and a
rating is read against the others, whose own errors are small beside a
newcomer's (``arena.ladders.verdicts`` reasons the same way).
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

P = TypeVar("P", bound=Hashable)

#: One game: (player, rank) for each seat.
Game = Sequence[tuple[int, int]]

#: The rating of a player with no results, and the mean :func:`fit` centres on.
ELO_MEAN = 1500.0
#: Elo points to natural log-odds: 400 points are 10x the odds.
LOG_ODDS_PER_POINT = math.log(10.0) / 400.0
#: Virtual draws of each player against a fixed player at its prior rating.
PRIOR_DRAWS = 2.0
#: The curvature (natural log-odds) of a player's prior: its draws' p(1 - p), at p = 1/2.
PRIOR_INFORMATION = PRIOR_DRAWS / 4.0
#: The fit stops once no rating moved more than this many Elo points in an iteration.
TOLERANCE = 0.001
#: At most this many iterations (a cold start on a large, sparse field needs hundreds).
MAX_ITERATIONS = 2000


def deviation_of(information: float) -> float:
    """The deviation (Elo points) of a rating whose log posterior has this curvature
    (natural log-odds): one over its root, in Elo points."""
    return 1.0 / (LOG_ODDS_PER_POINT * math.sqrt(information))


def information_of(deviation: float) -> float:
    """The curvature (natural log-odds) of a rating with this deviation (Elo points)."""
    return 1.0 / (LOG_ODDS_PER_POINT * deviation) ** 2


#: The deviation of a rating without results: its prior's alone (about 246 Elo points).
PRIOR_DEVIATION = deviation_of(PRIOR_INFORMATION)


def pair_information(weight: float, rating: float, opponent: float) -> float:
    """What one pair of weight ``weight`` adds to a rating's curvature: weight p(1 - p)."""
    p = 1.0 / (1.0 + math.exp(LOG_ODDS_PER_POINT * (opponent - rating)))
    return weight * p * (1.0 - p)


def pair_score(rank: int, opponent_rank: int) -> float:
    """1 for the better rank, 0.5 for an equal one, 0 for the worse."""
    if rank < opponent_rank:
        return 1.0
    if rank == opponent_rank:
        return 0.5
    return 0.0


def pair_weight(seats: int) -> float:
    """Each pair of an N-seat game counts as this many one-against-one games: a seat
    meets N-1 others at once, and its N-1 pairs together weigh 3(N-1)/(N+1), from 1
    (two seats) towards 3, as Elo's updates weigh them."""
    return 3.0 / (seats + 1)


@dataclass(frozen=True)
class Rating:
    elo: float
    low: float
    high: float

    @property
    def margin(self) -> float:
        """Half the width of the interval (the ``±`` shown)."""
        return (self.high - self.low) / 2


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
        weight = pair_weight(len(standings))
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


def fit_totals(
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
    kept only if the posterior is no lower than after the two steps (on a
    large field that converges several times faster from cold).
    """
    unknown = set(totals.games) - set(priors)
    if unknown:
        raise ValueError(f"players without a prior: {sorted(map(str, unknown))}")
    players = list(priors)
    index = {p: i for i, p in enumerate(players)}
    field = _Field(
        opponents=[[(index[o], g) for o, g in totals.games.get(p, {}).items()] for p in players],
        points=[totals.score.get(p, 0.0) + PRIOR_DRAWS / 2.0 for p in players],
        centre=[LOG_ODDS_PER_POINT * (priors[p] - ELO_MEAN) for p in players],
    )
    begin = start or priors
    x = [LOG_ODDS_PER_POINT * (begin.get(p, priors[p]) - ELO_MEAN) for p in players]
    for _ in range(MAX_ITERATIONS):
        once = field.step(x)
        twice = field.step(once)
        jumped = field.step(_squarem_jump(x, once, twice))
        following = jumped if field.log_posterior(jumped) >= field.log_posterior(twice) else twice
        moved = max((abs(a - b) for a, b in zip(following, x, strict=True)), default=0.0)
        x = following
        if moved / LOG_ODDS_PER_POINT < TOLERANCE:
            break
    return {p: ELO_MEAN + v / LOG_ODDS_PER_POINT for p, v in zip(players, x, strict=True)}


def fit_deviations(
    totals: PairTotals[P], priors: Mapping[P, float], ratings: Mapping[P, float]
) -> dict[P, float]:
    """The deviation (Elo points) of each player of ``priors`` at ``ratings`` (the fit's).

    One over the root of minus the log posterior's second derivative in the
    player's own log-strength, the others held: its prior's draws'
    PRIOR_DRAWS q(1 - q) (q its chance against its prior's centre) plus,
    over its opponents, the weighted games times p(1 - p).
    """
    deviations = {}
    for player, prior in priors.items():
        rating = ratings[player]
        information = pair_information(PRIOR_DRAWS, rating, prior)
        for other, games in totals.games.get(player, {}).items():
            information += pair_information(games, rating, ratings[other])
        deviations[player] = deviation_of(information)
    return deviations


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


def fit(games: Sequence[Game], players: int) -> list[float]:
    """Elo of each player (numbered from 0) from ``games``, every prior at
    :data:`ELO_MEAN`; centred so that the mean is :data:`ELO_MEAN`."""
    if not players:
        return []
    fitted = fit_totals(PairTotals.of(games), dict.fromkeys(range(players), ELO_MEAN))
    # Ratings are relative: the prior holds the level only roughly.
    shift = ELO_MEAN - sum(fitted.values()) / players
    return [fitted[player] + shift for player in range(players)]


def ratings(
    games: Sequence[Game], players: int, *, samples: int = 200, seed: int = 0
) -> list[Rating]:
    """Elo with a 95% bootstrap interval for each player."""
    point = fit(games, players)
    if not games or players < 2:
        return [Rating(elo, elo, elo) for elo in point]
    rng = random.Random(seed)
    draws: list[list[float]] = [[] for _ in range(players)]
    for _ in range(samples):
        resample = [games[rng.randrange(len(games))] for _ in games]
        for player, elo in enumerate(fit(resample, players)):
            draws[player].append(elo)
    result = []
    for player, elo in enumerate(point):
        ordered = sorted(draws[player])
        low = ordered[int(0.025 * (samples - 1))]
        high = ordered[int(0.975 * (samples - 1))]
        result.append(Rating(elo, min(low, elo), max(high, elo)))
    return result
