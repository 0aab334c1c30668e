"""The Celery app of the platform: `celery -A arena worker` / `celery -A arena beat`."""

from __future__ import annotations

import logging
import os
from typing import Any

from celery import Celery, bootsteps
from celery.signals import worker_init, worker_process_init, worker_process_shutdown
from celery.worker import WorkController

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


def _sweep_bot_files() -> None:
    """Remove the bot code that this host's killed worker processes left (arena.bots.scratch)."""
    from arena.bots.scratch import sweep

    try:
        sweep()
    except OSError as error:
        log.warning("could not sweep the bot code folders: %s", error)


@worker_init.connect
@worker_process_init.connect
def _sweep_bot_files_at_start(**kwargs: Any) -> None:
    """A worker, and each pool process (one replacing a killed one too), sweeps when it starts."""
    _sweep_bot_files()


@worker_process_shutdown.connect
def _release_bot_files(**kwargs: Any) -> None:
    """A pool process that exits cleanly removes its own folder of bot code."""
    from arena.bots.scratch import release

    release()


class BotFilesSweep(bootsteps.StartStopStep):  # type: ignore[misc]  # celery has no types
    """The worker sweeps the bot code of dead processes every ARENA_BOT_FILES_SWEEP_SECONDS,
    on its own timer: a beat task would reach one host, not each."""

    requires = ("celery.worker.components:Timer",)

    def __init__(self, parent: WorkController, **kwargs: Any) -> None:
        super().__init__(parent, **kwargs)
        self.tref: Any = None

    def start(self, parent: WorkController) -> None:
        from django.conf import settings

        self.tref = parent.timer.call_repeatedly(
            settings.ARENA_BOT_FILES_SWEEP_SECONDS, _sweep_bot_files, priority=10
        )

    def stop(self, parent: WorkController) -> None:
        if self.tref is not None:
            self.tref.cancel()
            self.tref = None


app.steps["worker"].add(BotFilesSweep)


def _consumed_queues(worker: WorkController) -> list[str]:
    """The queues ``worker`` reads: those of its -Q, or every queue without one."""
    queues = worker.app.amqp.queues
    return sorted(queues.consume_from or queues)


class WorkerPresenceStep(bootsteps.StartStopStep):  # type: ignore[misc]  # celery has no types
    """The worker says it is up, with its queues and processes, when it starts and every
    ARENA_WORKER_PRESENCE_SECONDS, and that it leaves when it stops: matchmaking keeps as
    much work queued as the live workers can take (arena.matches.services.workers)."""

    requires = ("celery.worker.components:Timer",)

    def __init__(self, parent: WorkController, **kwargs: Any) -> None:
        super().__init__(parent, **kwargs)
        self.tref: Any = None

    def _beat(self, worker: WorkController) -> None:
        from django.db import DatabaseError, connections

        from arena.matches.services import worker_presence_beat

        try:
            worker_presence_beat(
                hostname=worker.hostname,
                queues=_consumed_queues(worker),
                concurrency=worker.concurrency,
            )
        except DatabaseError as error:
            log.warning("could not record this worker's presence: %s", error)
        finally:
            # The pool's processes, forked later, must not share this process's connections.
            connections.close_all()

    def start(self, parent: WorkController) -> None:
        from django.conf import settings

        self._beat(parent)
        self.tref = parent.timer.call_repeatedly(
            settings.ARENA_WORKER_PRESENCE_SECONDS, self._beat, (parent,), priority=10
        )

    def stop(self, parent: WorkController) -> None:
        from django.db import DatabaseError, connections

        from arena.matches.services import worker_presence_leave

        if self.tref is not None:
            self.tref.cancel()
            self.tref = None
        try:
            worker_presence_leave(hostname=parent.hostname)
        except DatabaseError as error:
            log.warning("could not record that this worker leaves: %s", error)
        finally:
            connections.close_all()


app.steps["worker"].add(WorkerPresenceStep)


class Heartbeat(bootsteps.StartStopStep):  # type: ignore[misc]  # celery has no types
    """While the worker consumes from the broker it touches its heartbeat file every
    ARENA_HEARTBEAT_SECONDS (arena.heartbeats), which `manage.py probe worker` checks.

    A step of the consumer, not the worker: the consumer stops (and the file goes)
    when the broker connection is lost, and starts again once it is back.
    """

    requires = ("celery.worker.consumer.tasks:Tasks",)

    def __init__(self, parent: Any, **kwargs: Any) -> None:
        super().__init__(parent, **kwargs)
        self.tref: Any = None

    def start(self, parent: Any) -> None:
        from django.conf import settings

        from arena import heartbeats

        name = str(parent.hostname)
        heartbeats.beat("worker", name)
        self.tref = parent.timer.call_repeatedly(
            settings.ARENA_HEARTBEAT_SECONDS, heartbeats.beat, ("worker", name), priority=10
        )

    def stop(self, parent: Any) -> None:
        from arena import heartbeats

        if self.tref is not None:
            self.tref.cancel()
            self.tref = None
        heartbeats.forget("worker", str(parent.hostname))

    shutdown = stop


app.steps["consumer"].add(Heartbeat)


@worker_init.connect
def _refuse_without_shared_storage(**kwargs: Any) -> None:
    """A worker that cannot use the storage the other hosts share would void every match
    it takes (the bots' code is not there): it does not start (arena.blobs.storage_check).

    Celery logs and swallows a handler's exceptions; SystemExit is not one of them, so
    the worker process ends with status 1 and the message on stderr.
    """
    # Imported here: Django is set up by Celery's Django fixup before this signal.
    from django.db import connections

    from arena.blobs.storage_check import StorageCheckError, check_storage

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
