"""Reads on ladders and ratings."""

from __future__ import annotations

import contextlib
import functools
import operator
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import NamedTuple

from django.core.cache import cache
from django.db import connection
from django.db.models import Count, Exists, F, OuterRef, Prefetch, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from arena.bots.models import Bot, BotVersion, TestGame, VersionStatus, Visibility
from arena.matches.models import UNPLAYED, Match, MatchStatus, Participant
from arena.matches.selectors import with_participants
from arena.players.models import Team, User

from .deals import SeatResult, unit_standings
from .elo import INITIAL_RATING, PROVISIONAL_DEVIATION, working_rating
from .models import (
    Challenge,
    Entry,
    Ladder,
    Qualification,
    QualificationStatus,
    Rating,
    RatingChange,
    Season,
    SeasonStart,
    StandingRow,
    Standings,
)
from .refit import refit_due
from .verdicts import Direct, Evidence, Opposed, Verdict, verdict


def ladder_list() -> QuerySet[Ladder]:
    return Ladder.objects.order_by("name")


def ladder_get(*, slug: str) -> Ladder | None:
    return Ladder.objects.filter(slug=slug).first()


#: A test game still unplayed this long after it was asked lost its task (test builds are
#: not queued again: its author runs another), so it no longer counts as in flight.
TEST_GAME_IN_FLIGHT = timedelta(minutes=10)


def builds_in_flight(*, owner: User | None = None, team: Team | None = None) -> int:
    """Work on the builds queue not done yet. ``team``: uploads of the team's bots still
    to build and pre-flight (a team's quota is shared by its members); ``owner``: their
    uploads of bots of no team, and their test games not played yet (their build, then
    their game)."""
    building = BotVersion.objects.filter(
        bot__workbench=False, status__in=(VersionStatus.PENDING, VersionStatus.VALIDATING)
    )
    if team is not None:
        return building.filter(bot__team=team).count()
    uploads = building.filter(bot__owner=owner, bot__team__isnull=True).count()
    unplayed = Q(match__isnull=True) & ~Q(build__status=VersionStatus.FAILED)
    test_games = (
        TestGame.objects.filter(owner=owner, created_at__gte=timezone.now() - TEST_GAME_IN_FLIGHT)
        .filter(unplayed | Q(match__status__in=UNPLAYED))
        .count()
    )
    return uploads + test_games


def bot_entries(*, bot: Bot) -> QuerySet[Entry]:
    """The ladders a bot entered, by game."""
    return bot.entries.select_related("ladder").order_by(
        "ladder__rules", "ladder__seats", "ladder__slug"
    )


def versions_awaiting_preflight(*, bot_ids: Iterable[int]) -> list[int]:
    """The versions of these bots whose pre-flight waits for a worker: a version still to
    validate (pending: entered nowhere, it still gets a verdict) and any version to check
    that has a pre-flight pending on a ladder."""
    awaiting = BotVersion.objects.filter(bot_id__in=list(bot_ids)).filter(
        Q(status=VersionStatus.PENDING)
        | Q(
            status__in=[VersionStatus.ACTIVE, VersionStatus.VALIDATING],
            qualifications__status=QualificationStatus.PENDING,
        )
    )
    return sorted(set(awaiting.values_list("pk", flat=True)))


def version_qualifications(*, version: BotVersion) -> dict[int, Qualification]:
    """A version's pre-flights by ladder id."""
    return {
        q.ladder_id: q
        for q in Qualification.objects.filter(bot_version=version).select_related("ladder")
    }


def player_challenges(*, user: User) -> QuerySet[Challenge]:
    """The challenges ``user`` asked for, newest first, with their matches."""
    return (
        Challenge.objects.filter(requested_by=user)
        .select_related("ladder", "bot_version__bot__owner", "bot_version__bot__team")
        .prefetch_related(
            Prefetch(
                "matches",
                # With their ladders, seats and seeds in play, as every list of matches.
                queryset=with_participants(Match.objects.select_related("ladder")).order_by("pk"),
            ),
            "chosen",
            Prefetch(
                "opponent_versions",
                queryset=BotVersion.objects.select_related("bot__owner", "bot__team"),
            ),
        )
        .order_by("-created_at", "-id")
    )


def challenge_get(*, user: User, challenge_id: int) -> Challenge | None:
    """One of ``user``'s challenges (others' are not theirs to see)."""
    return player_challenges(user=user).filter(pk=challenge_id).first()


#: What a leaderboard shows of a rating's bot, owner and version (not the version's report
#: and code, nor the owner's password hash).
RATING_SHOWN = (
    *("ladder_id", "bot_id", "bot_version_id", "rating", "deviation", "rated_matches"),
    *("bot__name", "bot__owner_id", "bot__visibility", "bot__owner__username"),
    "bot__team_id",  # the access rule (bots.selectors.may_manage_bot) reads it
    "bot__team__name",  # a team's bot is credited to its team (bots.selectors.bot_credit)
    *("bot_version__bot_id", "bot_version__number", "bot_version__status"),
)


def _on_board(ratings: QuerySet[Rating]) -> QuerySet[Rating]:
    """Those of ``ratings`` on their ladder's leaderboard: of a public bot's playing version,
    the bot entered there (an index probe each, not a join with every entry of the bot)."""
    entered = Entry.objects.filter(bot_id=OuterRef("bot_id"), ladder_id=OuterRef("ladder_id"))
    return ratings.filter(
        Exists(entered),
        bot_version__status=VersionStatus.ACTIVE,
        bot__visibility=Visibility.PUBLIC,
    )


def ladder_leaderboard(*, ladder: Ladder, provisional: bool | None = None) -> QuerySet[Rating]:
    """The playing version of each public bot entered on the ladder, best first.

    ``provisional``: only the provisional ratings (True: their deviation over
    PROVISIONAL_DEVIATION, ``elo.is_provisional``) or only the settled ones (False).
    """
    ratings = _on_board(Rating.objects.filter(ladder=ladder))
    if provisional is not None:
        settled = Q(deviation__lte=PROVISIONAL_DEVIATION)
        ratings = ratings.exclude(settled) if provisional else ratings.filter(settled)
    return (
        ratings.select_related("bot__owner", "bot__team", "bot_version")
        .only(*RATING_SHOWN)
        .order_by("-rating", "id")
    )


#: Seconds a ladder's count of ranked ratings is reused (the ladder page's "Page 1 of N"):
#: the count joins every one of them to its bot, version and entry (a large share of the
#: page's time on a big ladder) for a number that moves only when a bot settles, leaves
#: or changes version.
LEADERBOARD_COUNT_SECONDS = 10


def ladder_leaderboard_count(*, ladder: Ladder, provisional: bool | None = None) -> int:
    """``ladder_leaderboard(...).count()``, counted at most every LEADERBOARD_COUNT_SECONDS
    (in Django's cache; counted each time when the cache cannot be reached)."""
    key = f"arena:leaderboard-count:{ladder.pk}:{provisional}"
    try:
        count = cache.get(key)
    except Exception:  # the cache backend's own errors (redis, ...): count instead
        count = None
    if count is None:
        count = ladder_leaderboard(ladder=ladder, provisional=provisional).count()
        with contextlib.suppress(Exception):  # uncached, it is counted again next time
            cache.set(key, count, LEADERBOARD_COUNT_SECONDS)
    return int(count)


def unrated_finished_matches(limit: int = 500) -> list[Match]:
    """The latest-finished unrated match of each ladder (rating it rates the earlier ones)."""
    latest: dict[int, Match] = {}
    rows = Match.objects.filter(
        status=MatchStatus.FINISHED, rated=True, rated_at__isnull=True
    ).order_by("finished_at", "id")[:limit]
    for match in rows:
        latest[match.ladder_id] = match
    return list(latest.values())


def ladder_rated_units(
    *, ladder_id: int, since: datetime | None = None
) -> Iterator[list[tuple[int, int]]]:
    """Every unit the ladder's Elo rated (a match, or a whole duplicate deal), as it compared them.

    (version id, rank) per seat, ranked as ``services.ratings_apply`` ranked
    them (``deals.unit_standings``). Streamed a unit at a time, in the order
    of their first match (a deal's games are read together), so a refit of
    a million matches holds their pairs' totals, not the matches. ``since``:
    only the units rated from then on (a season that reset the ratings).
    """
    # A deal's id is its first game's match id: no single match shares it.
    unit_key = Coalesce("match__deal_id", "match_id")
    participants = Participant.objects.filter(
        match__ladder_id=ladder_id, match__rated=True, match__rated_at__isnull=False
    )
    if since is not None:
        participants = participants.filter(match__rated_at__gte=since)
    rows = (
        participants.annotate(unit=unit_key)
        .order_by("unit", "match_id", "seat")
        .values_list("unit", "match__deal_id", "bot_version_id", "rank", "money", "forfeit")
    )
    seats: list[SeatResult] = []
    current, in_deal = None, False
    for unit, deal_id, version_id, rank, money, forfeit in rows.iterator(chunk_size=5000):
        if unit != current and seats:
            yield unit_standings(seats, deal=in_deal)
            seats = []
        current, in_deal = unit, deal_id is not None
        seats.append(SeatResult(version_id, rank or 0, money or 0, bool(forfeit)))
    if seats:
        yield unit_standings(seats, deal=in_deal)


def ladders_needing_refit() -> list[Ladder]:
    """Ladders with enough results rated since their last refit (``refit.refit_due``)."""
    ladders = Ladder.objects.filter(rated_units__gt=F("refit_units")).order_by("pk")
    return [ladder for ladder in ladders if refit_due(ladder.rated_units, ladder.refit_units)]


def rating_changes_recent(
    *, rating_ids: Sequence[int], points: int
) -> dict[int, list[RatingChange]]:
    """The last ``points`` changes of each rating, oldest first, in two queries.

    The first finds each rating's ``points``-th latest change id (a short walk
    down ratingchange_rating_recent), the second fetches the changes from
    there on. A window function would number every change of a rating first:
    thousands for a long-lived bot, for a sparkline of a few points.
    """
    result: dict[int, list[RatingChange]] = {rating_id: [] for rating_id in rating_ids}
    if not rating_ids or points < 1:
        return result
    nth_latest = (
        RatingChange.objects.filter(rating_id=OuterRef("pk"))
        .order_by("-id")
        .values("id")[points - 1 : points]
    )
    cutoffs = Rating.objects.filter(pk__in=rating_ids).annotate(cutoff=Subquery(nth_latest))
    ranges = [
        Q(rating_id=rating_id) if cutoff is None else Q(rating_id=rating_id, id__gte=cutoff)
        for rating_id, cutoff in cutoffs.values_list("pk", "cutoff")
    ]
    if not ranges:
        return result
    changes = RatingChange.objects.filter(functools.reduce(operator.or_, ranges)).order_by(
        "rating_id", "id"
    )
    shown = ("id", "rating_id", "match_id", "rating_before", "rating_after")
    for change in changes.only(*shown, "deviation_before", "deviation_after"):
        result[change.rating_id].append(change)
    return result


@dataclass(frozen=True)
class ChangePoint:
    """One rating change as a chart draws it (not a model object: a bot page draws 900)."""

    pk: int
    rating_id: int
    rating_before: float
    rating_after: float
    #: Null for changes made before deviations were kept.
    deviation_before: float | None = None
    deviation_after: float | None = None


def _recent_points(*, rating_ids: Sequence[int], points: int) -> dict[int, list[ChangePoint]]:
    """:func:`rating_changes_recent` as :class:`ChangePoint` (the same changes, in order).

    On PostgreSQL one query reads numbers: per rating (LATERAL) its ``points``-th
    latest change id, a short walk down ratingchange_rating_recent, then the
    changes from there on, a range of the same index. The ORM's two queries built
    an OR of a range per rating and a model object per change. (Not ``ORDER BY id
    DESC LIMIT points``: misjudging how many changes a rating has, the planner read
    every change of a house bot's and sorted them.)
    """
    if connection.vendor != "postgresql":
        return {
            rating_id: [
                ChangePoint(
                    c.pk,
                    c.rating_id,
                    c.rating_before,
                    c.rating_after,
                    c.deviation_before,
                    c.deviation_after,
                )
                for c in changes
            ]
            for rating_id, changes in rating_changes_recent(
                rating_ids=rating_ids, points=points
            ).items()
        }
    result: dict[int, list[ChangePoint]] = {rating_id: [] for rating_id in rating_ids}
    if not rating_ids or points < 1:
        return result
    table = connection.ops.quote_name(RatingChange._meta.db_table)
    query = (
        "SELECT c.id, r.id, c.rating_before, c.rating_after, c.deviation_before, "
        "c.deviation_after FROM unnest(%s::bigint[]) AS r (id) "
        "CROSS JOIN LATERAL (SELECT COALESCE((SELECT id FROM " + table + " "
        "WHERE rating_id = r.id ORDER BY id DESC OFFSET %s LIMIT 1), 0) AS id) AS cutoff "
        "CROSS JOIN LATERAL (SELECT id, rating_before, rating_after, deviation_before, "
        "deviation_after FROM " + table + " "
        "WHERE rating_id = r.id AND id >= cutoff.id) AS c ORDER BY r.id, c.id"
    )
    with connection.cursor() as cursor:
        cursor.execute(query, [list(rating_ids), points - 1])
        for row in cursor.fetchall():
            result[row[1]].append(ChangePoint(*row))
    return result


def rating_trends(*, rating_ids: Sequence[int], points: int) -> dict[int, list[float]]:
    """What a leaderboard's sparklines draw: per rating, the rating before its last
    ``points`` changes and after each, oldest first ([] without a change)."""
    return {
        rating_id: [changes[0].rating_before, *(c.rating_after for c in changes)] if changes else []
        for rating_id, changes in _recent_points(rating_ids=rating_ids, points=points).items()
    }


def bot_ratings(*, bot: Bot) -> QuerySet[Rating]:
    """Every rating of the bot's versions, by ladder, newest version first."""
    return (
        Rating.objects.filter(bot=bot)
        .select_related("ladder", "bot_version")
        .order_by("ladder__name", "ladder_id", "-bot_version__number")
    )


def bots_active_ratings(*, bots: Iterable[Bot]) -> QuerySet[Rating]:
    """The ratings of these bots' playing versions, on every ladder."""
    return (
        Rating.objects.filter(bot__in=list(bots), bot_version__status=VersionStatus.ACTIVE)
        .select_related("ladder")
        .order_by("ladder__name", "bot_id")
    )


@dataclass(frozen=True)
class HistoryPoint:
    """A change of a bot's history with its rating (and so its version)."""

    pk: int
    rating_before: float
    rating_after: float
    rating: Rating
    #: Null for changes made before deviations were kept.
    deviation_before: float | None = None
    deviation_after: float | None = None


def bot_rating_history(
    *, ratings: Sequence[Rating], points: int
) -> list[tuple[Ladder, list[HistoryPoint]]]:
    """Per ladder, a bot's last ``points`` rating changes across its versions, oldest first.

    ``ratings`` are the bot's (:func:`bot_ratings`). Each change comes with
    its ``rating`` (and so its version), so a chart can mark where a new
    version took over.
    """
    recent = _recent_points(rating_ids=[r.pk for r in ratings], points=points)
    by_ladder: dict[int, tuple[Ladder, list[HistoryPoint]]] = {}
    for rating in ratings:
        _, changes = by_ladder.setdefault(rating.ladder_id, (rating.ladder, []))
        changes += (
            HistoryPoint(
                c.pk, c.rating_before, c.rating_after, rating, c.deviation_before, c.deviation_after
            )
            for c in recent[rating.pk]
        )
    history = []
    for ladder, changes in by_ladder.values():
        # Change ids grow in the order matches were rated: the ladder's timeline.
        changes.sort(key=lambda change: change.pk)
        history.append((ladder, changes[-points:]))
    return history


# --------------------------------------------------------------------------- matchmaking


@dataclass
class MatchmakingCandidate:
    """The active version of a public bot entered on a ladder and qualified there, as the
    scheduler weighs it on that ladder.

    Mutable: the scheduler counts the matches it queues as it goes.
    """

    version_id: int
    rating: float
    #: Games on this ladder: rated, finished awaiting rating, queued or running. A
    #: duplicate deal counts as one, like its rating (``Rating.rated_matches``).
    games: int
    #: Runs queued or running, on every ladder: a series (of games or deals), a
    #: duplicate deal, or a lone match counts as one.
    queued: int
    #: A house bot (the platform's own).
    is_house: bool = False


def matchmaking_candidates(*, ladder: Ladder) -> list[MatchmakingCandidate]:
    """Every version the scheduler may seat on ``ladder``, with its counts.

    Four flat reads whatever the history: the rated count is kept on the
    rating row, so only the few matches not rated yet are counted (served by
    match_unrated and match_status_created). A version not rated there yet
    counts INITIAL_RATING; ratings are the working Elo (``elo.working_rating``).
    Games are counted in rated units: a match, or a whole duplicate deal (its
    games share ``deal``), matching ``rated_matches``; the queued count in
    runs, a series (its games share ``series``) counting once.
    """
    versions = BotVersion.objects.filter(
        status=VersionStatus.ACTIVE,
        bot__visibility=Visibility.PUBLIC,
        bot__entries__ladder=ladder,
        qualifications__ladder=ladder,
        qualifications__status=QualificationStatus.PASSED,
    ).values_list("pk", "bot__owner__profile__is_house")
    rated = {
        version_id: (rating, matches)
        for version_id, rating, matches in Rating.objects.filter(
            ladder=ladder, bot_version__status=VersionStatus.ACTIVE
        ).values_list("bot_version_id", "rating", "rated_matches")
    }
    waiting = Q(match__status__in=[MatchStatus.QUEUED, MatchStatus.RUNNING])
    unrated = Q(match__status=MatchStatus.FINISHED, match__rated=True, match__rated_at__isnull=True)
    unit = Count(Coalesce("match__deal_id", "match_id"), distinct=True)
    run = Count(Coalesce("match__series_id", "match__deal_id", "match_id"), distinct=True)
    pending_here = dict(
        Participant.objects.filter(waiting | unrated, match__ladder=ladder)
        .values("bot_version_id")
        .annotate(n=unit)
        .values_list("bot_version_id", "n")
    )
    queued = dict(
        Participant.objects.filter(waiting)
        .values("bot_version_id")
        .annotate(n=run)
        .values_list("bot_version_id", "n")
    )
    candidates = []
    for version_id, is_house in versions:
        rating, rated_matches = rated.get(version_id, (INITIAL_RATING, 0))
        candidates.append(
            MatchmakingCandidate(
                version_id=version_id,
                # The scheduler weighs the Elo the updates run on, whatever the stretch.
                rating=working_rating(rating, ladder.elo_scale),
                games=rated_matches + pending_here.get(version_id, 0),
                queued=queued.get(version_id, 0),
                is_house=bool(is_house),
            )
        )
    return candidates


# --------------------------------------------------------------------------- version verdicts


@dataclass(frozen=True)
class VersionVerdict:
    """A version against its predecessor on one ladder (``verdicts.verdict``)."""

    ladder: Ladder
    version: BotVersion
    #: Its nearest ancestor rated or qualified on the ladder (its parent, unless that one
    #: never played there).
    parent: BotVersion
    verdict: Verdict
    #: The ladder is open and both passed its pre-flight and may still play (active, or
    #: retired after it): their owner may ask for a challenge of one against the other there.
    challengeable: bool


#: Every (ladder, pair key, player, opponent) of the units that speak to a bot's verdicts,
#: with the opponent's rating there and the model's sufficient statistics: weighted points
#: and weighted games. The pair key is 0 for rated units (every version's own) and the
#: pair's number (from 1) for the challenge units on the pair's ladder where its version met
#: its predecessor (unrated: its verdict only); those rows also count these units (0 for
#: rated rows, whose count is the rating's).
#: Units are compared as the ratings compare them (``selectors.ladder_rated_units``,
#: ``deals.unit_standings``): a game on its ranks, a duplicate deal on each bot's money over
#: it, a forfeit below every clean total; each pair of a unit of N weighs 3/(N+1). Rated
#: units before a season reset the ladder's ratings (``Ladder.ratings_reset_at``) are
#: left out, as the refit leaves them out: they were rated against the old ratings.
_VERDICT_PAIRS_SQL = """
WITH pair (key, ladder_id, child, parent) AS (VALUES {pairs}),
unit_match AS (
    SELECT DISTINCT m.ladder_id, 0 AS child, COALESCE(m.deal_id, m.id) AS unit,
           m.id AS match_id, m.deal_id IS NOT NULL AS in_deal, m.seats
    FROM {participant} p JOIN {match} m ON m.id = p.match_id
    JOIN {ladder} l ON l.id = m.ladder_id
    WHERE p.bot_version_id IN ({versions}) AND m.rated AND m.rated_at IS NOT NULL
      AND (l.ratings_reset_at IS NULL OR m.rated_at >= l.ratings_reset_at)
  UNION
    SELECT m.ladder_id, pair.key, COALESCE(m.deal_id, m.id), m.id, m.deal_id IS NOT NULL,
           m.seats
    FROM pair
    JOIN {participant} a ON a.bot_version_id = pair.child
    JOIN {participant} b ON b.match_id = a.match_id AND b.bot_version_id = pair.parent
    JOIN {match} m ON m.id = a.match_id AND m.ladder_id = pair.ladder_id
    WHERE NOT m.rated AND m.status = 'finished'
      AND EXISTS (SELECT 1 FROM {challenge_match} c WHERE c.match_id = m.id)
      AND (m.deal_id IS NULL OR NOT EXISTS (
          SELECT 1 FROM {match} g WHERE g.deal_id = m.deal_id AND g.status <> 'finished'))
),
deal_standing AS (
    SELECT u.ladder_id, u.child, u.unit, p.bot_version_id AS player,
           RANK() OVER (PARTITION BY u.child, u.unit ORDER BY
               MAX(CASE WHEN COALESCE(p.forfeit, '') <> '' THEN 1 ELSE 0 END),
               SUM(COALESCE(p.money, 0)) DESC) AS rank,
           COUNT(*) OVER (PARTITION BY u.child, u.unit) AS players
    FROM unit_match u JOIN {participant} p ON p.match_id = u.match_id
    WHERE u.in_deal
    GROUP BY u.ladder_id, u.child, u.unit, p.bot_version_id
),
pair_result AS (
    SELECT u.ladder_id, u.child, u.unit, a.bot_version_id AS player,
           b.bot_version_id AS opponent, 3.0 / (u.seats + 1) AS weight,
           COALESCE(a.rank, 0) AS rank, COALESCE(b.rank, 0) AS other_rank
    FROM unit_match u
    JOIN {participant} a ON a.match_id = u.match_id AND a.bot_version_id IN ({versions})
    JOIN {participant} b ON b.match_id = u.match_id AND b.bot_version_id <> a.bot_version_id
    WHERE NOT u.in_deal
  UNION ALL
    SELECT a.ladder_id, a.child, a.unit, a.player, b.player, 3.0 / (a.players + 1),
           a.rank, b.rank
    FROM deal_standing a
    JOIN deal_standing b ON b.child = a.child AND b.unit = a.unit AND b.player <> a.player
    WHERE a.player IN ({versions})
),
tally AS (
    SELECT ladder_id, child, player, opponent,
           SUM(weight * CASE WHEN rank < other_rank THEN 1.0 WHEN rank = other_rank THEN 0.5
                             ELSE 0.0 END) AS points,
           SUM(weight) AS games
    FROM pair_result GROUP BY ladder_id, child, player, opponent
),
met AS (
    SELECT ladder_id, child, COUNT(DISTINCT unit) AS units
    FROM unit_match WHERE child <> 0 GROUP BY ladder_id, child
)
SELECT t.ladder_id, t.child, t.player, t.opponent, r.rating, t.points, t.games,
       COALESCE(met.units, 0)
FROM tally t
LEFT JOIN {rating} r ON r.ladder_id = t.ladder_id AND r.bot_version_id = t.opponent
LEFT JOIN met ON met.ladder_id = t.ladder_id AND met.child = t.child
"""


class _VerdictRow(NamedTuple):
    """A row of :data:`_VERDICT_PAIRS_SQL`."""

    ladder_id: int
    key: int
    player: int
    opponent: int
    #: The opponent's rating on the ladder (None without one).
    rating: float | None
    points: float
    games: float
    #: For a challenge row (``key``), the units where the version met its predecessor.
    units: int


def _verdict_rows(
    versions: Sequence[int], pairs: Sequence[tuple[int, int, int]]
) -> list[_VerdictRow]:
    """The rows of :data:`_VERDICT_PAIRS_SQL` for these versions and (ladder, version,
    predecessor) pairs, numbered from 1."""
    tables = {
        "participant": Participant._meta.db_table,
        "match": Match._meta.db_table,
        "rating": Rating._meta.db_table,
        "ladder": Ladder._meta.db_table,
        "challenge_match": Challenge.matches.through._meta.db_table,
    }
    query = _VERDICT_PAIRS_SQL.format(
        pairs=", ".join(["(%s, %s, %s, %s)"] * len(pairs)),
        versions=", ".join(["%s"] * len(versions)),
        **{name: connection.ops.quote_name(table) for name, table in tables.items()},
    )
    numbered = [value for key, pair in enumerate(pairs, start=1) for value in (key, *pair)]
    params = [*numbered, *versions, *versions, *versions]
    with connection.cursor() as cursor:
        cursor.execute(query, params)
        return [
            _VerdictRow(
                int(ladder_id),
                int(key),
                int(player),
                int(opponent),
                None if rating is None else float(rating),
                float(points),
                float(games),
                int(units),
            )
            for ladder_id, key, player, opponent, rating, points, games, units in cursor
        ]


def _predecessors(
    versions: Sequence[BotVersion], known: set[tuple[int, int]]
) -> list[tuple[int, int, int]]:
    """(ladder, version, predecessor) of every version with a predecessor on a ladder it is
    known on: its nearest ancestor known there too (``known``: (ladder, version) rated or
    qualified there), as a new version's rating starts from its nearest rated ancestor (a
    failed upload in between never played)."""
    by_id = {v.pk: v for v in versions}
    found = []
    for version in versions:
        for ladder_id in sorted({ladder for ladder, v in known if v == version.pk}):
            ancestor = by_id.get(version.parent_id or 0)
            while ancestor is not None and (ladder_id, ancestor.pk) not in known:
                ancestor = by_id.get(ancestor.parent_id or 0)
            if ancestor is not None:
                found.append((ladder_id, version.pk, ancestor.pk))
    return found


def bot_verdicts(
    *, versions: Sequence[BotVersion], ratings: Sequence[Rating]
) -> list[VersionVerdict]:
    """Each version against its predecessor on each ladder (:func:`_predecessors`), where
    either has a rating or they met in a challenge: newest version first, then by ladder.

    ``versions`` and ``ratings`` are one bot's (``bot_versions``, :func:`bot_ratings`, with
    their ladders). One query reads the pre-flights passed, one every result that counts
    (:data:`_VERDICT_PAIRS_SQL`): rated results, and challenge results of the version
    against its predecessor. Opponents without a rating there count INITIAL_RATING, as in
    the refit.
    """
    by_id = {v.pk: v for v in versions}
    if not any(v.parent_id for v in versions):
        return []
    rated = {(r.ladder_id, r.bot_version_id): r for r in ratings}
    passed = set(
        Qualification.objects.filter(
            bot_version_id__in=list(by_id), status=QualificationStatus.PASSED
        ).values_list("ladder_id", "bot_version_id")
    )
    pairs = _predecessors(versions, set(rated) | passed)
    if not pairs:
        return []
    # (ladder, pair key, player) -> opponent -> (rating, points, games)
    tallies: dict[tuple[int, int, int], dict[int, tuple[float, float, float]]] = defaultdict(dict)
    met: dict[int, int] = {}  # pair key -> units of challenges where the two met
    for row in _verdict_rows(list(by_id), pairs):
        rating = INITIAL_RATING if row.rating is None else row.rating
        tallies[row.ladder_id, row.key, row.player][row.opponent] = (
            rating,
            row.points,
            row.games,
        )
        if row.key:
            met[row.key] = row.units
    shown = [
        (key, pair)
        for key, pair in enumerate(pairs, start=1)
        if key in met or (pair[0], pair[1]) in rated or (pair[0], pair[2]) in rated
    ]
    ladders = {r.ladder_id: r.ladder for r in ratings}
    ladders.update(Ladder.objects.in_bulk({pair[0] for _, pair in shown} - set(ladders)))
    playable = {VersionStatus.ACTIVE, VersionStatus.RETIRED}

    def evidence(ladder_id: int, key: int, me: int, other: int, prior: float) -> Evidence:
        # Its rated results, and those of the challenges where the version met the other.
        tables = (tallies.get((ladder_id, 0, me), {}), tallies.get((ladder_id, key, me), {}))
        opposed = [
            Opposed(rating, points, games)
            for table in tables
            for opponent, (rating, points, games) in table.items()
            if opponent != other
        ]
        row = rated.get((ladder_id, me))
        return Evidence(
            prior if row is None else row.prior, opposed, 0 if row is None else row.rated_matches
        )

    found = []
    for key, (ladder_id, child_id, parent_id) in shown:
        child, parent = by_id[child_id], by_id[parent_id]
        parent_row = rated.get((ladder_id, parent_id))
        # A version without a rating there would start from its predecessor's.
        start = INITIAL_RATING if parent_row is None else parent_row.rating
        heads = [
            tallies.get((ladder_id, k, child_id), {}).get(parent_id) for k in (0, key)
        ]  # rated, then challenge results of the one against the other
        direct = Direct(
            sum(head[1] for head in heads if head is not None),
            sum(head[2] for head in heads if head is not None),
            met.get(key, 0),
        )
        ladder = ladders[ladder_id]
        found.append(
            VersionVerdict(
                ladder=ladder,
                version=child,
                parent=parent,
                verdict=verdict(
                    evidence(ladder_id, key, child_id, parent_id, start),
                    evidence(ladder_id, key, parent_id, child_id, INITIAL_RATING),
                    direct,
                ),
                challengeable=ladder.is_open
                and all(
                    v.status in playable and (ladder_id, v.pk) in passed for v in (child, parent)
                ),
            )
        )
    found.sort(key=lambda f: (-f.version.number, f.ladder.name, f.ladder.pk))
    return found


# --------------------------------------------------------------------------- seasons


def ladder_current_season(*, ladder: Ladder) -> Season:
    """The ladder's running season: a ladder never closed is in its first, begun with it
    (an unsaved row: the first close writes it)."""
    running = Season.objects.filter(ladder=ladder, ended_at__isnull=True).first()
    if running is not None:
        return running
    return Season(
        ladder=ladder,
        number=1,
        name="Season 1",
        started_at=ladder.created_at,
        began=SeasonStart.FIRST,
    )


def ladder_past_seasons(*, ladder: Ladder) -> QuerySet[Season]:
    """The ladder's closed seasons, latest first."""
    return Season.objects.filter(ladder=ladder, ended_at__isnull=False).order_by("-number")


def season_get(*, ladder: Ladder, number: int) -> Season | None:
    """One closed season of the ladder, with its final table."""
    return (
        Season.objects.filter(ladder=ladder, number=number, ended_at__isnull=False)
        .select_related("ladder", "standings")
        .first()
    )


def standing_rows(*, standings: Standings) -> QuerySet[StandingRow]:
    """A frozen table's rows in order, as archived."""
    return StandingRow.objects.filter(standings=standings).order_by("position")


def bot_season_placings(*, bot: Bot) -> QuerySet[StandingRow]:
    """The bot's rows in the final tables of closed ladder seasons, latest first."""
    return (
        StandingRow.objects.filter(bot=bot, standings__season__isnull=False)
        .select_related("standings__season__ladder")
        .order_by("-standings__archived_at", "-standings_id")
    )
