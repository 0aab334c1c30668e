"""Celery tasks of the bots app: load by id, call a service."""

from __future__ import annotations

import logging

from celery import shared_task

from .models import BotVersion
from .sandboxing import InfrastructureError
from .services import bot_version_validate as validate_service
from .services import bot_versions_revalidate_stuck as revalidate_stuck

log = logging.getLogger(__name__)


@shared_task(name="arena.bots.tasks.bot_version_validate")
def bot_version_validate(version_id: int) -> None:
    version = BotVersion.objects.filter(pk=version_id).first()
    if version is None:  # deleted before a worker got to it
        return
    try:
        validate_service(version=version)
    except InfrastructureError as error:
        # The version is pending again; bot_versions_revalidate_stuck queues it
        # later, when a worker that can isolate it may take it.
        log.error("validation of version %s postponed: %s", version_id, error)


@shared_task(name="arena.bots.tasks.bot_versions_revalidate_stuck")
def bot_versions_revalidate_stuck() -> int:
    return revalidate_stuck()
