"""The default storage of bot code and match logs: rows of the platform's own database.

Every host of the platform already shares its database, so files kept there
are shared with no extra server: a worker on a second machine reads the code
the web host stored and writes logs the web host serves. Sizes stay small
(code up to ``ARENA_UPLOAD_MAX_BYTES``, a few MB; gzip-compressed logs, a few
MB at most), well within a PostgreSQL ``bytea`` or an SQLite blob. Large
installs can use S3 instead (the ``s3`` extra: django-storages).

Our own on purpose: the libraries for this do not fit.
django-binary-database-files subclasses FileSystemStorage and mirrors every
file to the local disk, reads that copy first, and opens a missing file as an
empty one (a missing log would read as a truncated one, the very failure this
replaces); django-db-file-storage keeps base64 text in a table per file
field, named through the file name, and targets Django 3 at the latest. This
class is the Storage API on one table, typed, and nothing more.
"""

from __future__ import annotations

from datetime import datetime
from typing import IO, Any

from django.core.exceptions import ImproperlyConfigured, SuspiciousFileOperation
from django.core.files.base import ContentFile, File
from django.core.files.storage import Storage
from django.db import IntegrityError, transaction
from django.utils.deconstruct import deconstructible

from .models import Blob

# The name column's size: longer names are refused, alternative names are cut to fit.
NAME_MAX = Blob._meta.get_field("name").max_length or 255


@deconstructible(path="arena.blobs.storage.DatabaseStorage")
class DatabaseStorage(Storage):
    """Files as rows of :class:`arena.blobs.models.Blob` in the default database.

    Each save is one INSERT: inside a caller's transaction it commits or rolls
    back with the caller's rows (a match's log with its result), so a failed
    write leaves no half file behind. Names are unique; ``save`` never
    overwrites, it picks a free name as every Django storage does.
    """

    def __init__(self, **options: Any) -> None:
        if options:
            raise ImproperlyConfigured(
                f"STORAGE_OPTIONS {sorted(options)}: the database storage "
                "(arena.blobs.storage.DatabaseStorage) takes no options; unset STORAGE_OPTIONS, "
                "or set STORAGE_BACKEND to the backend these options are for."
            )

    def __str__(self) -> str:
        return "DatabaseStorage (the platform's database)"

    # ------------------------------------------------------------------ reading

    def _open(self, name: str, mode: str = "rb") -> File[Any]:
        if any(flag in mode for flag in "wax+"):
            raise ValueError(
                f"cannot open {name!r} with mode {mode!r}: the database storage opens files "
                "for reading only; write a new file with save()."
            )
        content = Blob.objects.filter(name=name).values_list("content", flat=True).first()
        if content is None:
            raise FileNotFoundError(f"no file {name!r} in the database storage")
        # PostgreSQL hands a bytea back as a memoryview.
        return ContentFile(bytes(content), name=name)

    def exists(self, name: str) -> bool:
        return Blob.objects.filter(name=name).exists()

    def size(self, name: str) -> int:
        size = Blob.objects.filter(name=name).values_list("size", flat=True).first()
        if size is None:
            raise FileNotFoundError(f"no file {name!r} in the database storage")
        return size

    def listdir(self, path: str) -> tuple[list[str], list[str]]:
        prefix = path.strip("/")
        prefix = f"{prefix}/" if prefix else ""
        directories: set[str] = set()
        files: list[str] = []
        names = Blob.objects.filter(name__startswith=prefix).values_list("name", flat=True)
        for name in names.iterator():
            head, slash, _rest = name.removeprefix(prefix).partition("/")
            if slash:
                directories.add(head)
            else:
                files.append(head)
        return sorted(directories), sorted(files)

    def get_created_time(self, name: str) -> datetime:
        created = Blob.objects.filter(name=name).values_list("created_at", flat=True).first()
        if created is None:
            raise FileNotFoundError(f"no file {name!r} in the database storage")
        return created

    # Files are written once and never changed: every time is the creation time.
    def get_modified_time(self, name: str) -> datetime:
        return self.get_created_time(name)

    def get_accessed_time(self, name: str) -> datetime:
        return self.get_created_time(name)

    def url(self, name: str | None) -> str:
        raise NotImplementedError(
            f"the database storage has no URL for {name!r}: bot code and match logs are "
            "private; read them with open() (the API serves logs at /api/matches/<id>/log/)."
        )

    # ------------------------------------------------------------------ writing

    def get_available_name(self, name: str, max_length: int | None = None) -> str:
        # Alternative names (name_abc1234.ext) must still fit the column.
        limit = NAME_MAX if max_length is None else min(max_length, NAME_MAX)
        return super().get_available_name(name, max_length=limit)

    def _save(self, name: str, content: IO[Any]) -> str:
        name = str(name).replace("\\", "/")
        if len(name) > NAME_MAX:
            raise SuspiciousFileOperation(
                f"cannot store {name[:60]!r}...: the name has {len(name)} characters, the "
                f"database storage takes at most {NAME_MAX}; use a shorter name."
            )
        data = b"".join(
            chunk if isinstance(chunk, bytes) else chunk.encode()
            for chunk in (content if isinstance(content, File) else File(content)).chunks()
        )
        while True:
            try:
                # A savepoint: a name taken meanwhile spoils no transaction of the caller.
                with transaction.atomic():
                    Blob.objects.create(name=name, content=data, size=len(data))
            except IntegrityError:
                # Another writer took the name between get_available_name and here
                # (PostgreSQL waited for its commit): pick another, as FileSystemStorage does.
                if not self.exists(name):
                    raise
                name = self.get_available_name(name)
                continue
            return name

    def delete(self, name: str) -> None:
        if not name:
            raise ValueError("The name must be given to delete().")
        # Missing is not an error: the same as FileSystemStorage.
        Blob.objects.filter(name=name).delete()
