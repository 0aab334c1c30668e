"""The Celery app of the platform: `celery -A arena worker` / `celery -A arena beat`."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from celery import Celery
from celery.signals import beat_init, worker_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")

log = logging.getLogger(__name__)

app = Celery("arena")
app.config_from_object("django.conf:settings", namespace="CELERY")
# Not settings on purpose: every task is written for at-least-once delivery,
# acknowledged after it ran, and a task whose worker died is redelivered
# rather than lost. Prefetch 1: a worker never holds a match it is not playing.
app.conf.update(
    task_acks_late=True,
    task_reject_on_worker_lost=True,
    worker_prefetch_multiplier=1,
    task_ignore_result=True,
    broker_connection_retry_on_startup=True,
    # A lost broker connection (a restart, RabbitMQ's consumer_timeout) leaves the
    # match being played to finish: its result goes to the database, and the
    # message delivered again meanwhile finds the match running and leaves it.
    # Cancelling (Celery 6's default) would throw the game away.
    worker_cancel_long_running_tasks_on_connection_loss=False,
    # RabbitMQ closes the channel of a message held past its consumer_timeout:
    # reconnect, rather than stop the worker ("Unrecoverable error") and wait
    # for a restart with no worker consuming meanwhile.
    broker_channel_error_retry=True,
)
app.autodiscover_tasks()


@worker_init.connect
def _refuse_without_shared_storage(**kwargs: Any) -> None:
    """A worker that cannot use the storage the other hosts share would void every match
    it takes (the bots' code is not there): it does not start (arena.storage_check).

    Celery logs and swallows a handler's exceptions; SystemExit is not one of them, so
    the worker process ends with status 1 and the message on stderr.
    """
    # Imported here: Django is set up by Celery's Django fixup before this signal.
    from django.db import connections

    from arena.storage_check import StorageCheckError, check_storage

    try:
        log.info("%s", check_storage(role="worker"))
    except StorageCheckError as error:
        log.critical("refusing to start: %s", error)
        raise SystemExit(f"refusing to start: {error}") from None
    except Exception as error:
        # The database itself is out of reach (or not migrated): no storage check possible.
        message = f"refusing to start: cannot check the storage: {type(error).__name__}: {error}"
        log.critical("%s", message)
        raise SystemExit(message) from None
    finally:
        # The pool's processes must not share this process's connections.
        connections.close_all()


@worker_init.connect
@beat_init.connect
def _repair_embedded_broker(**kwargs: Any) -> None:
    """The embedded broker's exchange tables, made readable before this process binds to them."""
    from django.conf import settings

    from arena.broker_repair import repair_exchange_tables

    control = settings.CELERY_BROKER_TRANSPORT_OPTIONS.get("control_folder")
    if control:  # the filesystem transport only
        repair_exchange_tables(Path(control))
