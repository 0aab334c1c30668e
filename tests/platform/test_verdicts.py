"""Version verdicts: the model's strengths of a version and its parent, and the error."""

from __future__ import annotations

import math
import random
from collections import defaultdict

import pytest

from arena.ladders.elo import INITIAL_RATING, LOG_ODDS_PER_POINT
from arena.ladders.refit import PairTotals, fit
from arena.ladders.verdicts import (
    VERDICT_MIN_UNITS,
    Direct,
    Evidence,
    Opposed,
    Verdict,
    VerdictKind,
    verdict,
)


def _against_1500(won: float, games: float, units: int = 100) -> Evidence:
    return Evidence(INITIAL_RATING, [Opposed(INITIAL_RATING, won, games)], units)


def test_equal_results_make_a_level_verdict_at_even_chances() -> None:
    same = _against_1500(60, 100)
    found = verdict(same, same)
    assert found.difference == pytest.approx(0.0, abs=1e-9)
    assert found.chance_better == pytest.approx(0.5)
    assert found.kind is VerdictKind.LEVEL
    assert found.summary.startswith("±0 ± ")
    assert found.summary.endswith("level (50% likely better)")


def test_a_known_win_rate_against_a_fixed_opponent_is_elo_s_logistic_difference() -> None:
    """Opponent and priors at 1500: the maximum is where the expected score equals the points,
    the prior's 2 draws included: logistic(x) = (75 + 1) / (100 + 2), and 0.5 for the parent."""
    found = verdict(_against_1500(75, 100), _against_1500(50, 100))
    assert found.version == pytest.approx(INITIAL_RATING + 400 * math.log10(76 / 26), abs=1e-6)
    assert found.parent == pytest.approx(INITIAL_RATING, abs=1e-6)
    # Information: (games + draws) p (1 - p) each, the difference's variance their inverses' sum.
    variance = 1 / (76 * 26 / 102) + 1 / (102 * 0.25)
    assert found.error == pytest.approx(math.sqrt(variance) / LOG_ODDS_PER_POINT, rel=1e-9)
    z = found.difference / found.error
    assert found.chance_better == pytest.approx(0.5 * (1 + math.erf(z / math.sqrt(2))))
    assert found.kind is VerdictKind.BETTER
    assert found.summary == "+186 ± 52 Elo, 99% likely better"
    # Without the prior's pull (a million games) it is Elo's curve itself: 75% is +191.
    many = verdict(_against_1500(750_000, 1_000_000), _against_1500(500_000, 1_000_000))
    assert many.difference == pytest.approx(400 * math.log10(3), abs=0.01)


def test_more_games_narrow_the_interval_as_one_over_their_root() -> None:
    few = verdict(_against_1500(300, 500), _against_1500(250, 500))
    more = verdict(_against_1500(1200, 2000), _against_1500(1000, 2000))
    assert more.error == pytest.approx(few.error / 2, rel=0.01)
    assert more.chance_better > few.chance_better


def test_few_games_are_held_at_the_prior_with_a_wide_interval() -> None:
    won_all = verdict(_against_1500(3, 3, units=3), _against_1500(0, 3, units=3))
    assert won_all.kind is VerdictKind.TOO_FEW
    assert won_all.summary == f"not enough games yet (3 of {VERDICT_MIN_UNITS})"
    # Finite, and the interval wider than the difference's size would suggest.
    assert 0 < won_all.difference < 600 and won_all.error > 200


def test_direct_results_tell_the_two_apart_and_count_as_units_of_both() -> None:
    """Only direct games, priors at 1500: by symmetry the two sit at +t and -t, and the
    information on the difference is the direct games' own plus the priors' in series."""
    direct = Direct(points=70, games=100, units=50)
    found = verdict(Evidence(INITIAL_RATING), Evidence(INITIAL_RATING), direct)
    assert found.version - INITIAL_RATING == pytest.approx(INITIAL_RATING - found.parent)
    x = LOG_ODDS_PER_POINT * (found.version - INITIAL_RATING)
    p, q = 1 / (1 + math.exp(-2 * x)), 1 / (1 + math.exp(-x))
    assert 70 - 100 * p + 2 * (0.5 - q) == pytest.approx(0, abs=1e-9)  # the posterior is flat
    prior_information = 2 * q * (1 - q)
    information = 100 * p * (1 - p) + prior_information / 2
    assert found.error == pytest.approx(1 / math.sqrt(information) / LOG_ODDS_PER_POINT)
    assert (found.version_units, found.parent_units) == (50, 50)
    assert found.kind is VerdictKind.BETTER


def test_a_weaker_version_is_said_to_be_worse() -> None:
    found = verdict(_against_1500(42, 100), _against_1500(55, 100))
    assert found.kind is VerdictKind.WORSE
    assert found.summary.startswith("-")
    assert found.summary.endswith("% likely worse")
    assert found.summary == (
        f"-{abs(round(found.difference))} ± {round(found.error)} Elo, "
        f"{round(100 * (1 - found.chance_better))}% likely worse"
    )


def test_chances_never_read_as_certain() -> None:
    found = Verdict(version=2500, parent=1500, error=10, version_units=99, parent_units=99)
    assert found.summary == "+1000 ± 10 Elo, 99% likely better"


def test_the_verdict_is_the_refit_s_rating_of_both_versions_on_the_same_history() -> None:
    """The refit's joint maximum is a maximum in any two players with the others held at
    their fitted ratings: the verdict's strengths are the refit's ratings. The fit stops
    once no rating moves 0.001 Elo in an iteration; 0.01 Elo allows for its last steps."""
    rng = random.Random(7)
    truth = {"v1": 0.0, "v2": 80.0, **{f"o{i}": rng.gauss(0, 150) for i in range(8)}}
    units = []
    for _ in range(600):
        # v1 and v2 never meet on a ladder (one playing version per bot): 3 seats of a bot
        # version and two others.
        me = rng.choice(["v1", "v2"])
        seated = [me, *rng.sample([p for p in truth if p.startswith("o")], 2)]
        performance = {p: truth[p] + rng.gauss(0, 200) for p in seated}
        order = sorted(seated, key=lambda p: -performance[p])
        units.append([(p, order.index(p) + 1) for p in seated])
    # Two v1-v2 challenge games on top, which the verdict counts as direct results.
    units += [[("v2", 1), ("v1", 2)], [("v1", 1), ("v2", 2)], [("v2", 1), ("v1", 2)]]
    totals = PairTotals.of(units)
    won: dict[tuple[str, str], float] = defaultdict(float)  # weighted points, pair by pair
    for unit in units:
        for a, (player, rank) in enumerate(unit):
            for other, other_rank in unit[a + 1 :]:
                score = 1.0 if rank < other_rank else 0.5 if rank == other_rank else 0.0
                won[player, other] += 3 / (len(unit) + 1) * score
                won[other, player] += 3 / (len(unit) + 1) * (1 - score)
    priors = dict.fromkeys(truth, INITIAL_RATING)
    priors["v2"] = 1520.0
    fitted = fit(totals, priors)

    def evidence(me: str) -> Evidence:
        return Evidence(
            priors[me],
            [
                Opposed(fitted[o], won[me, o], games)
                for o, games in totals.games[me].items()
                if o not in {"v1", "v2"}
            ],
        )

    direct = Direct(won["v2", "v1"], totals.games["v2"]["v1"], 3)
    found = verdict(evidence("v2"), evidence("v1"), direct)
    assert found.version == pytest.approx(fitted["v2"], abs=0.01)
    assert found.parent == pytest.approx(fitted["v1"], abs=0.01)
