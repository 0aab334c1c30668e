"""The database's figures for GET /metrics: a few aggregate queries, read at scrape time.

Every count is a total over the table (a Prometheus counter or gauge), the same
whichever web process answers: no process keeps state between scrapes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import connection
from django.db.models import Count, Max, Min
from django_celery_beat.models import PeriodicTask

from arena.bots.models import BotVersion, VersionStatus
from arena.ladders.models import Ladder, Qualification, QualificationStatus
from arena.matches.models import (
    AttemptFault,
    AttemptOutcome,
    Match,
    MatchAttempt,
    MatchStatus,
    Participant,
)


@dataclass(frozen=True)
class PlatformFigures:
    #: (ladder slug, match status) -> matches
    matches: dict[tuple[str, str], int]
    #: forfeit kind -> seats lost by it
    forfeits: dict[str, int]
    #: worker host -> seconds its processes spent playing (ended attempts)
    busy_seconds: dict[str, float]
    #: worker host -> attempts playing now
    attempts_running: dict[str, int]
    ratings_pending: int
    oldest_unrated_finished_at: datetime | None
    #: pre-flight games (one version on one ladder) not played yet
    preflights_pending: int
    #: version status ("pending", "validating") -> versions not validated yet
    versions_unvalidated: dict[str, int]
    beat_last_run_at: datetime | None


def _ladder_slugs() -> dict[int, str]:
    return dict(Ladder.objects.values_list("id", "slug"))


def _matches_by_ladder_and_status(slugs: dict[int, str]) -> dict[tuple[str, str], int]:
    """Every ladder and status, 0 included: a series that appears late breaks rate()."""
    counts = {(slug, status): 0 for slug in slugs.values() for status in MatchStatus.values}
    rows = Match.objects.order_by().values_list("ladder_id", "status").annotate(n=Count("id"))
    for ladder, status, n in rows:
        counts[slugs.get(ladder, str(ladder)), status] = n
    return counts


def _forfeits() -> dict[str, int]:
    rows = (
        Participant.objects.exclude(forfeit="")
        .order_by()
        .values_list("forfeit")
        .annotate(n=Count("id"))
    )
    return dict(rows)


# One run of a worker process (a lone match, or a whole series started together) is
# the attempts sharing its runner and start: its busy time is from that start to its
# last attempt's end (summing each attempt's span would count a series' first game
# once per game). An attempt ended by the sweep of a lost worker is left out: its end
# is when the sweep noticed, not when the worker stopped. The host is the runner's
# first part (host:pid-namespace:pid:start-time).
_BUSY_SQL = {
    "postgresql": """
        SELECT host, SUM(seconds) FROM (
            SELECT split_part(runner, ':', 1) AS host,
                   EXTRACT(EPOCH FROM MAX(ended_at) - started_at) AS seconds
            FROM {table} WHERE ended_at IS NOT NULL AND fault <> %s
            GROUP BY runner, started_at
        ) AS runs GROUP BY host
    """,
    "sqlite": """
        SELECT host, SUM(seconds) FROM (
            SELECT CASE WHEN instr(runner, ':') > 0
                        THEN substr(runner, 1, instr(runner, ':') - 1) ELSE runner END AS host,
                   (julianday(MAX(ended_at)) - julianday(started_at)) * 86400.0 AS seconds
            FROM {table} WHERE ended_at IS NOT NULL AND fault <> %s
            GROUP BY runner, started_at
        ) AS runs GROUP BY host
    """,
}


def _busy_seconds() -> dict[str, float]:
    sql = _BUSY_SQL.get(connection.vendor)
    if sql is None:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(
            sql.format(table=connection.ops.quote_name(MatchAttempt._meta.db_table)),
            [AttemptFault.WORKER_LOST.value],
        )
        return {str(host): float(seconds or 0) for host, seconds in cursor.fetchall()}


def _attempts_running() -> dict[str, int]:
    running: dict[str, int] = {}
    rows = MatchAttempt.objects.filter(outcome=AttemptOutcome.RUNNING).values_list("runner")
    # Few rows (one per game being played): the host is split off here.
    for (runner,) in rows.iterator():
        host = runner.split(":", 1)[0]
        running[host] = running.get(host, 0) + 1
    return running


def platform_figures() -> PlatformFigures:
    """Everything GET /metrics reads from the database, in a fixed number of queries."""
    slugs = _ladder_slugs()
    # The partial index match_unrated holds exactly these rows.
    unrated = Match.objects.filter(
        status=MatchStatus.FINISHED, rated=True, rated_at__isnull=True
    ).aggregate(n=Count("id"), oldest=Min("finished_at"))
    versions = dict(
        BotVersion.objects.filter(status__in=(VersionStatus.PENDING, VersionStatus.VALIDATING))
        .order_by()
        .values_list("status")
        .annotate(n=Count("id"))
    )
    return PlatformFigures(
        matches=_matches_by_ladder_and_status(slugs),
        forfeits=_forfeits(),
        busy_seconds=_busy_seconds(),
        attempts_running=_attempts_running(),
        ratings_pending=int(unrated["n"]),
        oldest_unrated_finished_at=unrated["oldest"],
        preflights_pending=Qualification.objects.filter(status=QualificationStatus.PENDING).count(),
        versions_unvalidated=versions,
        beat_last_run_at=PeriodicTask.objects.filter(enabled=True).aggregate(
            last=Max("last_run_at")
        )["last"],
    )
