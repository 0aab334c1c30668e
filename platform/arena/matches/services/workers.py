"""The workers' presence: each says every ARENA_WORKER_PRESENCE_SECONDS that it is up,
with its queues and processes (``arena.celery.WorkerPresenceStep``); it leaves when it
stops cleanly, and a killed one's row simply goes stale."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from django.utils import timezone

from ..models import WorkerPresence


def worker_presence_beat(
    *, hostname: str, queues: Sequence[str], concurrency: int, now: datetime | None = None
) -> WorkerPresence:
    """Record that the worker ``hostname`` is up now (its first beat records its start)."""
    now = now or timezone.now()
    presence, _ = WorkerPresence.objects.update_or_create(
        hostname=hostname,
        defaults={"queues": sorted(queues), "concurrency": concurrency, "seen_at": now},
        create_defaults={
            "queues": sorted(queues),
            "concurrency": concurrency,
            "seen_at": now,
            "started_at": now,
        },
    )
    return presence


def worker_presence_leave(*, hostname: str) -> None:
    """The worker ``hostname`` stops: its processes no longer count."""
    WorkerPresence.objects.filter(hostname=hostname).delete()
