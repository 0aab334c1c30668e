"""Celery tasks of the matches app: load by id, call a service; and the worker's start-up checks."""

from __future__ import annotations

import logging
from typing import Any

from celery import Task, shared_task
from celery.signals import worker_init, worker_ready
from django.db import DatabaseError, connections

from arena.bots.sandboxing import worker_self_test

from .models import Match
from .services import AttemptNotRecorded
from .services import match_run as run_service
from .services import matches_republish_queued as republish_queued
from .services import matches_requeue_stale as requeue_stale
from .services import matches_retry_waiting as retry_waiting

log = logging.getLogger(__name__)


# Acknowledged late (arena.celery): a worker killed mid-match leaves the message
# to be redelivered, and the match's lost runner to the sweep or the next worker.
# A database outage retries the task rather than losing the match.
@shared_task(
    bind=True,
    name="arena.matches.tasks.match_run",
    autoretry_for=(DatabaseError,),
    retry_backoff=5,
    retry_backoff_max=300,
    max_retries=20,
)
def match_run(
    self: Task, match_id: int, abandoned_attempt: int | None = None, abandoned_error: str = ""
) -> None:
    match = Match.objects.filter(pk=match_id).first()
    if match is None:
        return
    try:
        run_service(
            match=match, abandoned_attempt=abandoned_attempt, abandoned_error=abandoned_error
        )
    except AttemptNotRecorded as error:
        # The retry fails that attempt at once (this worker knows it is over); in a
        # series it may be another game's than the one this message named.
        raise self.retry(
            kwargs={
                "match_id": error.match_id,
                "abandoned_attempt": error.attempt,
                "abandoned_error": error.error,
            },
            exc=error,
            countdown=5,
        ) from error


@shared_task(name="arena.matches.tasks.matches_requeue_stale")
def matches_requeue_stale() -> int:
    return requeue_stale()


@shared_task(name="arena.matches.tasks.matches_retry_waiting")
def matches_retry_waiting() -> int:
    """Beat: failed attempts are retried once the resource they failed on answers."""
    return retry_waiting()


@shared_task(name="arena.matches.tasks.matches_republish_queued")
def matches_republish_queued() -> int:
    """Beat: queued matches whose message was lost are published again."""
    return republish_queued()


@worker_init.connect
def _self_test_sandbox(**kwargs: Any) -> None:
    """Before the pool forks: learn whether this worker can isolate untrusted bots."""
    worker_self_test()


@worker_ready.connect
def _recover_lost_matches(**kwargs: Any) -> None:
    """Matches this host was playing when its previous worker died are queued again now."""
    try:
        recovered = requeue_stale()
    except DatabaseError as error:
        log.warning("could not look for lost matches at start-up: %s", error)
        return
    finally:
        # The pool's processes must not share this process's connections.
        connections.close_all()
    if recovered:
        log.warning("re-queued %s matches lost by a previous worker", recovered)
