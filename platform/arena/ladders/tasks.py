"""Celery tasks of the ladders app: load by id, call a service."""

from __future__ import annotations

from celery import shared_task

from arena.matches.models import Match

from .selectors import unrated_finished_matches
from .services import ladders_fill_queues as fill_queues
from .services import ratings_apply


@shared_task(name="arena.ladders.tasks.ratings_apply_match")
def ratings_apply_match(match_id: int) -> None:
    match = Match.objects.filter(pk=match_id).first()
    if match is not None:
        ratings_apply(match=match)


@shared_task(name="arena.ladders.tasks.ratings_apply_pending")
def ratings_apply_pending() -> None:
    """Beat safety net: rate finished matches whose rating task was lost."""
    for match in unrated_finished_matches():
        ratings_apply(match=match)


@shared_task(name="arena.ladders.tasks.ladders_fill_queues")
def ladders_fill_queues() -> int:
    """Beat: keep every open ladder's queue of matches filled."""
    return fill_queues()
