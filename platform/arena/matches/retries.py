"""What a failed attempt failed on, and whether that resource answers again.

A failure of ours is retried as soon as the resource it failed on answers:
:func:`fault_of` names the resource from the exception, :func:`resource_answers`
probes it. The retry sweep (``services.matches_retry_waiting``) probes each
resource once per sweep for every match waiting on it. A probe runs on the
worker that runs the sweep: a fault of one host's own (its temp disk, its
sandbox) is probed on whichever worker runs it, and the cap on retries in
flight bounds what a wrong guess costs.
"""

from __future__ import annotations

import errno
import logging
import tempfile
from collections.abc import Iterator

from django.core.files.storage import Storage
from django.db import DatabaseError
from kombu.exceptions import OperationalError as BrokerError

from arena.bots.sandboxing import IsolationUnavailableError, LaunchError, isolation_problem
from bots_sdk.sandbox import SandboxError

from .models import AttemptFault

log = logging.getLogger(__name__)

# Errors of the host itself (memory, processes, descriptors), not of a disk: no
# storage probe tells when they pass.
_HOST_ERRNOS = frozenset({errno.ENOMEM, errno.EAGAIN, errno.EMFILE, errno.ENFILE})
# Libraries of remote storages (S3: django-storages on boto3).
_STORAGE_LIBRARIES = frozenset({"botocore", "boto3", "storages", "s3transfer"})


def _chain(error: BaseException) -> Iterator[BaseException]:
    """``error`` and the errors it was raised from or while handling, outermost first."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def fault_of(error: BaseException) -> AttemptFault:
    """The resource a failed attempt failed on, from its exception."""
    for link in _chain(error):
        if isinstance(link, IsolationUnavailableError | LaunchError | SandboxError):
            return AttemptFault.SANDBOX
        if isinstance(link, DatabaseError):
            return AttemptFault.DATABASE
        if isinstance(link, BrokerError):
            return AttemptFault.BROKER
        if isinstance(link, OSError):
            return AttemptFault.OTHER if link.errno in _HOST_ERRNOS else AttemptFault.STORAGE
        if type(link).__module__.partition(".")[0] in _STORAGE_LIBRARIES:
            return AttemptFault.STORAGE
    return AttemptFault.OTHER


def _database_answers() -> bool:
    # A write, read back and deleted: a database with a full disk still answers reads.
    from arena.blobs.storage import DatabaseStorage

    return _storage_answers(DatabaseStorage())


def _storage_answers(storage: Storage | None = None) -> bool:
    from arena.blobs.storage_check import StorageCheckError, probe_storage

    try:
        probe_storage(storage=storage, role="retry sweep")
    except StorageCheckError as error:
        log.info("retry probe: %s", error)
        return False
    return True


def _temp_answers() -> bool:
    """This host's temp folder takes a file (where bot code is written for a run)."""
    try:
        with tempfile.TemporaryFile(prefix="arena-probe-") as probe:
            probe.write(b"\0" * 4096)
            probe.flush()
    except OSError as error:
        log.info("retry probe: the temp folder %s: %s", tempfile.gettempdir(), error)
        return False
    return True


def _broker_answers() -> bool:
    # The platform's Celery app (arena/__init__ loads it), without importing arena.celery,
    # whose worker steps use this app's services.
    from celery import current_app

    try:
        with current_app.connection_for_write() as connection:
            connection.ensure_connection(max_retries=1)
    except (BrokerError, OSError) as error:
        log.info("retry probe: the broker: %s", error)
        return False
    return True


def _sandbox_answers() -> bool:
    problem = isolation_problem()
    if problem is not None:
        log.info("retry probe: %s", problem)
    return problem is None


def resource_answers(fault: AttemptFault) -> bool:
    """Whether the resource ``fault`` names answers now (from this worker).

    A lost worker needs no probe (another worker plays the match); a fault
    of unknown cause has none, and waits for its backoff.
    """
    if fault == AttemptFault.DATABASE:
        return _database_answers()
    if fault == AttemptFault.STORAGE:
        return _storage_answers() and _temp_answers()
    if fault == AttemptFault.BROKER:
        return _broker_answers()
    if fault == AttemptFault.SANDBOX:
        return _sandbox_answers()
    return fault == AttemptFault.WORKER_LOST
