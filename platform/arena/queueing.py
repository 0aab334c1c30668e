"""Queueing Celery tasks once the caller's transaction commits, surviving a broker outage.

The rows a task works on are committed before its message is published, so a
broker that is down at that moment must not turn a request that already
succeeded into an error: the failure is logged and the beat sweeps, which find
work by its rows (queued matches, pending pre-flights, unrated results), queue
it again later.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction
from kombu.exceptions import OperationalError as BrokerError

log = logging.getLogger(__name__)


def publish(task: Any, *args: Any, countdown: float = 0) -> bool:
    """Send ``task(*args)`` now; False (logged) when the broker cannot take it."""
    try:
        task.apply_async(args, countdown=countdown or None)
    except BrokerError as error:
        # Only the broker's errors: in eager mode (tests) a task's own error propagates.
        log.warning(
            "could not queue %s%r (a beat sweep will queue it again): %s", task.name, args, error
        )
        return False
    return True


def publish_on_commit(task: Any, *args: Any, countdown: float = 0) -> None:
    """Send ``task(*args)`` once the current transaction commits (at once outside one)."""
    transaction.on_commit(lambda: publish(task, *args, countdown=countdown))
