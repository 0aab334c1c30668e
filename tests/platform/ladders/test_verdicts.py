"""Version verdicts: the model's strengths of a version and its parent, and the error."""

from __future__ import annotations

import math
import random
from collections import defaultdict
from typing import Any

import pytest
from django.utils import timezone

from arena.bots.models import BotVersion, VersionStatus
from arena.bots.selectors import bot_versions
from arena.ladders.elo import INITIAL_RATING, LOG_ODDS_PER_POINT
from arena.ladders.models import Challenge, Ladder, Rating
from arena.ladders.selectors import VersionVerdict, bot_ratings, bot_verdicts
from arena.ladders.services import ladder_refit, ratings_apply
from arena.ladders.verdicts import (
    VERDICT_MIN_UNITS,
    Direct,
    Evidence,
    Opposed,
    Verdict,
    VerdictKind,
    verdict,
)
from arena.matches.models import Match, MatchStatus
from bots_sdk.rating import PairTotals
from bots_sdk.rating import fit_totals as fit
from tests.platform.factories import (
    BotFactory,
    BotVersionFactory,
    LadderFactory,
    MatchFactory,
    ParticipantFactory,
    RatingFactory,
)
from tests.platform.scenes import enter


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


# --------------------------------------------------------------------------- on a ladder's history


def _game(
    ladder: Ladder, seated: list[Any], ranks: list[int], money: list[int], **fields: Any
) -> Match:
    """A finished match (rated unless told) with ``seated`` at seats 0.. ranked ``ranks``."""
    now = timezone.now()
    match = MatchFactory(
        ladder=ladder,
        status=MatchStatus.FINISHED,
        attempts=1,
        started_at=now,
        finished_at=now,
        **fields,
    )
    for seat, (version, rank, won) in enumerate(zip(seated, ranks, money, strict=True)):
        ParticipantFactory(match=match, seat=seat, bot_version=version, rank=rank, money=won)
    return match


def _deal(ladder: Ladder, pair: list[Any], money: list[list[int]], **fields: Any) -> list[Match]:
    """A finished two-game duplicate deal of ``pair``, seats swapped in game 2; ``money`` per
    game by version (each game is ranked on its own money)."""
    games = []
    for number, won in enumerate(money, start=1):
        seated = pair if number == 1 else pair[::-1]
        cash = won if number == 1 else won[::-1]
        ranks = [1 + sum(c > mine for c in cash) for mine in cash]
        deal = {"deal": games[0], "deal_game": number} if games else {}
        games.append(_game(ladder, seated, ranks, cash, **deal, **fields))
    Match.objects.filter(pk=games[0].pk).update(deal=games[0], deal_game=1)
    return games


def _shark(owner: Any) -> tuple[Any, Any]:
    """Alice's shark: v1, then v2 (its child)."""
    bot = BotFactory(owner=owner, name="shark")
    v1 = BotVersionFactory(bot=bot, number=1)
    return v1, BotVersionFactory(bot=bot, number=2, parent=v1, status=VersionStatus.PENDING)


def _replace(v1: Any, v2: Any) -> None:
    BotVersion.objects.filter(pk=v1.pk).update(status=VersionStatus.RETIRED)
    BotVersion.objects.filter(pk=v2.pk).update(status=VersionStatus.ACTIVE)


def _verdicts(bot: Any) -> list[VersionVerdict]:
    return bot_verdicts(versions=list(bot_versions(bot=bot)), ratings=list(bot_ratings(bot=bot)))


@pytest.mark.django_db
def test_on_a_refitted_ladder_the_verdict_is_the_two_versions_refitted_ratings(
    alice: Any, django_assert_num_queries: Any
) -> None:
    ladder = LadderFactory(slug="classic-3", seats=3)
    v1, v2 = _shark(alice)
    others = [BotVersionFactory(bot=BotFactory(name=name)) for name in ("turtle", "owl", "fox")]
    rng = random.Random(3)
    for version in (v1, v2):
        if version is v2:
            _replace(v1, v2)
        for _ in range(15):
            seated = [version, *rng.sample(others, 2)]
            ranks = (
                rng.sample([1, 2, 3], 3)
                if version is v1
                else rng.choice([[1, 2, 3], [2, 1, 3], [1, 3, 2]])
            )
            ratings_apply(match=_game(ladder, seated, ranks, [0, 0, 0]))
    ladder_refit(ladder_id=ladder.pk)

    versions, ratings = list(bot_versions(bot=v1.bot)), list(bot_ratings(bot=v1.bot))
    # Whatever the history: the pre-flights passed, and one query for every result.
    with django_assert_num_queries(2):
        [found] = bot_verdicts(versions=versions, ratings=ratings)
    rating = dict(Rating.objects.filter(ladder=ladder).values_list("bot_version_id", "rating"))
    assert (found.ladder, found.version, found.parent) == (ladder, v2, v1)
    assert found.verdict.version == pytest.approx(rating[v2.pk], abs=0.01)
    assert found.verdict.parent == pytest.approx(rating[v1.pk], abs=0.01)
    assert (found.verdict.version_units, found.verdict.parent_units) == (15, 15)
    assert found.verdict.kind is VerdictKind.BETTER


@pytest.mark.django_db
def test_duplicate_deals_count_as_the_ratings_rank_them_on_money(alice: Any) -> None:
    ladder = LadderFactory(slug="classic-2", seats=2, duplicate_deals=True)
    v1, v2 = _shark(alice)
    turtle = BotVersionFactory(bot=BotFactory(name="turtle"))
    # v1 loses each deal on money though it wins one game of two; v2 wins each deal.
    for version, money in ((v1, [[50, -10], [-80, 40]]), (v2, [[90, -30], [-20, 10]])):
        if version is v2:
            _replace(v1, v2)
        for _ in range(10):
            ratings_apply(match=_deal(ladder, [version, turtle], money)[-1])
    assert Rating.objects.get(ladder=ladder, bot_version=v2).rated_matches == 10
    ladder_refit(ladder_id=ladder.pk)

    [found] = _verdicts(v1.bot)
    rating = dict(Rating.objects.filter(ladder=ladder).values_list("bot_version_id", "rating"))
    assert found.verdict.version == pytest.approx(rating[v2.pk], abs=0.01)
    assert found.verdict.parent == pytest.approx(rating[v1.pk], abs=0.01)
    assert found.verdict.parent < INITIAL_RATING < found.verdict.version
    assert found.verdict.kind is VerdictKind.BETTER


@pytest.mark.django_db
def test_a_challenge_of_the_version_against_its_parent_counts_as_direct_results(
    alice: Any,
) -> None:
    ladder = LadderFactory(slug="classic-2", seats=2, duplicate_deals=True)
    v1, v2 = _shark(alice)
    _replace(v1, v2)
    enter(v1, ladder)  # both passed its pre-flight, as a challenge asks
    enter(v2, ladder)
    challenge = Challenge.objects.create(
        requested_by=alice, ladder=ladder, bot_version=v2, games=24
    )
    for _ in range(12):
        challenge.matches.add(*_deal(ladder, [v2, v1], [[30, -30], [10, -10]], rated=False))
    # Not counted: a deal still playing, and unrated games outside a challenge.
    playing = _deal(ladder, [v2, v1], [[30, -30], [10, -10]], rated=False)
    Match.objects.filter(pk=playing[1].pk).update(status=MatchStatus.RUNNING)
    challenge.matches.add(*playing)
    _game(ladder, [v1, v2], [1, 2], [5, -5], rated=False)

    [found] = _verdicts(v1.bot)
    # Private results only: neither version has a rating here, both start at 1500.
    assert (found.ladder, found.version, found.parent) == (ladder, v2, v1)
    assert (found.verdict.version_units, found.verdict.parent_units) == (12, 12)
    expected = verdict(
        Evidence(INITIAL_RATING), Evidence(INITIAL_RATING), Direct(points=12, games=12, units=12)
    )
    assert found.verdict == expected
    assert found.verdict.kind is VerdictKind.BETTER
    assert not Rating.objects.exists()


@pytest.mark.django_db
def test_a_version_gets_a_line_where_it_plays_and_its_predecessor_is_rated(alice: Any) -> None:
    ladder = LadderFactory(slug="c2")
    v1, v2 = _shark(alice)
    _replace(v1, v2)
    RatingFactory(ladder=ladder, bot_version=v1, rating=1600, prior=1600, rated_matches=40)
    assert _verdicts(v1.bot) == []  # v2 does not play there
    enter(v2, ladder)
    [found] = _verdicts(v1.bot)  # v1 has no parent: no line of its own
    assert (found.ladder, found.version, found.parent) == (ladder, v2, v1)
    # v2 has not played there: it starts from v1's rating, and there is no verdict yet.
    assert found.verdict.version == pytest.approx(1600)
    assert found.verdict.kind is VerdictKind.TOO_FEW
    assert found.verdict.summary == "not enough games yet (0 of 10)"
    assert not found.challengeable  # v1 has a rating there but no pre-flight passed
    enter(v1, ladder)
    assert _verdicts(v1.bot)[0].challengeable
    Ladder.objects.filter(pk=ladder.pk).update(is_open=False)
    assert not _verdicts(v1.bot)[0].challengeable


@pytest.mark.django_db
def test_a_failed_upload_in_between_is_skipped_for_the_version_before_it(alice: Any) -> None:
    ladder = LadderFactory(slug="c2")
    v1, v2 = _shark(alice)
    BotVersion.objects.filter(pk=v1.pk).update(status=VersionStatus.RETIRED)
    BotVersion.objects.filter(pk=v2.pk).update(status=VersionStatus.FAILED)
    v3 = BotVersionFactory(bot=v1.bot, number=3, parent=v2)
    RatingFactory(ladder=ladder, bot_version=v1, rated_matches=40)
    RatingFactory(ladder=ladder, bot_version=v3, rated_matches=12)
    [found] = _verdicts(v1.bot)
    assert (found.version, found.parent) == (v3, v1)
