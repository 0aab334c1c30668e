"""Writes on matches: creating them and moving them through their statuses."""

from __future__ import annotations

import gzip
import logging
import secrets
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import DatabaseError, connection, transaction
from django.utils import timezone
from django.utils.module_loading import import_string

import vegas_engine
from arena.bots.models import BotVersion, VersionStatus
from arena.errors import ArenaError
from arena.live.services import live_drop
from arena.queueing import publish_on_commit
from arena.transitions import check_move
from bots_sdk import referee

from .games import MatchGame
from .models import ForfeitCause, Match, MatchStatus, Participant, match_feed
from .runners import current_runner, runner_is_dead

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


@dataclass(frozen=True)
class SeatOutcome:
    """How one seat ended, as reported by the referee."""

    seat: int
    money: int
    rank: int
    forfeit: ForfeitCause | None = None


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
    """The match row and its seats, queued to run once the caller's transaction commits."""
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
    _queue_run(match)
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
) -> list[Match]:
    """A duplicate deal: one queued match per seat rotation, all with one seed.

    Game k (from 1) seats ``versions[i]`` at seat (i + k - 1) mod seats
    (``bots_sdk.referee.rotations``), so every version plays the deal's dice
    from every seat once. The games are created together (never half a deal);
    each points at the first (``deal``) with its number (``deal_game``).
    """
    seed = _checked_seed(game, versions, seed, allow_retired=False)
    seatings = list(referee.rotations(len(versions), len(versions)))
    games: list[Match] = []
    with transaction.atomic():
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


def _queue_run(match: Match, *, countdown: float = 0) -> None:
    """Publish ``match_run`` after the commit; the caller set ``queued_at`` to when it is due."""
    from .tasks import match_run

    publish_on_commit(match_run, match.pk, countdown=countdown)


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
        locked.save(update_fields=["status", "attempts", "started_at", "heartbeat_at", "runner"])
    return locked


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
    expected = list(range(match.participants.count()))
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
) -> Match:
    """Record a played match: results, compressed log; rating is queued after commit.

    ``attempt``: the attempt that played it; refused if the match moved on since.
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
            if default_storage.exists(name):
                default_storage.delete(name)
            saving = True
            stored_name = default_storage.save(name, ContentFile(compressed))
            by_seat = {o.seat: o for o in outcomes}
            participants = list(locked.participants.all())
            for participant in participants:
                outcome = by_seat[participant.seat]
                participant.money = outcome.money
                participant.rank = outcome.rank
                participant.forfeit = outcome.forfeit or ""
            Participant.objects.bulk_update(participants, ["money", "rank", "forfeit"])
            locked.finished_at = timezone.now()
            locked.log = stored_name
            locked.log_size = len(compressed)
            locked.error = ""
            locked.save(update_fields=["status", "finished_at", "log", "log_size", "error"])
    except BaseException:
        # Stored, or half written by a save that failed (a full disk leaves an empty
        # file): the row does not name it, so nothing would ever delete it.
        if saving:
            _delete_quietly(stored_name or name)
        raise
    _announce_finished(locked)
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


def _announce_finished(match: Match) -> None:
    """Queue the tasks named in ARENA_MATCH_FINISHED_TASKS (rating it) once the result commits.

    Found by their dotted path, so this app imports nothing of who keeps score;
    each task takes the match id and must be idempotent (a beat sweep catches
    a lost one).
    """
    for name in settings.ARENA_MATCH_FINISHED_TASKS:
        publish_on_commit(import_string(name), match.pk)


def match_fail(
    *, match: Match, error: str, attempt: int | None = None, retry_in: float = 0
) -> Match:
    """An attempt failed for a reason that is not a bot's fault: retry, or give up.

    Nothing of the attempt is kept and no rating changes. The retry is queued
    ``retry_in`` seconds after the commit; after ARENA_MATCH_MAX_ATTEMPTS the
    match is failed_infra.
    """
    with transaction.atomic():
        locked = _lock(match.pk)
        _check_attempt(locked, attempt)
        retry = locked.attempts < settings.ARENA_MATCH_MAX_ATTEMPTS
        _move(locked, MatchStatus.QUEUED if retry else MatchStatus.FAILED_INFRA)
        locked.error = error
        # Due after the delay: matches_republish_queued leaves it alone until then.
        locked.queued_at = timezone.now() + timedelta(seconds=retry_in)
        locked.save(update_fields=["status", "error", "queued_at"])
        if retry:
            _queue_run(locked, countdown=retry_in)
    log.warning("match %s attempt %s failed: %s", locked.pk, locked.attempts, error)
    return locked


def match_cancel(*, match: Match) -> Match:
    with transaction.atomic():
        locked = _lock(match.pk)
        _move(locked, MatchStatus.CANCELLED)
        locked.save(update_fields=["status"])
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
        return match_fail(match=match, error=f"attempt lost: {reason}", attempt=match.attempts)
    except MatchTransitionError:
        return None  # finished or recovered meanwhile


def matches_republish_queued(*, limit: int = 500) -> int:
    """Publish ``match_run`` again for matches queued long past their due time (beat sweep).

    Their message was lost (a broker without persistence, a crash or an outage
    between commit and publish) and they would hold their ladder's queue and
    their bots' caps forever. A duplicate delivery is harmless (``match_run``
    checks the status); the clock restarts, so a long queue gets one more
    message per ARENA_MATCH_REPUBLISH_SECONDS, not one per sweep.
    """
    now = timezone.now()
    cutoff = now - timedelta(seconds=settings.ARENA_MATCH_REPUBLISH_SECONDS)
    with transaction.atomic():
        ids = list(
            Match.objects.select_for_update(skip_locked=True)
            .filter(status=MatchStatus.QUEUED, queued_at__lt=cutoff)
            .order_by("queued_at")
            .values_list("pk", flat=True)[:limit]
        )
        Match.objects.filter(pk__in=ids).update(queued_at=now)
        for match_id in ids:
            _queue_run(Match(pk=match_id))
    if ids:
        log.warning("re-published %s queued matches whose message was lost: %s", len(ids), ids)
    return len(ids)


def matches_requeue_stale() -> int:
    """Running matches whose worker died, fell silent or overran: fail the attempt (beat sweep)."""
    running = Match.objects.filter(status=MatchStatus.RUNNING).only(
        "pk", "status", "attempts", "runner", "started_at", "heartbeat_at"
    )
    return sum(match_recover(match=match) is not None for match in running)


def match_heartbeat(*, match_id: int, attempt: int) -> bool:
    """The runner of ``attempt`` is alive; False once the match moved on without it."""
    return bool(
        Match.objects.filter(pk=match_id, status=MatchStatus.RUNNING, attempts=attempt).update(
            heartbeat_at=timezone.now()
        )
    )


@contextmanager
def _heartbeat(match_id: int, attempt: int) -> Iterator[None]:
    """Beat for ``attempt`` from a thread (the game holds this one) while the block runs."""
    stop = threading.Event()
    interval = settings.ARENA_MATCH_LEASE_SECONDS / 4

    def beat() -> None:
        try:
            while not stop.wait(interval):
                try:
                    if not match_heartbeat(match_id=match_id, attempt=attempt):
                        return
                except DatabaseError as error:
                    log.warning("match %s: heartbeat failed: %s", match_id, error)
        finally:
            connection.close()  # this thread's own connection

    thread = threading.Thread(target=beat, name=f"match-{match_id}-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def _retry_delay(attempt: int) -> float:
    """Seconds before attempt ``attempt + 1``: base, x4 each time, capped.

    Minutes rather than seconds, so a passing fault (a full disk, a restarting
    service) clears before the attempts run out.
    """
    base = settings.ARENA_MATCH_RETRY_BASE_SECONDS
    return float(min(settings.ARENA_MATCH_RETRY_MAX_SECONDS, base * 4 ** (attempt - 1)))


class AttemptNotRecorded(DatabaseError):
    """An attempt failed and so did recording it: the task retries with ``attempt``."""

    def __init__(self, match_id: int, attempt: int) -> None:
        self.match_id, self.attempt = match_id, attempt
        super().__init__(f"match {match_id}: the failure of attempt {attempt} was not recorded")


def match_run(*, match: Match, abandoned_attempt: int | None = None) -> Match:
    """Play a queued match to the end and record it (a task may deliver it more than once).

    A finished, cancelled or failed match is left alone; a running one is
    left to its worker unless that worker is lost, in which case the attempt
    fails and the match is queued again. The seated versions play even if
    retired since (they were active when it was made; leagues freeze them).
    A failure of ours fails the attempt: the match is retried and nothing
    counts against a bot. If recording that fails too, AttemptNotRecorded
    names the attempt; the task passes it back as ``abandoned_attempt`` so the
    retry fails it at once instead of waiting out ARENA_MATCH_LEASE_SECONDS.
    """
    from .play import play_match

    current = Match.objects.get(pk=match.pk)
    if current.status == MatchStatus.RUNNING:
        if abandoned_attempt is not None and current.attempts == abandoned_attempt:
            # Its worker gave up on this attempt but could not record it (the database
            # was down): fail it now rather than wait out the lease.
            try:
                return match_fail(
                    match=current,
                    error="attempt given up on by its worker (the failure was not recorded)",
                    attempt=current.attempts,
                    retry_in=_retry_delay(current.attempts),
                )
            except MatchTransitionError:
                return Match.objects.get(pk=current.pk)
        return match_recover(match=current) or current
    if current.status != MatchStatus.QUEUED:
        return current
    try:
        started = match_start(match=current)
    except MatchTransitionError:
        return current  # another worker took it
    attempt = started.attempts
    try:
        with _heartbeat(started.pk, attempt):
            played = play_match(started)
            return match_finish(
                match=started, outcomes=played.seats, game_log=played.game_log, attempt=attempt
            )
    except MatchTransitionError:
        log.warning("match %s: attempt %s was given up on before it ended", started.pk, attempt)
        return Match.objects.get(pk=started.pk)
    except Exception as error:
        # Ours by construction: bot faults are results, never exceptions.
        log.exception("match %s: attempt %s failed", started.pk, attempt)
        try:
            return match_fail(
                match=started,
                error=f"{type(error).__name__}: {error}",
                attempt=attempt,
                retry_in=_retry_delay(attempt),
            )
        except MatchTransitionError:
            return Match.objects.get(pk=started.pk)
        except DatabaseError as failure:
            raise AttemptNotRecorded(started.pk, attempt) from failure
