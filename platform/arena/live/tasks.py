"""Celery tasks of the live app: the sweep of feeds left behind."""

from __future__ import annotations

from datetime import timedelta

from celery import shared_task
from django.conf import settings

from .services import live_sweep


@shared_task(name="arena.live.tasks.live_sweep")
def live_sweep_task() -> int:
    """Beat: feeds older than ARENA_LIVE_KEEP_HOURS (their game never ended properly)."""
    return live_sweep(older_than=timedelta(hours=settings.ARENA_LIVE_KEEP_HOURS))
