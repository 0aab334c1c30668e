"""Backups of a whole platform, and their restore into an empty one.

A backup is one tar file:

- ``manifest.json``: when and from what it was made, every table's row count,
  the migrations applied, the stored files' count and bytes;
- the database as its own engine dumps it: ``database.pgdump`` (``pg_dump``'s
  custom format) for PostgreSQL, ``database.sqlite3`` (SQLite's online backup)
  for the embedded default;
- ``files/<name>``: every file of the platform's folders, where the storage is
  not the database (the database storage's files are rows of the dump);
- ``archive/<name>``: the archive storage's files (old match logs).

The dump and the counts are one snapshot: on PostgreSQL the counts are read in
a transaction whose snapshot ``pg_dump --snapshot`` dumps, so a platform that
plays on meanwhile gives a backup whose manifest matches its dump exactly. The
files are copied after the snapshot: a file is written before the row naming
it commits, so every file the dump names is there (a newer one is an orphan
the storage sweep removes later).

A restore goes into an empty database and an empty storage only (it refuses
anything else, before writing), files first and then the database in one
transaction; a failure removes what it wrote. It then checks that every
table has the manifest's count and that every file a row names can be read.
The backup's migrations must be known to the code restoring it; older ones
are brought up with ``manage.py migrate`` afterwards (docs/deploy.md, *Upgrades*).

This app imports none of the others: tables and file columns are found generically.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import sqlite3
import subprocess
import tarfile
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

from django.core.files import File
from django.core.files.storage import Storage
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.loader import MigrationLoader
from django.utils import timezone

from .models import Blob
from .storage import DatabaseStorage
from .storage_check import archive as archive_storage
from .storage_check import default, describe
from .sweep import FOLDERS, name_columns, walk

#: The backup file's layout version: a restore refuses a layout it does not know.
FORMAT = 1
MANIFEST = "manifest.json"
PG_DUMP = "database.pgdump"
SQLITE_COPY = "database.sqlite3"
FILES = "files/"
ARCHIVE = "archive/"
#: Names checked against the storage at once.
_BATCH = 1000


class BackupError(Exception):
    """A backup or restore that cannot be made; the message says why and what to do."""


@dataclass
class Manifest:
    """What a backup holds, to check a restore against."""

    format: int
    created_at: str
    engine: str
    #: The storage's class path; files are in the backup unless it is the database's.
    storage: str
    files_in_database: bool
    #: Every table's rows, in the dumped snapshot.
    tables: dict[str, int]
    #: The migrations applied, ``app.name``.
    migrations: list[str]
    files: int = 0
    file_bytes: int = 0
    archive_files: int = 0
    #: Files the rows name, and how many of them were missing at the backup.
    named_files: int = 0
    missing_files: list[str] = field(default_factory=list)

    def to_json(self) -> bytes:
        return json.dumps(asdict(self), indent=2, sort_keys=True).encode()

    @classmethod
    def from_json(cls, data: bytes) -> Manifest:
        raw = json.loads(data)
        if raw.get("format") != FORMAT:
            raise BackupError(
                f"this backup's layout is {raw.get('format')!r}, this release reads {FORMAT}: "
                "restore it with the release that made it."
            )
        return cls(**raw)


def _engine() -> str:
    vendor = connection.vendor
    if vendor not in ("postgresql", "sqlite"):
        raise BackupError(f"backups cover PostgreSQL and SQLite, not {vendor}.")
    return vendor


def _storage_class(storage: Storage) -> str:
    return f"{type(storage).__module__}.{type(storage).__qualname__}"


def _applied_migrations(cursor: Any) -> list[str]:
    cursor.execute("SELECT app, name FROM django_migrations ORDER BY app, name")
    return [f"{app}.{name}" for app, name in cursor.fetchall()]


def _table_counts(cursor: Any, tables: list[str]) -> dict[str, int]:
    """Each table's rows, through ``cursor`` (Django's, or sqlite3's on a copy)."""
    counts = {}
    for table in sorted(tables):
        cursor.execute(f'SELECT COUNT(*) FROM "{table}"')  # a catalogue's name
        counts[table] = cursor.fetchone()[0]
    return counts


def _named_files() -> Iterator[str]:
    """Every file name a row stores (each once per column)."""
    for model, column in name_columns():
        names = (
            model._default_manager.exclude(**{column: ""})
            .exclude(**{f"{column}__isnull": True})
            .values_list(column, flat=True)
            .distinct()
            .iterator()
        )
        yield from names


def _missing(names: list[str], storage: Storage) -> list[str]:
    """Of ``names``, those in neither ``storage`` nor the archive (old match logs)."""
    if isinstance(storage, DatabaseStorage):
        found = set(Blob.objects.filter(name__in=names).values_list("name", flat=True))
        absent = [name for name in names if name not in found]
    else:
        absent = [name for name in names if not storage.exists(name)]
    return [name for name in absent if not archive_storage().exists(name)]


def missing_files(storage: Storage | None = None) -> tuple[int, list[str]]:
    """How many files the rows name, and those the storage lacks."""
    storage = storage or default()
    named, missing, batch = 0, [], []
    for name in _named_files():
        named += 1
        batch.append(name)
        if len(batch) == _BATCH:
            missing += _missing(batch, storage)
            batch = []
    if batch:
        missing += _missing(batch, storage)
    return named, missing


def _pg_environment() -> dict[str, str]:
    """libpq's variables for the platform's database (its password never on a command line)."""
    db = connection.settings_dict
    env = dict(os.environ)
    for key, variable in (
        ("HOST", "PGHOST"),
        ("PORT", "PGPORT"),
        ("USER", "PGUSER"),
        ("PASSWORD", "PGPASSWORD"),
        ("NAME", "PGDATABASE"),
    ):
        if db.get(key):
            env[variable] = str(db[key])
    return env


def _pg_tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise BackupError(
            f"{name} is not installed on this host: install PostgreSQL's client tools "
            "(Debian: apt-get install postgresql-client), of the server's major version or newer."
        )
    return found


def _run(command: list[str], what: str) -> None:
    done = subprocess.run(
        command, env=_pg_environment(), capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise BackupError(f"{what} failed (exit status {done.returncode}): {done.stderr.strip()}")


@contextmanager
def _partial(path: Path) -> Iterator[Path]:
    """Write ``path`` under a temporary name beside it, renamed once whole."""
    partial = path.with_name(f".{path.name}.partial")
    try:
        yield partial
        os.replace(partial, path)
    finally:
        with suppress(FileNotFoundError):
            partial.unlink()


def _add(archive: tarfile.TarFile, name: str, source: IO[bytes], size: int) -> None:
    info = tarfile.TarInfo(name)
    info.size = size
    info.mtime = int(timezone.now().timestamp())
    info.mode = 0o600
    archive.addfile(info, source)


def _add_bytes(archive: tarfile.TarFile, name: str, data: bytes) -> None:
    _add(archive, name, io.BytesIO(data), len(data))


def _add_path(archive: tarfile.TarFile, name: str, path: Path) -> None:
    with path.open("rb") as source:
        _add(archive, name, source, path.stat().st_size)


def _dump_postgres(work: Path) -> Manifest:
    """The counts and the dump of one snapshot: this transaction exports it, pg_dump reads it."""
    pg_dump = _pg_tool("pg_dump")
    dump = work / PG_DUMP
    with connection.cursor() as cursor:
        cursor.execute("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        try:
            cursor.execute("SELECT pg_export_snapshot()")
            snapshot = cursor.fetchone()[0]
            tables = connection.introspection.table_names(cursor)
            manifest = _manifest("postgresql", counts=_table_counts(cursor, tables), cursor=cursor)
            _run(
                [
                    pg_dump,
                    "--format=custom",
                    "--no-owner",
                    "--no-privileges",
                    f"--snapshot={snapshot}",
                    f"--file={dump}",
                ],
                "pg_dump",
            )
        finally:
            cursor.execute("ROLLBACK")
    return manifest


def _dump_sqlite(work: Path) -> Manifest:
    """SQLite's online backup (a consistent copy), counted from the copy itself."""
    copy = work / SQLITE_COPY
    connection.ensure_connection()
    target = sqlite3.connect(copy)
    try:
        connection.connection.backup(target)
        cursor = target.cursor()
        # The tables Django's introspection lists on SQLite (its own bookkeeping aside).
        cursor.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name != 'sqlite_sequence'"
        )
        tables = [name for (name,) in cursor.fetchall()]
        return _manifest("sqlite", counts=_table_counts(cursor, tables), cursor=cursor)
    finally:
        target.close()


def _manifest(engine: str, *, counts: dict[str, int], cursor: Any) -> Manifest:
    storage = default()
    named, missing = missing_files(storage)
    return Manifest(
        format=FORMAT,
        created_at=timezone.now().isoformat(),
        engine=engine,
        storage=_storage_class(storage),
        files_in_database=isinstance(storage, DatabaseStorage),
        tables=counts,
        migrations=_applied_migrations(cursor),
        named_files=named,
        missing_files=missing[:20],
    )


def backup(path: Path, *, files: bool = True) -> Manifest:
    """Write the platform's backup to ``path`` (a tar file; replaced only once whole).

    ``files=False`` leaves the storage's files out where they are not in the
    database (a bucket backed up by its own means).
    """
    engine = _engine()
    storage = default()
    if path.is_dir():
        raise BackupError(f"{path} is a folder: name the backup file, e.g. {path}/arena.tar.")
    if not path.parent.is_dir():
        raise BackupError(f"{path.parent} does not exist: create it, or name another folder.")
    with tempfile.TemporaryDirectory(prefix="arena-backup-", dir=path.parent) as tmp:
        work = Path(tmp)
        manifest = _dump_postgres(work) if engine == "postgresql" else _dump_sqlite(work)
        with _partial(path) as partial, tarfile.open(partial, "w") as archive:
            if not manifest.files_in_database and files:
                for folder in FOLDERS:
                    for name in walk(storage, folder):
                        with storage.open(name, "rb") as source:
                            size = storage.size(name)
                            _add(archive, FILES + name, source, size)
                        manifest.files += 1
                        manifest.file_bytes += size
            if files:
                cold = archive_storage()
                for folder in FOLDERS:
                    for name in walk(cold, folder):
                        with cold.open(name, "rb") as source:
                            _add(archive, ARCHIVE + name, source, cold.size(name))
                        manifest.archive_files += 1
            dump = PG_DUMP if engine == "postgresql" else SQLITE_COPY
            _add_path(archive, dump, work / dump)
            # Last: a reader finds the manifest once everything it describes is there.
            _add_bytes(archive, MANIFEST, manifest.to_json())
    return manifest


# --------------------------------------------------------------------------- restore


@dataclass
class Restored:
    manifest: Manifest
    files: int
    #: Migrations of this release the backup had not applied: ``manage.py migrate`` next.
    pending_migrations: list[str]


def read_manifest(archive: tarfile.TarFile) -> Manifest:
    try:
        member = archive.extractfile(MANIFEST)
    except KeyError:
        raise BackupError(
            "this file holds no manifest.json: it is not a platform backup, or its writing "
            "did not finish (a backup is renamed into place only once whole)."
        ) from None
    assert member is not None
    return Manifest.from_json(member.read())


def _known_migrations() -> set[str]:
    loader = MigrationLoader(None, ignore_no_migrations=True)
    return {f"{app}.{name}" for app, name in loader.disk_migrations}


def _check_target(manifest: Manifest, storage: Storage, restore_files: bool) -> None:
    engine = _engine()
    if manifest.engine != engine:
        raise BackupError(
            f"this backup is of a {manifest.engine} database and this platform's is {engine}: "
            f"point DATABASE_URL at an empty {manifest.engine} database."
        )
    unknown = sorted(set(manifest.migrations) - _known_migrations())
    if unknown:
        raise BackupError(
            f"the backup was made by a newer release: its migrations {', '.join(unknown[:5])} "
            "are unknown here. Restore it with that release's code (or a newer one)."
        )
    tables = connection.introspection.table_names()
    if tables:
        raise BackupError(
            f"the database {connection.settings_dict['NAME']} is not empty ({len(tables)} tables): "
            "restore into an empty database (create one and point DATABASE_URL at it)."
        )
    targets = [archive_storage()] if manifest.archive_files else []
    if not manifest.files_in_database:
        targets.append(storage)
    for target in targets if restore_files else []:
        for folder in FOLDERS:
            for name in walk(target, folder):
                raise BackupError(
                    f"the storage {describe(target)} is not empty (it holds {name}): restore "
                    "into an empty storage (a new folder or bucket)."
                )


def _restore_files(
    archive: tarfile.TarFile, places: dict[str, Storage], written: list[tuple[Storage, str]]
) -> None:
    """Each ``files/`` and ``archive/`` member into the storage ``places`` names for it."""
    for member in archive:
        prefix = next((p for p in places if member.name.startswith(p)), None)
        if prefix is None or not member.isfile():
            continue
        storage, name = places[prefix], member.name.removeprefix(prefix)
        source = archive.extractfile(member)
        assert source is not None
        stored = storage.save(name, File(source, name=name))
        written.append((storage, stored))
        if stored != name:
            raise BackupError(f"{name} was stored as {stored}: another process writes there.")


def _copy_member(archive: tarfile.TarFile, name: str, path: Path) -> None:
    """The regular file ``name`` of the backup to ``path`` (never a link it might be)."""
    try:
        source = archive.extractfile(name)
    except KeyError:
        source = None
    if source is None:
        raise BackupError(f"the backup holds no file {name}: it is incomplete.")
    with source, path.open("wb") as target:
        shutil.copyfileobj(source, target)


def _restore_postgres(archive: tarfile.TarFile, work: Path) -> None:
    pg_restore = _pg_tool("pg_restore")
    _copy_member(archive, PG_DUMP, work / PG_DUMP)
    connection.close()
    _run(
        [
            pg_restore,
            "--no-owner",
            "--no-privileges",
            "--exit-on-error",
            "--single-transaction",
            f"--dbname={connection.settings_dict['NAME']}",
            str(work / PG_DUMP),
        ],
        "pg_restore",
    )


def _restore_sqlite(archive: tarfile.TarFile, work: Path) -> None:
    _copy_member(archive, SQLITE_COPY, work / SQLITE_COPY)
    target = Path(connection.settings_dict["NAME"])
    connection.close()
    copy = work / SQLITE_COPY
    # Beside the target, then renamed over it: the database appears whole or not at all.
    with _partial(target) as partial:
        shutil.copyfile(copy, partial)


def _verify(manifest: Manifest, storage: Storage) -> None:
    with connection.cursor() as cursor:
        counts = _table_counts(cursor, connection.introspection.table_names(cursor))
    wrong = {
        table: (rows, counts.get(table))
        for table, rows in manifest.tables.items()
        if counts.get(table) != rows
    }
    if wrong:
        listed = ", ".join(f"{t} {want} -> {got}" for t, (want, got) in sorted(wrong.items())[:5])
        raise BackupError(f"the restored tables do not match the backup's counts: {listed}.")
    named, missing = missing_files(storage)
    new_missing = sorted(set(missing) - set(manifest.missing_files))
    if named != manifest.named_files or new_missing:
        raise BackupError(
            f"the restored rows name {named} files (the backup's {manifest.named_files}), "
            f"{len(missing)} of them missing, e.g. {', '.join(new_missing[:5])}."
        )


def restore(path: Path, *, files: bool = True) -> Restored:
    """Restore the backup at ``path`` into this platform's empty database and storage.

    ``files=False``: the storage's files were restored by other means (a bucket).
    """
    storage = default()
    if not path.is_file():
        raise BackupError(f"{path} is not a file: give the backup file backup_platform wrote.")
    if not tarfile.is_tarfile(path):
        raise BackupError(f"{path} is not a platform backup (not a tar file).")
    written: list[tuple[Storage, str]] = []
    with tarfile.open(path) as archive, tempfile.TemporaryDirectory(prefix="arena-") as tmp:
        manifest = read_manifest(archive)
        _check_target(manifest, storage, files)
        try:
            if files:
                places = {ARCHIVE: archive_storage()}
                if not manifest.files_in_database:
                    places[FILES] = storage
                _restore_files(archive, places, written)
            if manifest.engine == "postgresql":
                _restore_postgres(archive, Path(tmp))
            else:
                _restore_sqlite(archive, Path(tmp))
        except BaseException:
            for place, name in written:
                place.delete(name)
            raise
    _verify(manifest, storage)
    executor = MigrationExecutor(connection)
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    pending = [f"{migration.app_label}.{migration.name}" for migration, _ in plan]
    return Restored(manifest=manifest, files=len(written), pending_migrations=pending)
