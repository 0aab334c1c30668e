"""Celery tasks of the ladders app: load by id, call a service."""

from __future__ import annotations

import logging

from celery import shared_task

from arena.bots.models import BotVersion, TestGame
from arena.bots.sandboxing import InfrastructureError
from arena.matches.models import Match

from . import editor, entries
from .selectors import unrated_finished_matches
from .services import ladders_fill_queues as fill_queues
from .services import ladders_refit_due as refit_due
from .services import ratings_apply

log = logging.getLogger(__name__)


@shared_task(name="arena.ladders.tasks.version_qualify")
def version_qualify(version_id: int) -> None:
    version = BotVersion.objects.filter(pk=version_id).first()
    if version is None:  # deleted before a worker got to it
        return
    try:
        entries.version_qualify(version=version)
    except InfrastructureError as error:
        # Nothing was decided; qualifications_requeue_stuck queues it again later,
        # when a worker that can isolate it may take it.
        log.error("pre-flight of version %s postponed: %s", version_id, error)


@shared_task(name="arena.ladders.tasks.qualifications_requeue_stuck")
def qualifications_requeue_stuck() -> int:
    """Beat: pre-flights whose task was lost are queued again."""
    return entries.qualifications_requeue_stuck()


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
    return len(fill_queues())


@shared_task(name="arena.ladders.tasks.ladders_refit_due")
def ladders_refit_due() -> int:
    """Beat: refit the ratings of every ladder that has new results on its whole history.

    On the default queue, not the ratings one: a large ladder's fit takes a
    second or more, which the ratings of each finished match must not wait behind.
    """
    return refit_due()


@shared_task(name="arena.ladders.tasks.play_test_game")
def play_test_game(test_game_id: int) -> None:
    test_game = TestGame.objects.select_related("build__bot").filter(pk=test_game_id).first()
    if test_game is None:
        return
    try:
        editor.play_test_game(test_game=test_game)
    except InfrastructureError as error:
        # The build is pending again; the editor shows the test game still building.
        log.error("test game %s postponed: %s", test_game_id, error)
