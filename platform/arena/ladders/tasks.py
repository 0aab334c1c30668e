"""Celery tasks of the ladders app: load by id, call a service, publish what it made due.

The main path of a bot, task by task: an upload's pre-flight (:func:`version_qualify`)
makes its version active; beat fills the ladders' queues (:func:`ladders_fill_queues`);
a worker plays each series (:func:`match_run`) and queues the rating of each game as it
is recorded (:func:`ratings_apply_match`). What starts it (uploads, entries, challenges,
test games) is in :mod:`.flows`. Matches are played here rather than in the matches
app because their rating is a ladders' matter: leagues, challenges and test games all
play through :func:`match_run`.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from celery import Task, shared_task
from celery.signals import worker_init, worker_ready
from django.conf import settings
from django.db import DatabaseError, connections
from django.utils import timezone

from arena.bots.models import BotVersion, TestGame
from arena.bots.sandboxing import InfrastructureError, worker_self_test
from arena.matches import services as matches
from arena.matches.models import Match
from arena.queueing import publish_on_commit

from . import notices
from .selectors import unrated_finished_matches
from .services import editor, entries, ratings_apply
from .services import ladders_fill_queues as fill_queues
from .services import ladders_refit_due as refit_due

log = logging.getLogger(__name__)


def publish_runs(run_ids: Iterable[int]) -> None:
    """Publish :func:`match_run` for each run (a match, or a series' first game) once the
    caller's transaction commits."""
    for match_id in run_ids:
        publish_on_commit(match_run, match_id)


def queue_rating(match: Match) -> None:
    """Queue the rating of a game just recorded (every game: an unrated one is a no-op)."""
    publish_on_commit(ratings_apply_match, match.pk)


def publish_preflights(version_ids: Iterable[int]) -> None:
    for version_id in version_ids:
        publish_on_commit(version_qualify, version_id)


@shared_task(name="arena.ladders.tasks.version_qualify")
def version_qualify(version_id: int) -> None:
    version = BotVersion.objects.filter(pk=version_id).first()
    if version is None:  # deleted before a worker got to it
        return
    try:
        decided = entries.version_qualify(version=version)
    except InfrastructureError as error:
        # Nothing was decided; qualifications_requeue_stuck queues it again later,
        # when a worker that can isolate it may take it.
        log.error("pre-flight of version %s postponed: %s", version_id, error)
        return
    notices.preflights_decided(version=version, decided=decided)


@shared_task(name="arena.ladders.tasks.qualifications_requeue_stuck")
def qualifications_requeue_stuck() -> int:
    """Beat: pre-flights whose task was lost are queued again."""
    version_ids = entries.qualifications_requeue_stuck()
    publish_preflights(version_ids)
    return len(version_ids)


# Acknowledged late (arena.celery): a worker killed mid-match leaves the message
# to be redelivered, and the match's lost runner to the sweep or the next worker.
# A database outage retries the task rather than losing the match.
@shared_task(
    bind=True,
    name="arena.ladders.tasks.match_run",
    autoretry_for=(DatabaseError,),
    retry_backoff=5,
    retry_backoff_max=300,
    max_retries=20,
)
def match_run(
    self: Task, match_id: int, abandoned_attempt: int | None = None, abandoned_error: str = ""
) -> None:
    """Play a match (with the rest of its series), rating each game as it is recorded."""
    match = Match.objects.filter(pk=match_id).first()
    if match is None:
        return
    try:
        run = matches.match_run(
            match=match,
            on_finished=queue_rating,
            abandoned_attempt=abandoned_attempt,
            abandoned_error=abandoned_error,
        )
    except matches.AttemptNotRecorded as error:
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
    publish_runs(run.retries)
    notices.challenges_check(match=run.match)


@shared_task(name="arena.ladders.tasks.matches_requeue_stale")
def matches_requeue_stale() -> int:
    """Beat: running matches whose worker is lost are failed, and retried."""
    requeued = matches.matches_requeue_stale()
    publish_runs(requeued.runs)
    return len(requeued.matches)


@shared_task(name="arena.ladders.tasks.matches_retry_waiting")
def matches_retry_waiting() -> int:
    """Beat: failed attempts are retried once the resource they failed on answers."""
    requeued = matches.matches_retry_waiting()
    publish_runs(requeued.runs)
    return len(requeued.matches)


@shared_task(name="arena.ladders.tasks.matches_republish_queued")
def matches_republish_queued() -> int:
    """Beat: queued matches whose message was lost are published again."""
    match_ids = matches.matches_republish_queued()
    publish_runs(match_ids)
    return len(match_ids)


@shared_task(name="arena.ladders.tasks.match_logs_archive")
def match_logs_archive() -> int:
    """Beat, daily: logs of matches older than ARENA_MATCH_LOG_ARCHIVE_DAYS to the archive."""
    days = settings.ARENA_MATCH_LOG_ARCHIVE_DAYS
    if not days:
        return 0
    finished_before = timezone.now() - timedelta(days=days)
    return matches.match_logs_archive(finished_before=finished_before).matches


@shared_task(name="arena.ladders.tasks.ratings_apply_match")
def ratings_apply_match(match_id: int) -> None:
    match = Match.objects.filter(pk=match_id).first()
    if match is not None:
        notices.levels_check(match_ids=ratings_apply(match=match))


@shared_task(name="arena.ladders.tasks.ratings_apply_pending")
def ratings_apply_pending() -> None:
    """Beat safety net: rate finished matches whose rating task was lost."""
    for match in unrated_finished_matches():
        notices.levels_check(match_ids=ratings_apply(match=match))


@shared_task(name="arena.ladders.tasks.ladders_fill_queues")
def ladders_fill_queues() -> int:
    """Beat: keep every open ladder's queue of matches filled."""
    created = fill_queues()
    publish_runs(matches.runs_to_publish(created))
    return len(created)


@shared_task(name="arena.ladders.tasks.ladders_refit_due")
def ladders_refit_due() -> int:
    """Beat: refit the ratings of every ladder that has new results on its whole history.

    On the default queue, not the ratings one: a large ladder's fit takes a
    second or more, which the ratings of each finished match must not wait behind.
    """
    return refit_due()


@shared_task(name="arena.ladders.tasks.play_test_game")
def play_test_game(test_game_id: int) -> None:
    """Build a test game's draft, then play its game here at once: the author waits for
    the builds queue once, not for the matches queue too.

    Its match is published as any match is all the same: the message is the safety net
    that plays it again if this worker is lost.
    """
    test_game = TestGame.objects.select_related("build__bot").filter(pk=test_game_id).first()
    if test_game is None:
        return
    try:
        match = editor.test_game_build(test_game=test_game)
    except InfrastructureError as error:
        # The build is pending again; the editor shows the test game still building.
        log.error("test game %s postponed: %s", test_game_id, error)
        return
    if match is None:
        return
    publish_runs([match.pk])
    try:
        matches.match_run(match=match)  # unrated: nothing to rate
    except matches.AttemptNotRecorded as error:
        # Its queued message plays it again once the database answers.
        log.error("test game %s: %s", test_game_id, error)


@worker_init.connect
def _self_test_sandbox(**kwargs: Any) -> None:
    """Before the pool forks: learn whether this worker can isolate untrusted bots."""
    worker_self_test()


@worker_ready.connect
def _recover_lost_matches(**kwargs: Any) -> None:
    """Matches this host was playing when its previous worker died are queued again now."""
    try:
        requeued = matches.matches_requeue_stale()
        publish_runs(requeued.runs)
    except DatabaseError as error:
        log.warning("could not look for lost matches at start-up: %s", error)
        return
    finally:
        # The pool's processes must not share this process's connections.
        connections.close_all()
    if requeued.matches:
        log.warning("re-queued %s matches lost by a previous worker", len(requeued.matches))
