"""Version verdicts: how much stronger a version is than its parent on a ladder, and how sure.

The model is the refit's own (:mod:`.refit`): each pair of seats of a rated
unit is a one-against-one game of weight 3/(N+1) on Elo's logistic curve,
and each version has PRIOR_DRAWS virtual draws against the rating it
started from (``Rating.prior``). Here only the two versions are unknown:
their opponents sit at their current ratings. Where the refit's ratings are
the opponents', this is exactly the refit (its joint maximum is a maximum
in any two of its players with the others held), so the verdict's two
strengths are the refit's ratings of the two versions.

Direct results of the two versions against each other (a challenge of one
against the other: unrated, never on the ratings) count here as well: they
are the most telling evidence of all. The two strengths are the maximum of
the log posterior (Newton's method, exact and cheap: two unknowns), and the
standard error of their difference comes from its curvature there (the
Laplace approximation; the prior's curvature included, so a version with
few games gets a wide interval). P(better) = Phi(difference / error).
Opponents' ratings are taken as known: a settled rating's own error is
small beside a new version's.

Pure functions: ``selectors.bot_verdicts`` loads the results, this module only computes.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass

from bots_sdk.rating import LOG_ODDS_PER_POINT, PRIOR_DRAWS

#: Under this many units (rated games or deals, and direct ones) for either version: no verdict.
VERDICT_MIN_UNITS = 10
#: Newton's method stops once neither strength moves more than this (natural log-odds).
_TOLERANCE = 1e-10


class VerdictKind(enum.Enum):
    """What a verdict says, from the difference and its standard error."""

    TOO_FEW = "too_few"
    """Either version has fewer than VERDICT_MIN_UNITS units: no verdict yet."""
    BETTER = "better"
    """Stronger by at least one standard error."""
    LEVEL = "level"
    """Within one standard error of each other: the results cannot tell them apart."""
    WORSE = "worse"
    """Weaker by at least one standard error."""


@dataclass(frozen=True)
class Opposed:
    """A version's results against one opponent, as the model weighs them."""

    #: The opponent's rating (held fixed).
    rating: float
    #: Weighted points won against it (1 a pair won, 0.5 drawn, times the unit's weight).
    points: float
    #: Weighted games against it.
    games: float


@dataclass(frozen=True)
class Evidence:
    """One version's results on a ladder, without those against the other version."""

    #: The rating it started from: the centre of its virtual draws.
    prior: float
    opposed: Sequence[Opposed] = ()
    #: Units it played (rated ones, and direct ones against the other version).
    units: int = 0


@dataclass(frozen=True)
class Direct:
    """The results of the version against its parent, from the version's side."""

    points: float = 0.0
    games: float = 0.0
    units: int = 0


@dataclass(frozen=True)
class Verdict:
    """The version against its parent: their strengths and the difference's uncertainty."""

    #: Each one's strength (Elo) by the model.
    version: float
    parent: float
    #: Standard error of ``version - parent`` (Elo).
    error: float
    #: Units each played (the threshold's counts).
    version_units: int
    parent_units: int

    @property
    def difference(self) -> float:
        return self.version - self.parent

    @property
    def chance_better(self) -> float:
        """P(version stronger than parent) = Phi(difference / error)."""
        return 0.5 * (1.0 + math.erf(self.difference / (self.error * math.sqrt(2.0))))

    @property
    def kind(self) -> VerdictKind:
        if min(self.version_units, self.parent_units) < VERDICT_MIN_UNITS:
            return VerdictKind.TOO_FEW
        if self.difference >= self.error:
            return VerdictKind.BETTER
        if self.difference <= -self.error:
            return VerdictKind.WORSE
        return VerdictKind.LEVEL

    @property
    def summary(self) -> str:
        """The line a person reads: "+35 ± 20 Elo, 96% likely better" (± one standard error)."""
        kind = self.kind
        if kind is VerdictKind.TOO_FEW:
            fewest = min(self.version_units, self.parent_units)
            return f"not enough games yet ({fewest} of {VERDICT_MIN_UNITS})"
        change = round(self.difference)
        # Signed as the site's other Elo changes: "+12", "-8", "±0".
        signed = "±0" if change == 0 else f"{change:+d}"
        numbers = f"{signed} ± {round(self.error)} Elo"
        better = _percent(self.chance_better)
        if kind is VerdictKind.BETTER:
            return f"{numbers}, {better}% likely better"
        if kind is VerdictKind.WORSE:
            return f"{numbers}, {_percent(1.0 - self.chance_better)}% likely worse"
        return f"{numbers}, level ({better}% likely better)"


def _percent(chance: float) -> int:
    """A chance in whole percent, never 0 or 100: the model is never certain."""
    return min(99, max(1, round(100.0 * chance)))


def _logistic(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def _log_logistic(x: float) -> float:
    """log(logistic(x)), without overflow."""
    return -math.log1p(math.exp(-x)) if x >= 0 else x - math.log1p(math.exp(x))


@dataclass(frozen=True)
class _Side:
    """One unknown's own terms, in natural log-odds (Elo times LOG_ODDS_PER_POINT)."""

    #: (opponent's log-strength, points, games), the prior's draws included.
    terms: list[tuple[float, float, float]]

    @classmethod
    def of(cls, evidence: Evidence) -> _Side:
        prior = (LOG_ODDS_PER_POINT * evidence.prior, PRIOR_DRAWS / 2.0, PRIOR_DRAWS)
        return cls(
            [
                prior,
                *(
                    (LOG_ODDS_PER_POINT * o.rating, o.points, o.games)
                    for o in evidence.opposed
                    if o.games > 0
                ),
            ]
        )

    def log_likelihood(self, x: float) -> float:
        return sum(
            points * _log_logistic(x - o) + (games - points) * _log_logistic(o - x)
            for o, points, games in self.terms
        )

    def slope_and_information(self, x: float) -> tuple[float, float]:
        """The log-likelihood's derivative at ``x`` and minus its second derivative."""
        slope = information = 0.0
        for o, points, games in self.terms:
            p = _logistic(x - o)
            slope += points - games * p
            information += games * p * (1.0 - p)
        return slope, information


def verdict(version: Evidence, parent: Evidence, direct: Direct = Direct()) -> Verdict:
    """The maximum a posteriori strengths of ``version`` and ``parent`` and the error of their
    difference (from the log posterior's curvature there)."""
    ours, theirs = _Side.of(version), _Side.of(parent)

    def log_posterior(x: float, y: float) -> float:
        between = direct.points * _log_logistic(x - y) + (
            direct.games - direct.points
        ) * _log_logistic(y - x)
        return ours.log_likelihood(x) + theirs.log_likelihood(y) + between

    def curvature(x: float, y: float) -> tuple[float, float, float, float, float]:
        """Gradient (gx, gy) and information matrix (ixx, iyy, ixy) of the log posterior."""
        gx, ixx = ours.slope_and_information(x)
        gy, iyy = theirs.slope_and_information(y)
        p = _logistic(x - y)
        gx += direct.points - direct.games * p
        gy -= direct.points - direct.games * p
        shared = direct.games * p * (1.0 - p)
        return gx, gy, ixx + shared, iyy + shared, -shared

    x = LOG_ODDS_PER_POINT * version.prior
    y = LOG_ODDS_PER_POINT * parent.prior
    for _ in range(100):
        gx, gy, ixx, iyy, ixy = curvature(x, y)
        det = ixx * iyy - ixy * ixy  # > 0: the prior makes the posterior strictly concave
        dx = (iyy * gx - ixy * gy) / det
        dy = (ixx * gy - ixy * gx) / det
        # Newton's step, halved until the posterior rises (the logistic's tails can overshoot).
        here = log_posterior(x, y)
        step = 1.0
        while step > 1e-6 and log_posterior(x + step * dx, y + step * dy) < here:
            step /= 2.0
        x, y = x + step * dx, y + step * dy
        if max(abs(step * dx), abs(step * dy)) < _TOLERANCE:
            break
    _, _, ixx, iyy, ixy = curvature(x, y)
    # Var(x - y) of the Laplace approximation: (1, -1) I^-1 (1, -1)^T.
    variance = (ixx + iyy + 2.0 * ixy) / (ixx * iyy - ixy * ixy)
    return Verdict(
        version=x / LOG_ODDS_PER_POINT,
        parent=y / LOG_ODDS_PER_POINT,
        error=math.sqrt(variance) / LOG_ODDS_PER_POINT,
        version_units=version.units + direct.units,
        parent_units=parent.units + direct.units,
    )
