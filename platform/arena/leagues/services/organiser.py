"""The organiser's writes on a running league: pause, resume, cancel."""

from __future__ import annotations

import logging
import math
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from arena.matches.models import Match, MatchStatus
from arena.matches.services import (
    match_cancel,
)
from arena.transitions import check_move

from ..models import (
    GameStatus,
    League,
    LeagueGame,
    LeagueRound,
    LeagueStatus,
    RoundStatus,
)
from .common import GAME_FINAL, LEAGUE_TRANSITIONS, LeagueTransitionError, lock_league
from .standings import league_standings_recompute

log = logging.getLogger(__name__)


def _move(locked: League, to: LeagueStatus) -> None:
    current = LeagueStatus(locked.status)
    check_move(LEAGUE_TRANSITIONS, current, to, what=locked, error=LeagueTransitionError)
    locked.status = to


def league_pause(*, league: League, now: datetime | None = None) -> League:
    """No round starts while paused; games already queued still play and are recorded.

    Beat's sweep still advances a paused league: it collects results and
    starts nothing.
    """
    with transaction.atomic():
        locked = lock_league(league)
        was = LeagueStatus(locked.status)
        _move(locked, LeagueStatus.PAUSED)
        locked.paused_from = was
        locked.paused_at = now or timezone.now()
        locked.save(update_fields=["status", "paused_from", "paused_at"])
    return locked


def league_resume(*, league: League, now: datetime | None = None) -> League:
    """Back to the calendar; rounds whose time passed move to the next free slots.

    The rhythm is kept (a round every day at 18:00 stays at 18:00): every
    round not started moves by the same whole number of intervals, the
    smallest that puts the next one at or after now.
    """
    now = now or timezone.now()
    with transaction.atomic():
        locked = lock_league(league)
        if locked.status != LeagueStatus.PAUSED:
            raise LeagueTransitionError(
                f"{locked} is {locked.status}: only a paused league resumes."
            )
        _move(locked, LeagueStatus(locked.paused_from or LeagueStatus.SCHEDULED))
        if locked.status == LeagueStatus.SCHEDULED and locked.start_at < now:
            locked.start_at = now
        pending = list(
            LeagueRound.objects.filter(league=locked, status=RoundStatus.SCHEDULED).order_by(
                "number"
            )
        )
        if pending and pending[0].scheduled_at < now:
            steps = math.ceil((now - pending[0].scheduled_at) / locked.round_interval)
            shift = steps * locked.round_interval
            for rnd in pending:
                rnd.scheduled_at += shift
            LeagueRound.objects.bulk_update(pending, ["scheduled_at"])
        locked.paused_from, locked.paused_at = "", None
        locked.save(update_fields=["status", "start_at", "paused_from", "paused_at"])
    return locked


def league_cancel(*, league: League, reason: str = "", now: datetime | None = None) -> League:
    """Stop for good: queued matches are cancelled, unplayed games void, results kept."""
    now = now or timezone.now()
    with transaction.atomic():
        locked = lock_league(league)
        _move(locked, LeagueStatus.CANCELLED)
        games = LeagueGame.objects.filter(fixture__round__league=locked).exclude(
            status__in=GAME_FINAL
        )
        for match in Match.objects.filter(league_game__in=games, status=MatchStatus.QUEUED).only(
            "pk"
        ):
            match_cancel(match=match)
        games.update(status=GameStatus.VOID)
        LeagueRound.objects.filter(league=locked).exclude(status=RoundStatus.FINISHED).update(
            status=RoundStatus.CANCELLED
        )
        locked.finished_at = now
        locked.note = reason or "cancelled by the organiser"
        locked.paused_from = ""
        locked.save(update_fields=["status", "finished_at", "note", "paused_from"])
        league_standings_recompute(league=locked, now=now)
    return locked
