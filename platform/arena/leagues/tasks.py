"""Celery tasks of the leagues app: load by id, call a service."""

from __future__ import annotations

from datetime import datetime

from celery import shared_task
from django.utils import timezone

from . import notices
from .models import League
from .services import league_advance, leagues_advance_due


@shared_task(name="arena.leagues.tasks.leagues_advance_due")
def leagues_advance(now: str | None = None) -> int:
    """Beat's sweep, every few seconds: every league with something due advances.

    Beat leaves out ``now`` (the current time); ``now``, an ISO 8601 time with
    its offset, drives the clock of the worker that runs it (tests), as the
    services' ``now`` parameters do in-process.
    """
    # One time for the whole sweep: the rounds it closes are those finished at it.
    moment = _parse_now(now) or timezone.now()
    advanced = leagues_advance_due(now=moment)
    notices.rounds_closed(at=moment)
    return advanced


@shared_task(name="arena.leagues.tasks.league_tick")
def league_tick(league_id: int, now: str | None = None) -> None:
    """Advance one league now (a resumed league, at once); ``now`` as in leagues_advance."""
    league = League.objects.filter(pk=league_id).first()
    if league is not None:
        moment = _parse_now(now) or timezone.now()
        league_advance(league=league, now=moment)
        notices.rounds_closed(at=moment)


def _parse_now(now: str | None) -> datetime | None:
    if now is None:
        return None
    moment = datetime.fromisoformat(now)
    if moment.tzinfo is None:
        raise ValueError(f"now={now!r} has no UTC offset; send an aware time.")
    return moment
