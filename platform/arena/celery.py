"""The Celery app of the platform: `celery -A arena worker` / `celery -A arena beat`."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")

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
