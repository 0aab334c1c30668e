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

The model and its fit are the SDK's (:func:`bots_sdk.rating.fit_totals`,
the one rating fitter: the model Elo updates on, each pair of an N-seat
unit a one-against-one game of weight 3/(N+1)); each version's prior is the
rating it started from (its parent version's, or INITIAL_RATING). This
module says when a ladder is refitted and whose ratings the fit sets.
``bench/ratings.py`` measures it (bench/README.md; the reasoning in
docs/design.md, *Ratings*).

Pure functions: the services load the results, this module only computes.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from typing import TypeVar

from .elo import is_settling

P = TypeVar("P", bound=Hashable)

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


def refitted(rated_matches: Mapping[P, int]) -> set[P]:
    """The players whose ratings a refit sets, of those with these rated matches (units).

    Every one, except settling ones (under SETTLING_MATCHES units) while the
    settled ones are at least half of the field: a newcomer among settled
    ratings keeps its running Elo until it settles. Against settled opponents
    Elo places it closer than the fit of its few results, which its prior
    draws pull to the middle (``bench/ratings.py`` measures both
    placements); in a new field, where every rating is a guess, the fit
    ranks better.
    """
    settled = {p for p, matches in rated_matches.items() if not is_settling(matches)}
    if 2 * len(settled) >= len(rated_matches):
        return settled
    return set(rated_matches)
