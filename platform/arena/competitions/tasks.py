"""Celery tasks of the competitions app: beat's sweep calls the service."""

from __future__ import annotations

from datetime import datetime

from celery import shared_task

from .services import competitions_advance_due


@shared_task(name="arena.competitions.tasks.competitions_advance_due")
def competitions_advance(now: str | None = None) -> int:
    """Beat's sweep, every few seconds: every competition with a phase due moves on.

    ``now``, an ISO 8601 time with its offset, drives the worker's clock (tests);
    beat leaves it out.
    """
    moment = None
    if now is not None:
        moment = datetime.fromisoformat(now)
        if moment.tzinfo is None:
            raise ValueError(f"now={now!r} has no UTC offset; send an aware time.")
    return competitions_advance_due(now=moment)
