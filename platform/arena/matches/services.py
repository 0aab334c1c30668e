"""Writes on matches: creating them and moving them through their statuses."""

from __future__ import annotations

import gzip
import logging
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import transaction
from django.utils import timezone

import vegas_engine
from arena.bots.models import BotVersion, VersionStatus
from arena.errors import ArenaError
from arena.ladders.models import Ladder

from .models import ForfeitCause, Match, MatchStatus, Participant

log = logging.getLogger(__name__)

MAX_SEED = 2**63 - 1

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


def match_create(
    *, ladder: Ladder, versions: Sequence[BotVersion], seed: int | None = None
) -> Match:
    """A queued match with ``versions`` at seats 0.. in order."""
    if not ladder.is_open:
        raise MatchSetupError(f"{ladder} is closed: it takes no new matches.")
    if len(versions) != ladder.seats:
        raise MatchSetupError(f"{ladder} plays {ladder.seats} seats, got {len(versions)} bots.")
    inactive = [str(v) for v in versions if v.status != VersionStatus.ACTIVE]
    if inactive:
        raise MatchSetupError(f"only active versions play; not active: {', '.join(inactive)}.")
    if seed is None:
        seed = secrets.randbelow(MAX_SEED + 1)
    try:
        vegas_engine.describe(ladder.rules, ladder.seats, seed, ladder.options)
    except vegas_engine.InvalidDescriptionError as error:
        raise MatchSetupError(f"the engine cannot play this match: {error}") from None
    with transaction.atomic():
        match = Match.objects.create(ladder=ladder, seed=seed)
        Participant.objects.bulk_create(
            Participant(match=match, seat=seat, bot_version=version)
            for seat, version in enumerate(versions)
        )
    return match


def _lock(match_id: int) -> Match:
    return Match.objects.select_for_update().get(pk=match_id)


def _move(locked: Match, to: MatchStatus) -> None:
    """Check and set the move of a locked match; the caller saves in its transaction."""
    current = MatchStatus(locked.status)
    if to not in MATCH_TRANSITIONS[current]:
        allowed = ", ".join(sorted(MATCH_TRANSITIONS[current])) or "none (final)"
        raise MatchTransitionError(
            f"match {locked.pk} is {current}: it cannot become {to} (allowed: {allowed})."
        )
    locked.status = to


def match_start(*, match: Match) -> Match:
    """A worker takes a queued match: one more attempt."""
    with transaction.atomic():
        locked = _lock(match.pk)
        _move(locked, MatchStatus.RUNNING)
        locked.attempts += 1
        locked.started_at = timezone.now()
        locked.save(update_fields=["status", "attempts", "started_at"])
    return locked


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


def match_finish(*, match: Match, outcomes: Sequence[SeatOutcome], game_log: bytes) -> Match:
    """Record a played match: results, compressed log; rating is queued after commit."""
    _check_outcomes(match, outcomes)
    name = log_storage_name(match.pk)
    # mtime=0: the same log always compresses to the same bytes.
    compressed = gzip.compress(game_log, mtime=0)
    stored_name: str | None = None
    try:
        with transaction.atomic():
            locked = _lock(match.pk)
            _move(locked, MatchStatus.FINISHED)
            # A previous attempt may have stored a log before its transaction failed.
            if default_storage.exists(name):
                default_storage.delete(name)
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
        if stored_name is not None:
            default_storage.delete(stored_name)
        raise
    _queue_rating(locked)
    return locked


def _queue_rating(match: Match) -> None:
    from arena.ladders.tasks import ratings_apply_match

    match_id = match.pk
    transaction.on_commit(lambda: ratings_apply_match.delay(match_id))


def match_fail(*, match: Match, error: str) -> Match:
    """An attempt failed for a reason that is not a bot's fault: retry, or give up."""
    with transaction.atomic():
        locked = _lock(match.pk)
        retry = locked.attempts < settings.ARENA_MATCH_MAX_ATTEMPTS
        _move(locked, MatchStatus.QUEUED if retry else MatchStatus.FAILED_INFRA)
        locked.error = error
        locked.save(update_fields=["status", "error"])
    log.warning("match %s attempt %s failed: %s", locked.pk, locked.attempts, error)
    return locked


def match_cancel(*, match: Match) -> Match:
    with transaction.atomic():
        locked = _lock(match.pk)
        _move(locked, MatchStatus.CANCELLED)
        locked.save(update_fields=["status"])
    return locked


def matches_requeue_stale() -> int:
    """Running matches older than ARENA_MATCH_STALE_SECONDS lost their worker: fail the attempt."""
    cutoff = timezone.now() - timedelta(seconds=settings.ARENA_MATCH_STALE_SECONDS)
    stale = Match.objects.filter(status=MatchStatus.RUNNING, started_at__lt=cutoff)
    count = 0
    for match in stale.only("pk"):
        try:
            match_fail(match=match, error="no result before the stale deadline (worker lost?)")
        except MatchTransitionError:
            continue  # finished meanwhile
        count += 1
    return count
