"""Can this host use the platform's shared storage? Checked when a worker starts.

Bot code and match logs go through Django's default storage, and every host
must see the same one: a worker with a disk of its own would void every match
it takes (the code is not there) and write logs the web cannot serve. Two
checks, both against the default storage:

1. **usable**: write a probe object, read it back, delete it;
2. **shared**: the database records the platform's storage once
   (:class:`arena.blobs.models.StorageIdentity`: a random token, also written
   to that storage as a marker object by the first host checked); a storage
   without the marker holding that token is not the one the other hosts use.

Run by every worker at start-up (``arena.celery``, which refuses to start on
failure), by ``manage.py check_storage`` (an operator testing a host; the
``--claim`` option records this host's storage as the platform's after a
move) and by ``scripts/services.sh`` before the web starts.
"""

from __future__ import annotations

import getpass
import os
import secrets
import socket
from dataclasses import dataclass

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import FileSystemStorage, Storage, storages
from django.db import IntegrityError, transaction
from django.utils import timezone

from arena.blobs.models import StorageIdentity
from arena.blobs.storage import DatabaseStorage

# Probe and marker objects live under this folder of the storage.
CHECK_FOLDER = "storage-check"
DATABASE_STORAGE = "arena.blobs.storage.DatabaseStorage"


class StorageCheckError(Exception):
    """This host cannot use the platform's shared storage; the message says how to fix it."""


@dataclass(frozen=True)
class StorageCheck:
    storage: str
    recorded_by: str
    claimed: bool

    def __str__(self) -> str:
        if self.claimed:
            return f"storage check passed: {self.storage} is now recorded as the platform's storage"
        return (
            f"storage check passed: {self.storage} is the platform's shared storage "
            f"(recorded by {self.recorded_by})"
        )


def default() -> Storage:
    """The configured default storage itself (``default_storage`` is a lazy proxy of it)."""
    return storages["default"]


def archive() -> Storage:
    """The archive storage: old match logs (settings.STORAGES["archive"])."""
    return storages["archive"]


def describe(storage: Storage) -> str:
    """The storage as an operator configured it: backend and where it keeps files."""
    if isinstance(storage, FileSystemStorage):
        return f"FileSystemStorage at {storage.location}"
    if isinstance(storage, DatabaseStorage):
        db = settings.DATABASES["default"]
        where = f" at {db['HOST']}:{db.get('PORT') or 5432}" if db.get("HOST") else ""
        return f"DatabaseStorage in the database {db['NAME']}{where}"
    name = type(storage).__name__
    bucket = getattr(storage, "bucket_name", None)
    return f"{name} bucket {bucket}" if bucket else f"{type(storage).__module__}.{name}"


def _this_host(role: str) -> str:
    return f"{role} on {socket.gethostname()} (pid {os.getpid()})"


def _unusable_fix(storage: Storage) -> str:
    if isinstance(storage, FileSystemStorage):
        return (
            f"make MEDIA_ROOT ({storage.location}) a folder that {getpass.getuser()} can write, "
            f"or set STORAGE_BACKEND={DATABASE_STORAGE} (the default) to keep files in the database"
        )
    if isinstance(storage, DatabaseStorage):
        return (
            "check that DATABASE_URL reaches the platform's database and that "
            "`python manage.py migrate` ran there"
        )
    return "check STORAGE_BACKEND and STORAGE_OPTIONS (bucket, endpoint, credentials)"


def _probe(storage: Storage, role: str) -> None:
    """Write, read back and delete an object: refuse with the step that failed."""
    data = secrets.token_bytes(64)
    name = f"{CHECK_FOLDER}/probe-{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(4)}"
    step = "writing a probe object"
    try:
        name = storage.save(name, ContentFile(data))
        step = "reading the probe object back"
        with storage.open(name, "rb") as handle:
            if handle.read() != data:
                raise OSError("it read back different bytes than were written")
        step = "deleting the probe object"
        storage.delete(name)
        if storage.exists(name):
            raise OSError("it still exists after delete()")
    except Exception as error:
        raise StorageCheckError(
            f"this {role} cannot use its storage {describe(storage)}: {step} ({name}) failed: "
            f"{type(error).__name__}: {error}. Fix: {_unusable_fix(storage)}."
        ) from error


def probe_storage(*, storage: Storage | None = None, role: str = "host") -> None:
    """Write, read back and delete a probe object in ``storage`` (the default one);
    StorageCheckError names the step that failed (the retry sweep's storage probe)."""
    _probe(storage or default(), role)


def marker_name(token: str) -> str:
    return f"{CHECK_FOLDER}/identity-{token}"


def _holds_marker(storage: Storage, token: str) -> bool:
    name = marker_name(token)
    if not storage.exists(name):
        return False
    with storage.open(name, "rb") as handle:
        return bool(handle.read() == token.encode())


def _write_marker(storage: Storage, token: str) -> None:
    stored = storage.save(marker_name(token), ContentFile(token.encode()))
    if stored != marker_name(token):
        storage.delete(stored)
        raise StorageCheckError(f"the storage marker {marker_name(token)} exists already")


def _not_shared(storage: Storage, role: str, identity: StorageIdentity) -> StorageCheckError:
    elsewhere = (
        "point MEDIA_ROOT at the filesystem the other hosts share"
        if isinstance(storage, FileSystemStorage)
        else "point STORAGE_BACKEND and STORAGE_OPTIONS at the storage the other hosts use"
    )
    return StorageCheckError(
        f"this {role}'s storage {describe(storage)} is not the storage the platform's other "
        f"hosts share: it lacks the marker {marker_name(identity.token)} that the "
        f"{identity.host} wrote to its storage, {identity.storage}, on "
        f"{identity.created_at:%Y-%m-%d %H:%M} UTC; bot code and match logs stored by one host "
        f"would be missing on the other. Fix: set STORAGE_BACKEND to the database storage "
        f"({DATABASE_STORAGE}, the default) on every host, or {elsewhere}. If this storage is "
        "the platform's from now on (it moved), run `python manage.py check_storage --claim` "
        "on this host."
    )


def check_storage(*, role: str = "host", storage: Storage | None = None) -> StorageCheck:
    """Refuse (StorageCheckError) unless ``storage`` (the default one) works and is shared.

    The first host ever checked records its storage as the platform's.
    ``role`` names this process in the messages ("worker", "web", "host").
    """
    storage = storage or default()
    _probe(storage, role)
    identity = StorageIdentity.objects.filter(pk=1).first()
    if identity is None:
        token = secrets.token_hex(16)
        _write_marker(storage, token)
        try:
            with transaction.atomic():
                identity = StorageIdentity.objects.create(
                    pk=1, token=token, storage=describe(storage), host=_this_host(role)
                )
        except IntegrityError:
            # Another host recorded its storage first: check ours against it.
            storage.delete(marker_name(token))
            identity = StorageIdentity.objects.get(pk=1)
        else:
            return StorageCheck(describe(storage), identity.host, claimed=True)
    if not _holds_marker(storage, identity.token):
        raise _not_shared(storage, role, identity)
    return StorageCheck(describe(storage), identity.host, claimed=False)


def claim_storage(*, role: str = "host", storage: Storage | None = None) -> StorageCheck:
    """Record this host's storage as the platform's (after moving the files to it).

    Every host whose storage lacks the new marker refuses to start from then on.
    """
    storage = storage or default()
    _probe(storage, role)
    token = secrets.token_hex(16)
    _write_marker(storage, token)
    with transaction.atomic():
        previous = StorageIdentity.objects.select_for_update().filter(pk=1).first()
        StorageIdentity.objects.update_or_create(
            pk=1,
            defaults={
                "token": token,
                "storage": describe(storage),
                "host": _this_host(role),
                "created_at": timezone.now(),
            },
        )
    if previous is not None and previous.token != token:
        storage.delete(marker_name(previous.token))
    return StorageCheck(describe(storage), _this_host(role), claimed=True)
