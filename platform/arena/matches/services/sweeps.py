"""The sweeps beat runs over matches: lost messages, lost workers, retries due. Each
returns what it made due; its task publishes it."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from ..models import (
    AttemptFault,
    Match,
    MatchAttempt,
    MatchStatus,
)
from ..retries import resource_answers
from .attempts import match_recover

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Requeued:
    """Matches a write made due again, and the ids of the run messages that play them
    (one per run: a series' games go with one message), for the caller to publish."""

    matches: list[int]
    runs: list[int]


NOTHING_DUE = Requeued(matches=[], runs=[])


def matches_republish_queued(*, limit: int = 500) -> list[int]:
    """Matches queued long past their due time, whose ``match_run`` to publish again
    (beat sweep); returns their ids.

    Their message was lost (a broker without persistence, a crash or an outage
    between commit and publish) and they would hold their ladder's queue and
    their bots' caps forever. A duplicate delivery is harmless (``match_run``
    checks the status); the clock restarts, so a long queue gets one more
    message per ARENA_MATCH_REPUBLISH_SECONDS, not one per sweep.
    """
    now = timezone.now()
    cutoff = now - timedelta(seconds=settings.ARENA_MATCH_REPUBLISH_SECONDS)
    with transaction.atomic():
        # Not a match waiting for its retry: matches_retry_waiting publishes those.
        ids = list(
            Match.objects.select_for_update(skip_locked=True)
            .filter(status=MatchStatus.QUEUED, queued_at__lt=cutoff, retry_at__isnull=True)
            .order_by("queued_at")
            .values_list("pk", flat=True)[:limit]
        )
        Match.objects.filter(pk__in=ids).update(queued_at=now)
    if ids:
        log.warning("re-publishing %s queued matches whose message was lost: %s", len(ids), ids)
    return ids


def matches_requeue_stale() -> Requeued:
    """Running matches whose worker died, fell silent or overran: fail the attempt (beat sweep).

    Returns them, with the runs of those whose retry is due at once (within the
    cap on retries in flight: :func:`matches_retry_waiting`).
    """
    running = Match.objects.filter(status=MatchStatus.RUNNING).only(
        "pk", "status", "attempts", "runner", "started_at", "heartbeat_at"
    )
    recovered = [match.pk for match in running if match_recover(match=match) is not None]
    due = matches_retry_waiting(match_ids=recovered) if recovered else NOTHING_DUE
    return Requeued(matches=recovered, runs=due.runs)


def _retries_in_flight() -> int:
    """Runs (a series counts once) of retries published and not played yet, or playing."""
    return (
        Match.objects.filter(
            Q(status=MatchStatus.QUEUED, attempts__gte=1, retry_at__isnull=True)
            | Q(status=MatchStatus.RUNNING, attempts__gte=2)
        )
        .values(run=Coalesce("series_id", "pk"))
        .distinct()
        .count()
    )


#: The advisory lock key of the retry sweep (any constant unique to it).
RETRY_SWEEP_LOCK = 0x4172656E61_01


def _serialise_retry_sweeps() -> None:
    """One retry sweep at a time counts the retries in flight (PostgreSQL; SQLite
    serialises writers anyway), so two cannot both fill the cap."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [RETRY_SWEEP_LOCK])


def matches_retry_waiting(*, match_ids: Sequence[int] | None = None) -> Requeued:
    """The retries of failed attempts whose resource answers again, due now (beat sweep).

    A match waits for its retry (``retry_at`` set) after a failure of ours.
    Each resource the waiting matches failed on is probed once
    (:mod:`arena.matches.retries`); a match is published when its probe
    passes, or at ``retry_at`` in any case (a slow backoff, for a probe that
    keeps failing or a fault of unknown cause). At most
    ARENA_MATCH_RETRIES_IN_FLIGHT runs of retries are published and not yet
    played, or playing, at once: a flapping resource cannot fill the workers
    with retries. A series is one run (its first waiting game's message takes
    the others). ``match_ids``: only those (a worker's own failures, retried
    at once if their resource already answers). Returns the matches made due
    and the runs to publish.
    """
    now = timezone.now()
    waiting = Match.objects.filter(status=MatchStatus.QUEUED, retry_at__isnull=False)
    if match_ids is not None:
        waiting = waiting.filter(pk__in=match_ids)
    last_fault = MatchAttempt.objects.filter(match=OuterRef("pk"), number=OuterRef("attempts"))
    rows = list(
        waiting.annotate(fault=Subquery(last_fault.values("fault")[:1]))
        .order_by("retry_at", "pk")
        .values_list("pk", "series_id", "retry_at", "fault")
    )
    if not rows:
        return NOTHING_DUE
    answers: dict[str, bool] = {}
    due: dict[int, int] = {}  # run (series or match) -> the match whose message plays it
    for pk, series_id, retry_at, fault in rows:
        run = series_id or pk
        if run in due:
            continue
        if retry_at is not None and retry_at > now:
            fault = fault or AttemptFault.OTHER
            if fault not in answers:
                answers[fault] = resource_answers(AttemptFault(fault))
            if not answers[fault]:
                continue
        due[run] = pk
    if not due:
        return NOTHING_DUE
    with transaction.atomic():
        _serialise_retry_sweeps()
        room = max(0, settings.ARENA_MATCH_RETRIES_IN_FLIGHT - _retries_in_flight())
        runs = list(due)[:room]
        # Every waiting game of those runs: the run's message plays them all.
        published = list(
            Match.objects.select_for_update(skip_locked=True)
            .filter(
                Q(pk__in=[due[run] for run in runs]) | Q(series_id__in=runs),
                status=MatchStatus.QUEUED,
                retry_at__isnull=False,
            )
            .values_list("pk", flat=True)
        )
        Match.objects.filter(pk__in=published).update(retry_at=None, queued_at=now)
    if published:
        log.warning("retrying %s matches whose failing resource answers again", len(published))
    held = len(due) - len(runs)
    if held:
        log.info("%s retries wait: ARENA_MATCH_RETRIES_IN_FLIGHT are in flight", held)
    return Requeued(matches=published, runs=[due[run] for run in runs if due[run] in published])
