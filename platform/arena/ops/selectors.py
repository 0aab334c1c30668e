"""The database's figures for GET /metrics, read at scrape time in a fixed number of
queries.

Gauges (matches queued or running, ratings pending, pre-flights) are read through
small indexes at every scrape. Counters (matches finished, forfeits, workers' busy
time) are totals over the whole history: a web process reads the whole history once,
at its first scrape, and then only the rows that ended recently (:class:`Totals`).
Every process answers the same totals.
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection
from django.db.models import Case, Count, Max, Min, Q, Value, When
from django.utils import timezone
from django_celery_beat.models import PeriodicTask

from arena.bots.models import BotVersion, VersionStatus
from arena.ladders.models import Ladder, Qualification, QualificationStatus
from arena.matches.models import (
    AttemptFault,
    Match,
    MatchAttempt,
    MatchStatus,
    Participant,
    WorkerPresence,
)

#: A match's finish time is written before its transaction commits: one that finished
#: this recently may still appear, so such rows are read again at every scrape.
SETTLE = timedelta(minutes=10)


@dataclass(frozen=True)
class PlatformFigures:
    #: (ladder slug, match status) -> matches
    matches: dict[tuple[str, str], int]
    #: forfeit kind -> seats lost by it
    forfeits: dict[str, int]
    #: worker host -> seconds its processes spent playing (ended runs)
    busy_seconds: dict[str, float]
    #: worker host -> games being played there now
    games_running: dict[str, int]
    #: worker host -> its processes playing now (a series is one process's run)
    processes_busy: dict[str, int]
    #: (worker node name, its queues joined by ",") -> its pool's processes, workers up only
    worker_processes: dict[tuple[str, str], int]
    ratings_pending: int
    oldest_unrated_finished_at: datetime | None
    #: pre-flight games (one version on one ladder) not played yet
    preflights_pending: int
    #: version status ("pending", "validating") -> versions not validated yet
    versions_unvalidated: dict[str, int]
    beat_last_run_at: datetime | None


def _host(runner: str) -> str:
    """The host of a runner (host:pid-namespace:pid:start-time)."""
    return runner.split(":", 1)[0]


# One run of a worker process (a lone match, or a series whose games start together)
# is the attempts sharing its runner and start: its busy time runs from that start to
# its last attempt's end (summing each attempt's span would count a series' first game
# once per game). An attempt ended by the sweep of a lost worker is left out: its end
# is when the sweep noticed, not when the worker stopped. Only rows above an attempt
# id are read (the primary key's index); the runs are summed per host (the runner's
# first part) and by whether they settled, with the last attempt id of those settled.
_RUNS_SQL = {
    "postgresql": """
        SELECT host, settled, SUM(seconds), MAX(last_id) FROM (
            SELECT split_part(runner, ':', 1) AS host, started_at <= %s AS settled,
                   MAX(id) AS last_id,
                   EXTRACT(EPOCH FROM MAX(ended_at) - started_at) AS seconds
            FROM {table} WHERE id > %s AND ended_at IS NOT NULL AND fault <> %s
            GROUP BY runner, started_at
        ) AS runs GROUP BY host, settled
    """,
    "sqlite": """
        SELECT host, settled, SUM(seconds), MAX(last_id) FROM (
            SELECT CASE WHEN instr(runner, ':') > 0
                        THEN substr(runner, 1, instr(runner, ':') - 1) ELSE runner END AS host,
                   started_at <= %s AS settled, MAX(id) AS last_id,
                   -- julianday: to the millisecond, enough for busy time
                   (julianday(MAX(ended_at)) - julianday(started_at)) * 86400.0 AS seconds
            FROM {table} WHERE id > %s AND ended_at IS NOT NULL AND fault <> %s
            GROUP BY runner, started_at
        ) AS runs GROUP BY host, settled
    """,
}


class Totals:
    """The counters' totals of one process: what settled (no row of it can change or
    appear any more) is kept, and only rows that ended since are read at each scrape.

    Matches and their forfeits settle SETTLE after they finished (read by the index
    match_ladder_finished); a worker's run settles once it started longer ago than a
    match may run before the sweep ends it (ARENA_MATCH_STALE_SECONDS), read above the
    highest attempt id settled. A row committed later than that is missed: rare, and a
    counter only ever grows.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.finished_after: datetime | None = None
        self.finished: Counter[int] = Counter()
        self.forfeits: Counter[str] = Counter()
        self.runs_after_id = 0
        self.busy: dict[str, float] = {}

    def read(self, ladder_ids: list[int]) -> tuple[Counter[int], Counter[str], dict[str, float]]:
        """Matches finished per ladder id, forfeits per kind, busy seconds per host.

        The totals kept change only once every query answered: a scrape that fails
        half-way (the database away) leaves them as they were.
        """
        with self._lock:
            now = timezone.now()
            settled = now - SETTLE
            runs_settled = now - timedelta(seconds=settings.ARENA_MATCH_STALE_SECONDS) - SETTLE
            finished, finished_recent = self._finished(ladder_ids, settled)
            forfeits, forfeits_recent = self._forfeits(ladder_ids, settled)
            busy, busy_recent, last_settled_id = self._busy(runs_settled)
            self.finished += finished
            self.forfeits += forfeits
            self.busy = _sum(self.busy, busy)
            # The next scrape reads from where this one's settled rows end.
            self.finished_after = settled
            self.runs_after_id = max(self.runs_after_id, last_settled_id)
            return (
                self.finished + finished_recent,
                self.forfeits + forfeits_recent,
                _sum(self.busy, busy_recent),
            )

    def _window(self, field: str, ladder_ids: list[int]) -> Q:
        # Every ladder named: PostgreSQL reads the index (ladder, finished_at) per ladder.
        window = Q(**{f"{field}status": MatchStatus.FINISHED, f"{field}ladder_id__in": ladder_ids})
        if self.finished_after is not None:
            window &= Q(**{f"{field}finished_at__gt": self.finished_after})
        return window

    def _finished(
        self, ladder_ids: list[int], settled: datetime
    ) -> tuple[Counter[int], Counter[int]]:
        """Matches finished since the last scrape, per ladder id: settled, and recent."""
        rows = (
            Match.objects.filter(self._window("", ladder_ids))
            .order_by()
            .values_list(
                "ladder_id",
                Case(When(finished_at__lte=settled, then=Value(True)), default=Value(False)),
            )
            .annotate(n=Count("id"))
        )
        found: tuple[Counter[int], Counter[int]] = (Counter(), Counter())
        for ladder_id, is_settled, n in rows:
            found[0 if is_settled else 1][ladder_id] += n
        return found

    def _forfeits(
        self, ladder_ids: list[int], settled: datetime
    ) -> tuple[Counter[str], Counter[str]]:
        """Seats forfeited in those matches, per kind: settled, and recent."""
        rows = (
            Participant.objects.filter(self._window("match__", ladder_ids))
            .exclude(forfeit="")
            .order_by()
            .values_list(
                "forfeit",
                Case(When(match__finished_at__lte=settled, then=Value(True)), default=Value(False)),
            )
            .annotate(n=Count("id"))
        )
        found: tuple[Counter[str], Counter[str]] = (Counter(), Counter())
        for kind, is_settled, n in rows:
            found[0 if is_settled else 1][kind] += n
        return found

    def _busy(self, settled: datetime) -> tuple[dict[str, float], dict[str, float], int]:
        """Seconds of the runs read since the last settled one, per host: settled, and
        recent; and the last attempt id of those settled."""
        found: tuple[dict[str, float], dict[str, float]] = ({}, {})
        last_settled_id = 0
        sql = _RUNS_SQL.get(connection.vendor)
        if sql is None:
            return (*found, last_settled_id)
        with connection.cursor() as cursor:
            cursor.execute(
                sql.format(table=connection.ops.quote_name(MatchAttempt._meta.db_table)),
                [
                    connection.ops.adapt_datetimefield_value(settled),
                    self.runs_after_id,
                    AttemptFault.WORKER_LOST.value,
                ],
            )
            rows = cursor.fetchall()
        for host, is_settled, seconds, last_id in rows:
            part = found[0 if is_settled else 1]
            part[host] = part.get(host, 0.0) + float(seconds or 0)
            if is_settled:
                last_settled_id = max(last_settled_id, int(last_id))
        return (*found, last_settled_id)


def _sum(a: dict[str, float], b: dict[str, float]) -> dict[str, float]:
    return {key: a.get(key, 0.0) + b.get(key, 0.0) for key in a.keys() | b.keys()}


#: This process's totals (gunicorn's processes each keep their own).
TOTALS = Totals()


def _matches_by_ladder_and_status(slugs: dict[int, str]) -> dict[tuple[str, str], int]:
    """Every ladder and status, 0 included: a series that appears late breaks rate()."""
    counts = {(slug, status): 0 for slug in slugs.values() for status in MatchStatus.values}
    # Every status but finished (the totals count those), through match_status_created.
    others = [status for status in MatchStatus.values if status != MatchStatus.FINISHED]
    rows = (
        Match.objects.filter(status__in=others)
        .order_by()
        .values_list("ladder_id", "status")
        .annotate(n=Count("id"))
    )
    for ladder, status, n in rows:
        counts[slugs.get(ladder, str(ladder)), status] = n
    return counts


def _running() -> tuple[dict[str, int], dict[str, int]]:
    """Games being played per host, and the processes playing them (distinct runners)."""
    games: Counter[str] = Counter()
    runners: dict[str, set[str]] = {}
    rows = Match.objects.filter(status=MatchStatus.RUNNING).values_list("runner", flat=True)
    for runner in rows.iterator():
        games[_host(runner)] += 1
        runners.setdefault(_host(runner), set()).add(runner)
    return dict(games), {host: len(found) for host, found in runners.items()}


def _workers_up() -> dict[tuple[str, str], int]:
    """The workers that said they are up lately (as matchmaking counts them)."""
    seen = timezone.now() - timedelta(seconds=3 * settings.ARENA_WORKER_PRESENCE_SECONDS)
    rows = WorkerPresence.objects.filter(seen_at__gte=seen).values_list(
        "hostname", "queues", "concurrency"
    )
    return {(name, ",".join(sorted(queues))): concurrency for name, queues, concurrency in rows}


def platform_figures() -> PlatformFigures:
    """Everything GET /metrics reads from the database."""
    slugs = dict(Ladder.objects.values_list("id", "slug"))
    finished, forfeits, busy = TOTALS.read(sorted(slugs))
    matches = _matches_by_ladder_and_status(slugs)
    for ladder_id, n in finished.items():
        matches[slugs[ladder_id], MatchStatus.FINISHED] = n
    games_running, processes_busy = _running()
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
        matches=matches,
        forfeits=dict(forfeits),
        busy_seconds=dict(busy),
        games_running=games_running,
        processes_busy=processes_busy,
        worker_processes=_workers_up(),
        ratings_pending=int(unrated["n"]),
        oldest_unrated_finished_at=unrated["oldest"],
        preflights_pending=Qualification.objects.filter(status=QualificationStatus.PENDING).count(),
        versions_unvalidated=versions,
        beat_last_run_at=PeriodicTask.objects.filter(enabled=True).aggregate(
            last=Max("last_run_at")
        )["last"],
    )
