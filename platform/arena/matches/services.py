"""Writes on matches: creating them and moving them through their statuses.

Nothing here publishes a message: the tasks that play matches and rate them are
above this app (arena.ladders.tasks). A write that makes a match due returns it
(or its id) and its caller publishes it; :func:`runs_to_publish` names the match
whose message plays a run (a series is played by its first game's message).
"""

from __future__ import annotations

import functools
import gzip
import logging
import operator
import secrets
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import DatabaseError, connection, transaction
from django.db.models import Case, OuterRef, Q, Subquery, Value, When
from django.db.models.functions import Coalesce
from django.utils import timezone

import vegas_engine
from arena.bots.models import BotVersion, VersionStatus
from arena.errors import ArenaError
from arena.live.services import live_drop
from arena.runners import current_runner, runner_is_dead
from arena.transitions import check_move
from bots_sdk import referee

from .games import MatchGame
from .models import (
    AttemptFault,
    AttemptOutcome,
    Match,
    MatchAttempt,
    MatchStatus,
    Participant,
    match_feed,
)
from .outcomes import SeatOutcome
from .retries import fault_of, resource_answers

log = logging.getLogger(__name__)

MAX_SEED = 2**63 - 1
#: Who plays a match: active versions; with ``allow_retired`` (a league's versions,
#: frozen while active, so validated) also those a newer upload has retired since.
PLAYABLE = frozenset({VersionStatus.ACTIVE})
PLAYABLE_FROZEN = frozenset({VersionStatus.ACTIVE, VersionStatus.RETIRED})

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


class MatchSetupError(ArenaError):
    code = "match_setup"


class MatchTransitionError(ArenaError):
    code = "match_transition"


class MatchResultError(ArenaError):
    code = "match_result"


def _checked_seed(
    game: MatchGame, versions: Sequence[BotVersion], seed: int | None, allow_retired: bool
) -> int:
    """Check that ``versions`` may play a match of ``game``; returns the seed (drawn if None)."""
    if len(versions) != game.seats:
        raise MatchSetupError(f"this game plays {game.seats} seats, got {len(versions)} bots.")
    playable = PLAYABLE_FROZEN if allow_retired else PLAYABLE
    unplayable = [f"{v} ({v.status})" for v in versions if v.status not in playable]
    if unplayable:
        allowed = " or ".join(sorted(playable))
        raise MatchSetupError(
            f"only {allowed} versions play; cannot play: {', '.join(unplayable)}."
        )
    if seed is None:
        seed = secrets.randbelow(MAX_SEED + 1)
    try:
        vegas_engine.describe(game.rules, game.seats, game.options)
        vegas_engine.check_seed(seed)
    except vegas_engine.InvalidDescriptionError as error:
        raise MatchSetupError(f"the engine cannot play this match: {error}") from None
    return seed


def _insert(
    *,
    ladder_id: int,
    game: MatchGame,
    versions: Sequence[BotVersion],
    seed: int,
    rated: bool,
    deal: Match | None = None,
    deal_game: int | None = None,
) -> Match:
    """The match row and its seats, queued (its run's message is the caller's to publish)."""
    match = Match.objects.create(
        ladder_id=ladder_id,
        **game.fields(),
        seed=seed,
        rated=rated,
        deal=deal,
        deal_game=deal_game,
    )
    Participant.objects.bulk_create(
        Participant(match=match, seat=seat, bot_version=version)
        for seat, version in enumerate(versions)
    )
    return match


def match_create(
    *,
    ladder_id: int,
    game: MatchGame,
    versions: Sequence[BotVersion],
    seed: int | None = None,
    rated: bool = True,
    allow_retired: bool = False,
) -> Match:
    """A queued match of ``game``, counted on ladder ``ladder_id``, ``versions`` at seats 0...

    Its caller publishes its run (:func:`runs_to_publish`).

    ``allow_retired``: a league plays the versions it froze (active then, so
    validated) even after their authors upload newer ones, which retires them.
    Only for such versions: a version retired while pending was never validated.
    """
    seed = _checked_seed(game, versions, seed, allow_retired)
    with transaction.atomic():
        return _insert(ladder_id=ladder_id, game=game, versions=versions, seed=seed, rated=rated)


def match_create_deal(
    *,
    ladder_id: int,
    game: MatchGame,
    versions: Sequence[BotVersion],
    seed: int | None = None,
    rated: bool = True,
    allow_retired: bool = False,
) -> list[Match]:
    """A duplicate deal: one queued match per seat rotation, all with one seed.

    Game k (from 1) seats ``versions[i]`` at seat (i + k - 1) mod seats
    (``bots_sdk.referee.rotations``), so every version plays the deal's dice
    from every seat once. The games are created together (never half a deal);
    each points at the first (``deal``) with its number (``deal_game``).
    ``allow_retired`` as for :func:`match_create`.
    """
    seed = _checked_seed(game, versions, seed, allow_retired)
    with transaction.atomic():
        return _insert_deal(
            ladder_id=ladder_id, game=game, versions=versions, seed=seed, rated=rated
        )


def _insert_deal(
    *,
    ladder_id: int,
    game: MatchGame,
    versions: Sequence[BotVersion],
    seed: int,
    rated: bool,
) -> list[Match]:
    """The games of one deal (see :func:`match_create_deal`), in the caller's transaction."""
    seatings = list(referee.rotations(len(versions), len(versions)))
    games: list[Match] = []
    for number, seating in enumerate(seatings, start=1):
        games.append(
            _insert(
                ladder_id=ladder_id,
                game=game,
                versions=[versions[i] for i in seating],
                seed=seed,
                rated=rated,
                deal=games[0] if games else None,
                deal_game=number if games else None,
            )
        )
        if number == 1:
            # Game 1 refers to itself, which only its own id allows: set after the insert.
            first = games[0]
            Match.objects.filter(pk=first.pk).update(deal=first, deal_game=1)
            first.deal, first.deal_game = first, 1
    return games


@dataclass(frozen=True)
class Play:
    """One game of a series: its versions in seat order and its seed (None: drawn)."""

    versions: Sequence[BotVersion]
    seed: int | None = None


def match_create_plays(
    *,
    ladder_id: int,
    game: MatchGame,
    plays: Sequence[Play],
    rated: bool = True,
    allow_retired: bool = False,
) -> list[Match]:
    """``plays`` of the same bots as one series, played in the given order by one worker run.

    Each play is a match of its own (seats, seed, log, forfeits, rating); the
    series is played at one table, one process per bot (``play.MatchTable``),
    so a bot starts once instead of once per game. Every play seats the same
    versions (in any order: a table's players are fixed); games sharing a
    seed are safe in any order, as the referee gives a bot a fresh process
    for a seed its process has played. One run message for the whole series
    (its first match); created together, never half a series. A single play
    is a plain match. ``allow_retired`` as for :func:`match_create`. Returns
    the matches in play order.
    """
    if not plays:
        raise MatchSetupError("a series has at least one game, got none.")
    players = sorted(v.pk for v in plays[0].versions)
    for play in plays[1:]:
        if sorted(v.pk for v in play.versions) != players:
            raise MatchSetupError(
                "the games of a series are played by the same bots: "
                f"{', '.join(map(str, plays[0].versions))} then "
                f"{', '.join(map(str, play.versions))}."
            )
    seeds = [_checked_seed(game, play.versions, play.seed, allow_retired) for play in plays]
    with transaction.atomic():
        games = [
            _insert(
                ladder_id=ladder_id,
                game=game,
                versions=play.versions,
                seed=seed,
                rated=rated,
            )
            for play, seed in zip(plays, seeds, strict=True)
        ]
        if len(games) > 1:
            _number_series(games)
    return games


def match_create_series(
    *,
    ladder_id: int,
    game: MatchGame,
    versions: Sequence[BotVersion],
    units: int,
    duplicate_deals: bool = False,
    rated: bool = True,
    allow_retired: bool = False,
) -> list[Match]:
    """A ladder's pick: ``units`` games (or duplicate deals) of ``versions`` as one series.

    Single games (:func:`match_create_plays`): game k seats ``versions``
    rotated by k - 1, each game its own seed; one game is a plain match.
    Deals (``duplicate_deals``) are played lane by lane: game 1 of every
    deal, then game 2 of every deal, and so on, so each lane's processes see
    every seed once (a fresh process per lane, not per game). Returns the
    matches in play order. ``allow_retired`` as for :func:`match_create`.
    """
    if units < 1:
        raise MatchSetupError(f"a series has at least one game, got {units}.")
    if not duplicate_deals:
        plays = [
            Play([versions[i] for i in seating])
            for seating in referee.rotations(len(versions), units)
        ]
        return match_create_plays(
            ladder_id=ladder_id, game=game, plays=plays, rated=rated, allow_retired=allow_retired
        )
    seeds = [_checked_seed(game, versions, None, allow_retired) for _ in range(units)]
    with transaction.atomic():
        deals = [
            _insert_deal(
                ladder_id=ladder_id,
                game=game,
                versions=versions,
                seed=seed,
                rated=rated,
            )
            for seed in seeds
        ]
        # Lane by lane: deal game 1 of each deal, then deal game 2, ...
        games = [deal[lane] for lane in range(len(versions)) for deal in deals]
        _number_series(games)
    return games


def _number_series(games: Sequence[Match]) -> None:
    """Make ``games`` (inserted together, the first with the smallest id) one series in
    this order, in the caller's transaction: the first game's message plays them all."""
    first = games[0]
    # One statement: game 1 refers to itself, which only its own id allows.
    numbers = {match.pk: number for number, match in enumerate(games, start=1)}
    Match.objects.filter(pk__in=numbers).update(
        series=first,
        series_game=Case(*(When(pk=pk, then=Value(n)) for pk, n in numbers.items())),
    )
    for match in games:
        match.series, match.series_game = first, numbers[match.pk]


@dataclass(frozen=True)
class Requeued:
    """Matches a write made due again, and the ids of the run messages that play them
    (one per run: a series' games go with one message), for the caller to publish."""

    matches: list[int]
    runs: list[int]


NOTHING_DUE = Requeued(matches=[], runs=[])


def runs_to_publish(matches: Sequence[Match]) -> list[int]:
    """The ids whose run message plays ``matches`` (just created): a match outside a
    series, or the first game of a series (its message takes the others)."""
    return [m.pk for m in matches if m.series_id is None or m.series_id == m.pk]


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


@contextmanager
def _heartbeat(matches: Sequence[Match]) -> Iterator[None]:
    """Beat for the current attempt of every match from a thread (the games hold this
    one) while the block runs: a series' games all count as alive while any plays."""
    stop = threading.Event()
    interval = settings.ARENA_MATCH_LEASE_SECONDS / 4
    attempts = {match.pk: match.attempts for match in matches}
    name = ",".join(str(match_id) for match_id in attempts)

    def beat() -> None:
        try:
            while not stop.wait(interval):
                try:
                    if not matches_heartbeat(attempts=attempts):
                        return
                except DatabaseError as error:
                    log.warning("matches %s: heartbeat failed: %s", name, error)
        finally:
            connection.close()  # this thread's own connection

    thread = threading.Thread(target=beat, name=f"match-{name}-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def _retry_delay(attempt: int) -> float:
    """The longest wait before attempt ``attempt + 1``: base, x4 each time, capped.

    A retry comes sooner when the resource it failed on answers
    (:func:`matches_retry_waiting`); this backoff is for a probe that keeps
    failing, so a fault of an hour still voids nothing.
    """
    base = settings.ARENA_MATCH_RETRY_BASE_SECONDS
    return float(min(settings.ARENA_MATCH_RETRY_MAX_SECONDS, base * 4 ** (attempt - 1)))


class AttemptNotRecorded(DatabaseError):
    """An attempt failed and so did recording it: the task retries with ``attempt``
    (and ``error``, why it failed, for the attempt's row)."""

    def __init__(self, match_id: int, attempt: int, error: str = "") -> None:
        self.match_id, self.attempt, self.error = match_id, attempt, error
        super().__init__(f"match {match_id}: the failure of attempt {attempt} was not recorded")


@dataclass(frozen=True)
class MatchRun:
    """How a run message ended: its match as it ended, and the runs whose retry is due
    at once (the caller publishes them)."""

    match: Match
    retries: list[int]


def _nothing(match: Match) -> None:
    pass


def match_run(
    *,
    match: Match,
    on_finished: Callable[[Match], None] = _nothing,
    abandoned_attempt: int | None = None,
    abandoned_error: str = "",
) -> MatchRun:
    """Play a queued match to the end and record it (a task may deliver it more than once).

    A match of a series takes every queued game of its series with it
    (:func:`match_start_series`) and plays them in order at one table, one
    process per bot, recording each game as it ends. A finished, cancelled or
    failed match is left alone; a running one is left to its worker unless
    that worker is lost, in which case the attempt fails and the match is
    queued again. The seated versions play even if retired since (they were
    active when it was made; leagues freeze them). A failure of ours fails
    the attempt of every game not recorded yet: those are retried and
    nothing counts against a bot; the games already recorded stay. If
    recording that fails too, AttemptNotRecorded names an attempt; the task
    passes it back as ``abandoned_attempt`` (with ``abandoned_error``) so the
    retry fails it at once instead of waiting out ARENA_MATCH_LEASE_SECONDS.
    A failed game is retried at once if the resource it failed on answers
    already (in ``retries``), else by the retry sweep
    (:func:`matches_retry_waiting`); a message for a match still waiting for
    its retry is a stale one and is dropped. ``on_finished`` is called with
    each game once its result is committed (the caller queues its rating).
    """
    current = Match.objects.get(pk=match.pk)
    if current.status == MatchStatus.RUNNING:
        if abandoned_attempt is not None and current.attempts == abandoned_attempt:
            # Its worker gave up on this attempt but could not record it (the database
            # was down): fail it now rather than wait out the lease.
            why = abandoned_error or "unknown"
            try:
                failed = match_fail(
                    match=current,
                    error=f"{why}; then recording the failure failed (the database)",
                    attempt=current.attempts,
                    fault=AttemptFault.DATABASE,
                )
            except MatchTransitionError:
                return MatchRun(Match.objects.get(pk=current.pk), retries=[])
            return MatchRun(failed, matches_retry_waiting(match_ids=[failed.pk]).runs)
        recovered = match_recover(match=current)
        if recovered is None:
            return MatchRun(current, retries=[])
        return MatchRun(recovered, matches_retry_waiting(match_ids=[recovered.pk]).runs)
    if current.status != MatchStatus.QUEUED or current.retry_at is not None:
        return MatchRun(current, retries=[])
    try:
        started = match_start_series(match=current)
    except MatchTransitionError:
        return MatchRun(current, retries=[])  # another worker took it
    retries = _play(started, on_finished)
    return MatchRun(Match.objects.get(pk=current.pk), retries.runs)


def _play(started: Sequence[Match], on_finished: Callable[[Match], None]) -> Requeued:
    """Play the started games in order at one table and record each; see :func:`match_run`."""
    from .play import MatchTable

    waiting = list(started)
    setting_up = time.perf_counter()
    try:
        with _heartbeat(started), MatchTable(started) as table:
            # The bots' files and the table: counted in the first game's start.
            setup_s = time.perf_counter() - setting_up
            while waiting:
                game = waiting[0]
                played = table.play(game)
                began = time.perf_counter()
                try:
                    recorded = match_finish(
                        match=game,
                        outcomes=played.seats,
                        game_log=played.game_log,
                        attempt=game.attempts,
                        drop_live_feed=played.live_published,
                    )
                except MatchTransitionError:
                    log.warning(
                        "match %s: attempt %s was given up on before it ended",
                        game.pk,
                        game.attempts,
                    )
                else:
                    on_finished(recorded)
                waiting.pop(0)
                # Where one game's time goes (bench/platform.py reads it): the table and
                # the bots' start-up, the game, recording it.
                log.info(
                    "match %s timing: start %.4f s, play %.4f s, store %.4f s",
                    game.pk,
                    setup_s + played.start_s,
                    played.play_s - played.start_s,
                    time.perf_counter() - began,
                )
                setup_s = 0.0
    except Exception as error:
        # Ours by construction: bot faults are results, never exceptions.
        if not waiting:
            # Every game was recorded: only ending the table failed (its processes are
            # killed whatever happens), which changes no result.
            log.exception("matches %s: ending the table failed", [g.pk for g in started])
            return NOTHING_DUE
        log.exception("matches %s: attempts failed", [game.pk for game in waiting])
        return _fail_all(waiting, f"{type(error).__name__}: {error}", fault_of(error))
    return NOTHING_DUE


def _fail_all(games: Sequence[Match], error: str, fault: AttemptFault) -> Requeued:
    """Fail the attempt of each game (not recorded yet); those whose resource answers
    already are due again at once (the others wait for the retry sweep)."""
    failed = []
    for game in games:
        try:
            match_fail(match=game, error=error, attempt=game.attempts, fault=fault)
        except MatchTransitionError:
            continue
        except DatabaseError as failure:
            # The lease recovers the others once the heartbeat stops.
            raise AttemptNotRecorded(game.pk, game.attempts, error) from failure
        failed.append(game.pk)
    return matches_retry_waiting(match_ids=failed) if failed else NOTHING_DUE
