"""Beat's scheduler: django-celery-beat's, which also touches beat's heartbeat file
after each tick (arena.heartbeats), for `python manage.py probe beat`."""

from __future__ import annotations

import socket
from typing import Any

from django_celery_beat.schedulers import DatabaseScheduler

from arena import heartbeats


class Scheduler(DatabaseScheduler):  # type: ignore[misc]  # django-celery-beat has no types
    """The database scheduler (settings CELERY_BEAT_SCHEDULE copied in), with a heartbeat."""

    def tick(self, *args: Any, **kwargs: Any) -> float:
        interval = float(super().tick(*args, **kwargs))
        # After the tick: a beat whose ticks fail (its database away) goes stale.
        heartbeats.beat("beat", socket.gethostname())
        return interval
