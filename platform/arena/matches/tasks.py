"""Celery tasks of the matches app: load by id, call a service."""

from __future__ import annotations

from celery import shared_task

from .services import matches_requeue_stale as requeue_stale


@shared_task(name="arena.matches.tasks.matches_requeue_stale")
def matches_requeue_stale() -> int:
    return requeue_stale()
