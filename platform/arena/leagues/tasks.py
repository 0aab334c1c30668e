"""Celery tasks of the leagues app: load by id, call a service."""

from __future__ import annotations

from celery import shared_task

from .models import League
from .services import league_advance


@shared_task(name="arena.leagues.tasks.league_tick")
def league_tick(league_id: int) -> None:
    """Run by the league's beat jobs (every minute, and at each round's time)."""
    league = League.objects.filter(pk=league_id).first()
    if league is not None:
        league_advance(league=league)
