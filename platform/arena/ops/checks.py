"""Readiness: whether this process reaches what it needs (database, broker, storage),
each check naming what failed and why, and the broker's queue depths."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from django.conf import settings
from django.core.files.storage import FileSystemStorage, default_storage
from django.db import DatabaseError, connection
from kombu.connection import Connection
from kombu.exceptions import KombuError

#: Seconds a check waits for the broker: a probe must answer before its caller gives up.
BROKER_TIMEOUT_SECONDS = 3


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str


def check_database() -> Check:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except DatabaseError as error:
        return Check("database", False, f"{type(error).__name__}: {error}".strip())
    return Check("database", True, connection.vendor)


def _broker_scheme() -> str:
    return str(settings.CELERY_BROKER_URL).split(";")[0].partition("://")[0]


@contextmanager
def broker_connection() -> Iterator[Connection]:
    """A connection to the broker, established (kombu's errors when it cannot be)."""
    options = dict(settings.CELERY_BROKER_TRANSPORT_OPTIONS)
    options.setdefault("socket_connect_timeout", BROKER_TIMEOUT_SECONDS)
    options.setdefault("socket_timeout", BROKER_TIMEOUT_SECONDS)
    with Connection(  # type: ignore[no-untyped-call]  # kombu: partly typed
        settings.CELERY_BROKER_URL,
        transport_options=options,
        connect_timeout=BROKER_TIMEOUT_SECONDS,
    ) as broker:
        broker.ensure_connection(max_retries=1, interval_start=0, interval_step=0)
        yield broker


def check_broker() -> Check:
    # The URL is never shown: it may carry a password.
    scheme = _broker_scheme()
    try:
        with broker_connection():
            pass
    except (KombuError, OSError) as error:
        return Check("broker", False, f"{scheme}: {type(error).__name__}: {error}")
    return Check("broker", True, scheme)


def check_storage() -> Check:
    """The default storage answers (a lookup; nothing written)."""
    try:
        if isinstance(default_storage, FileSystemStorage):
            # Made as a save would, so a fresh install is ready before its first upload.
            os.makedirs(default_storage.location, exist_ok=True)
            if not os.access(default_storage.location, os.W_OK):
                raise PermissionError(f"this process cannot write to {default_storage.location}")
        default_storage.exists("readyz-probe")
    except Exception as error:  # any backend's error: S3's, the database's, the disk's
        return Check("storage", False, f"{type(error).__name__}: {error}")
    return Check("storage", True, type(default_storage).__name__)


def queue_names() -> list[str]:
    return [queue.name for queue in settings.CELERY_TASK_QUEUES]


def queue_depths(broker: Connection) -> dict[str, int]:
    """Messages waiting in each of the platform's queues (not those a worker holds).

    A passive declare answers the count on Redis (every priority's list) and RabbitMQ
    alike; a queue the broker does not have yet (Redis drops an empty one) holds none.
    """
    depths: dict[str, int] = {}
    for name in queue_names():
        channel = broker.channel()  # type: ignore[no-untyped-call]
        try:
            depths[name] = int(channel.queue_declare(queue=name, passive=True).message_count)
        except broker.channel_errors:
            depths[name] = 0
        finally:
            channel.close()
    return depths
