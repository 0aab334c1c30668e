"""A match's attempts: started, recorded, failed (and retried), cancelled, recovered from a
lost worker, kept alive by heartbeats. The moves between statuses are MATCH_TRANSITIONS."""

from __future__ import annotations

import functools
import gzip
import logging
import operator
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import DatabaseError, transaction
from django.db.models import Case, Q, Value, When
from django.utils import timezone

from arena.errors import ArenaError
from arena.live.services import live_drop
from arena.runners import current_runner, runner_is_dead
from arena.transitions import check_move

from ..models import (
    AttemptFault,
    AttemptOutcome,
    Match,
    MatchAttempt,
    MatchStatus,
    Participant,
    match_feed,
)
from ..outcomes import SeatOutcome

log = logging.getLogger(__name__)

MATCH_TRANSITIONS: Mapping[MatchStatus, frozenset[MatchStatus]] = {
    MatchStatus.QUEUED: frozenset({MatchStatus.RUNNING, MatchStatus.CANCELLED}),
    # RUNNING -> QUEUED: an attempt failed for infrastructure reasons; try again.
    MatchStatus.RUNNING: frozenset(
        {
            MatchStatus.FINISHED,
            MatchStatus.QUEUED,
            MatchStatus.FAILED_INFRA,
            MatchStatus.CANCELLED,
        }
    ),
    MatchStatus.FINISHED: frozenset(),
    MatchStatus.FAILED_INFRA: frozenset(),
    MatchStatus.CANCELLED: frozenset(),
}


class MatchTransitionError(ArenaError):
    code = "match_transition"


class MatchResultError(ArenaError):
    code = "match_result"


def _lock(match_id: int) -> Match:
    return Match.objects.select_for_update().get(pk=match_id)


def _move(locked: Match, to: MatchStatus) -> None:
    """Check and set the move of a locked match; the caller saves in its transaction."""
    current = MatchStatus(locked.status)
    check_move(
        MATCH_TRANSITIONS, current, to, what=f"match {locked.pk}", error=MatchTransitionError
    )
    locked.status = to


def match_start(*, match: Match, runner: str | None = None) -> Match:
    """A worker (``runner``, default this process) takes a queued match: one more attempt."""
    with transaction.atomic():
        locked = _lock(match.pk)
        _move(locked, MatchStatus.RUNNING)
        locked.attempts += 1
        locked.started_at = locked.heartbeat_at = timezone.now()
        locked.runner = current_runner() if runner is None else runner
        locked.retry_at = None
        locked.save(
            update_fields=["status", "attempts", "started_at", "heartbeat_at", "runner", "retry_at"]
        )
        _begin_attempts([locked])
    return locked


def _begin_attempts(started: Sequence[Match]) -> None:
    """The attempt rows of matches just started, in the caller's transaction."""
    MatchAttempt.objects.bulk_create(
        MatchAttempt(
            match_id=match.pk,
            number=match.attempts,
            runner=match.runner,
            started_at=match.started_at or timezone.now(),
        )
        for match in started
    )


def _end_attempt(
    locked: Match, outcome: AttemptOutcome, *, fault: AttemptFault | str = "", error: str = ""
) -> None:
    """Record how the current attempt of ``locked`` ended, in the caller's transaction.

    An attempt begun before attempts were recorded has no row: it gets one now.
    """
    if not locked.attempts:
        return
    now = timezone.now()
    values = {"outcome": outcome, "ended_at": now, "fault": fault, "error": error}
    ended = MatchAttempt.objects.filter(match_id=locked.pk, number=locked.attempts).update(**values)
    if not ended:
        MatchAttempt.objects.create(
            match_id=locked.pk,
            number=locked.attempts,
            runner=locked.runner,
            started_at=locked.started_at or now,
            **values,
        )


def match_start_series(*, match: Match, runner: str | None = None) -> list[Match]:
    """A worker takes queued ``match`` and every other queued game of its series.

    Each game gets an attempt of its own (``attempts + 1``, running, this
    ``runner``, started now: ARENA_MATCH_STALE_SECONDS counts from the
    series' start, so a whole series must end within it); returned in play
    order. The series' rows are locked in id
    order, so two workers taking games of one series never deadlock, and
    the second finds ``match`` running (MatchTransitionError). A match
    outside a series is taken alone (:func:`match_start`).
    """
    if match.series_id is None:
        return [match_start(match=match, runner=runner)]
    runner = current_runner() if runner is None else runner
    with transaction.atomic():
        rows = list(
            Match.objects.select_for_update().filter(series_id=match.series_id).order_by("pk")
        )
        taken = [row for row in rows if row.pk == match.pk or row.status == MatchStatus.QUEUED]
        now = timezone.now()
        for row in taken:
            _move(row, MatchStatus.RUNNING)
            row.attempts += 1
            row.started_at = row.heartbeat_at = now
            row.runner = runner
            row.retry_at = None
        Match.objects.bulk_update(
            taken, ["status", "attempts", "started_at", "heartbeat_at", "runner", "retry_at"]
        )
        _begin_attempts(taken)
    return sorted(taken, key=lambda row: row.series_game or 0)


def _check_attempt(locked: Match, attempt: int | None) -> None:
    """A late result of an attempt given up on (its worker seemed lost) must not count."""
    if attempt is not None and (locked.status != MatchStatus.RUNNING or locked.attempts != attempt):
        raise MatchTransitionError(
            f"match {locked.pk}: attempt {attempt} was given up on (now {locked.status}, "
            f"attempt {locked.attempts})."
        )


def log_storage_name(match_id: int) -> str:
    # Folders of 10,000 matches keep directory listings short on file systems.
    return f"matches/logs/{match_id // 10_000:06d}/{match_id}.json.gz"


def _check_outcomes(match: Match, outcomes: Sequence[SeatOutcome]) -> None:
    seats = sorted(o.seat for o in outcomes)
    expected = list(range(match.seats))  # one participant per seat
    if seats != expected:
        raise MatchResultError(f"match {match.pk}: results for seats {seats}, expected {expected}.")
    for outcome in outcomes:
        if not 1 <= outcome.rank <= len(expected):
            raise MatchResultError(
                f"match {match.pk}: seat {outcome.seat} has rank {outcome.rank}, "
                f"expected 1-{len(expected)}."
            )


def match_finish(
    *,
    match: Match,
    outcomes: Sequence[SeatOutcome],
    game_log: bytes,
    attempt: int | None = None,
    drop_live_feed: bool = True,
) -> Match:
    """Record a played match: results, compressed log (its caller queues the rating).

    ``attempt``: the attempt that played it; refused if the match moved on since.
    ``drop_live_feed``: its live feed holds events to drop once the log is stored;
    False when the game published none (most games of a series: a delete saved).
    """
    _check_outcomes(match, outcomes)
    name = log_storage_name(match.pk)
    # mtime=0: the same log always compresses to the same bytes.
    compressed = gzip.compress(game_log, mtime=0)
    stored_name: str | None = None
    saving = False
    try:
        with transaction.atomic():
            locked = _lock(match.pk)
            _check_attempt(locked, attempt)
            _move(locked, MatchStatus.FINISHED)
            # A previous attempt may have stored a log before its transaction failed.
            if locked.attempts > 1 and default_storage.exists(name):
                default_storage.delete(name)
            saving = True
            stored_name = default_storage.save(name, ContentFile(compressed))

            # Every seat in one statement (a round trip fewer than reading them first).
            def by_seat(value: Callable[[SeatOutcome], object]) -> Case:
                return Case(*(When(seat=o.seat, then=Value(value(o))) for o in outcomes))

            Participant.objects.filter(match=locked).update(
                money=by_seat(lambda o: o.money),
                rank=by_seat(lambda o: o.rank),
                forfeit=by_seat(lambda o: o.forfeit or ""),
            )
            locked.finished_at = timezone.now()
            locked.log = stored_name
            locked.log_size = len(compressed)
            locked.error = ""
            locked.save(update_fields=["status", "finished_at", "log", "log_size", "error"])
            _end_attempt(locked, AttemptOutcome.FINISHED)
    except BaseException:
        # Stored, or half written by a save that failed (a full disk leaves an empty
        # file): the row does not name it, so nothing would ever delete it.
        if saving:
            _delete_quietly(stored_name or name)
        raise
    if drop_live_feed:
        transaction.on_commit(lambda: _drop_live_feed(locked.pk))
    return locked


def _drop_live_feed(match_id: int) -> None:
    """The stored log replaces the events published while the match was played."""
    try:
        live_drop(feed=match_feed(match_id))
    except DatabaseError as error:
        log.warning("match %s: live feed not dropped (the sweep will): %s", match_id, error)


def _delete_quietly(name: str) -> None:
    try:
        if default_storage.exists(name):
            default_storage.delete(name)
    except OSError as error:
        # The failure being raised matters more; the next attempt deletes it.
        log.warning("could not delete the orphan log %s: %s", name, error)


def match_fail(
    *,
    match: Match,
    error: str,
    attempt: int | None = None,
    fault: AttemptFault = AttemptFault.OTHER,
) -> Match:
    """An attempt failed for a reason that is not a bot's fault (on ``fault``): retry, or give up.

    Nothing of the game is kept and no rating changes; the attempt's row keeps
    ``fault`` and ``error``. The match waits for its retry
    (:func:`matches_retry_waiting` publishes it once ``fault``'s resource
    answers, at the latest after :func:`_retry_delay`); after
    ARENA_MATCH_MAX_ATTEMPTS it is failed_infra.
    """
    with transaction.atomic():
        locked = _lock(match.pk)
        _check_attempt(locked, attempt)
        retry = locked.attempts < settings.ARENA_MATCH_MAX_ATTEMPTS
        _move(locked, MatchStatus.QUEUED if retry else MatchStatus.FAILED_INFRA)
        locked.error = error
        now = timezone.now()
        locked.queued_at = now
        locked.retry_at = now + timedelta(seconds=_retry_delay(locked.attempts)) if retry else None
        locked.save(update_fields=["status", "error", "queued_at", "retry_at"])
        _end_attempt(locked, AttemptOutcome.FAILED, fault=fault, error=error)
    log.warning("match %s attempt %s failed (%s): %s", locked.pk, locked.attempts, fault, error)
    return locked


def match_cancel(*, match: Match) -> Match:
    with transaction.atomic():
        locked = _lock(match.pk)
        was_running = locked.status == MatchStatus.RUNNING
        _move(locked, MatchStatus.CANCELLED)
        locked.retry_at = None
        locked.save(update_fields=["status", "retry_at"])
        if was_running:
            _end_attempt(locked, AttemptOutcome.CANCELLED)
    return locked


def _lost_because(match: Match, now: datetime) -> str | None:
    """Why the running ``match``'s worker is presumed lost, or None while it seems alive."""
    if match.runner and runner_is_dead(match.runner):
        return f"its worker {match.runner} is gone (killed or restarted)"
    lease = timedelta(seconds=settings.ARENA_MATCH_LEASE_SECONDS)
    last_sign = match.heartbeat_at or match.started_at
    if last_sign is None or last_sign < now - lease:
        return f"no heartbeat from its worker {match.runner or '?'} for {lease}"
    stale = timedelta(seconds=settings.ARENA_MATCH_STALE_SECONDS)
    if match.started_at is not None and match.started_at < now - stale:
        return f"no result within {stale} (ARENA_MATCH_STALE_SECONDS)"
    return None


def match_recover(*, match: Match) -> Match | None:
    """Fail the running attempt of ``match`` if its worker is lost (it is queued again).

    Returns the match when it was recovered, None when it was not lost.
    """
    reason = _lost_because(match, timezone.now())
    if reason is None:
        return None
    try:
        return match_fail(
            match=match,
            error=f"attempt lost: {reason}",
            attempt=match.attempts,
            fault=AttemptFault.WORKER_LOST,
        )
    except MatchTransitionError:
        return None  # finished or recovered meanwhile


def match_heartbeat(*, match_id: int, attempt: int) -> bool:
    """The runner of ``attempt`` is alive; False once the match moved on without it."""
    return matches_heartbeat(attempts={match_id: attempt}) > 0


def matches_heartbeat(*, attempts: Mapping[int, int]) -> int:
    """The runner of these attempts (match id -> attempt) is alive, in one statement.

    Returns how many are still running in those attempts (0: all moved on).
    """
    if not attempts:
        return 0
    ours = functools.reduce(
        operator.or_, (Q(pk=match_id, attempts=n) for match_id, n in attempts.items())
    )
    return Match.objects.filter(ours, status=MatchStatus.RUNNING).update(
        heartbeat_at=timezone.now()
    )


def _retry_delay(attempt: int) -> float:
    """The longest wait before attempt ``attempt + 1``: base, x4 each time, capped.

    A retry comes sooner when the resource it failed on answers
    (:func:`matches_retry_waiting`); this backoff is for a probe that keeps
    failing, so a fault of an hour still voids nothing.
    """
    base = settings.ARENA_MATCH_RETRY_BASE_SECONDS
    return float(min(settings.ARENA_MATCH_RETRY_MAX_SECONDS, base * 4 ** (attempt - 1)))
