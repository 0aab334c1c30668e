"""The sweep of orphaned files: stored files that no row names.

A file is written to the default storage before the transaction that records
its name commits; a process killed in between (SIGKILL, OOM, a lost machine)
leaves a file nothing names and nothing removes. This sweep lists the folders
the platform writes, keeps every name a row references and the storage
check's marker, and deletes the rest once older than
``ARENA_ORPHAN_GRACE_SECONDS`` (a file whose transaction has not committed yet
is young, so it is never taken).

Safe with millions of rows: files are checked against the database a batch
at a time, first through an indexed key the name carries (a log's match or
table id, the code's SHA-256), then the few left over against every column
naming a file, before anything is deleted.

The database storage holds no orphan code or logs: those blobs are rows of
the same transaction as the rows naming them. Built programs and the storage
check's objects are written outside any transaction, so their folders are
swept there too, with the age read in SQL.

This app imports none of the others: their models are found by label.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.apps import apps
from django.conf import settings
from django.core.files.storage import Storage
from django.db import models
from django.utils import timezone

from arena.blobs.storage_check import CHECK_FOLDER, default, marker_name

from .models import Blob, StorageIdentity
from .storage import DatabaseStorage

log = logging.getLogger(__name__)

BATCH = 1000

# Every folder the platform writes, and the indexed key its names carry, if any.
CODE, BUILDS, MATCH_LOGS, TABLE_LOGS = "bots/code", "bots/builds", "matches/logs", "tables/logs"
FOLDERS = (CODE, BUILDS, MATCH_LOGS, TABLE_LOGS, CHECK_FOLDER)
# Written in the same transaction as their row: no orphans in the database storage.
IN_TRANSACTION = frozenset({CODE, MATCH_LOGS, TABLE_LOGS})
# Columns naming stored files that are not FileFields (every FileField is found by itself).
NAME_COLUMNS = (("bots.BotVersion", "build"),)

_LEADING_ID = re.compile(r"(\d+)")
_SHA256 = re.compile(r"[0-9a-f]{64}")


@dataclass
class SweepResult:
    scanned: int = 0
    deleted: int = 0
    bytes: int = 0
    kept_young: int = 0


def name_columns() -> list[tuple[type[models.Model], str]]:
    columns = [
        (model, f.name)
        for model in apps.get_models()
        for f in model._meta.get_fields()
        if isinstance(f, models.FileField)
    ]
    columns += [(apps.get_model(label), name) for label, name in NAME_COLUMNS]
    return columns


def _referenced(names: list[str], columns: list[tuple[type[models.Model], str]]) -> set[str]:
    """The names some row of any column references (an unindexed look-up: the few left over)."""
    found: set[str] = set()
    for model, column in columns:
        found.update(
            model._default_manager.filter(**{f"{column}__in": names}).values_list(column, flat=True)
        )
    return found


def _by_id(label: str, column: str, names: list[str]) -> set[str]:
    ids = {int(m.group(1)) for n in names if (m := _LEADING_ID.match(n.rpartition("/")[2]))}
    model = apps.get_model(label)
    return set(model._default_manager.filter(pk__in=ids).values_list(column, flat=True))


def _quickly_referenced(folder: str, names: list[str]) -> set[str]:
    """Names of ``folder`` that rows reference, found through an index."""
    if folder == MATCH_LOGS:
        return _by_id("matches.Match", "log", names)
    if folder == TABLE_LOGS:
        return _by_id("tables.Table", "log", names)
    if folder == CODE:
        shas = {m.group(0) for n in names if (m := _SHA256.match(n.rpartition("/")[2]))}
        versions = apps.get_model("bots.BotVersion")._default_manager
        return set(versions.filter(code_sha256__in=shas).values_list("code", flat=True))
    if folder == CHECK_FOLDER:
        token = StorageIdentity.objects.filter(pk=1).values_list("token", flat=True).first()
        return {marker_name(token)} if token else set()
    return set()  # built programs: few rows, checked with the rest


def walk(storage: Storage, folder: str) -> Iterator[str]:
    try:
        folders, files = storage.listdir(folder)
    except FileNotFoundError:  # FileSystemStorage before anything was written there
        return
    yield from (f"{folder}/{name}" for name in files)
    for sub in folders:
        yield from walk(storage, f"{folder}/{sub}")


def _batches(names: Iterable[str]) -> Iterator[list[str]]:
    batch: list[str] = []
    for name in names:
        batch.append(name)
        if len(batch) == BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


def _age_of(storage: Storage) -> Callable[[str], datetime]:
    """How the storage tells a file's age (one telling neither raises NotImplementedError)."""

    def modified(name: str) -> datetime:
        try:
            return storage.get_modified_time(name)
        except NotImplementedError:
            return storage.get_created_time(name)

    return modified


def storage_sweep(
    *,
    grace: timedelta | None = None,
    dry_run: bool = False,
    storage: Storage | None = None,
    on_orphan: Callable[[str, int], None] | None = None,
) -> SweepResult:
    """Delete the default storage's files that no row names, older than ``grace``.

    ``grace`` defaults to ARENA_ORPHAN_GRACE_SECONDS. ``dry_run`` deletes
    nothing. ``on_orphan(name, size)`` hears of each file deleted (or that
    would be).
    """
    storage = storage or default()
    grace = grace if grace is not None else timedelta(seconds=settings.ARENA_ORPHAN_GRACE_SECONDS)
    cutoff = timezone.now() - grace
    columns = name_columns()
    result = SweepResult()

    def doomed(name: str, size: int) -> None:
        result.deleted += 1
        result.bytes += size
        if on_orphan is not None:
            on_orphan(name, size)

    if isinstance(storage, DatabaseStorage):
        for folder in FOLDERS:
            if folder not in IN_TRANSACTION:
                _sweep_blobs(folder, cutoff, columns, dry_run, result, doomed)
    else:
        age = _age_of(storage)
        for folder in FOLDERS:
            for batch in _batches(walk(storage, folder)):
                result.scanned += len(batch)
                quick = _quickly_referenced(folder, batch)
                old = []
                for name in batch:
                    if name in quick:
                        continue
                    try:
                        young = age(name) >= cutoff
                    except FileNotFoundError:  # deleted since listed
                        continue
                    if young:
                        result.kept_young += 1
                    else:
                        old.append(name)
                if not old:
                    continue
                referenced = _referenced(old, columns)
                for name in old:
                    # Read again just before deleting: a retried match's log may have just
                    # been written again under its name.
                    if name in referenced:
                        continue
                    try:
                        if age(name) >= cutoff:
                            continue
                        size = storage.size(name)
                    except FileNotFoundError:
                        continue
                    if not dry_run:
                        storage.delete(name)
                    doomed(name, size)
    log.info(
        "storage sweep%s: %s orphaned files (%s bytes) %s, %s files checked, %s too young",
        " (dry run)" if dry_run else "",
        result.deleted,
        result.bytes,
        "would go" if dry_run else "deleted",
        result.scanned,
        result.kept_young,
    )
    return result


def _sweep_blobs(
    folder: str,
    cutoff: datetime,
    columns: list[tuple[type[models.Model], str]],
    dry_run: bool,
    result: SweepResult,
    doomed: Callable[[str, int], None],
) -> None:
    """The database storage: old blobs of ``folder`` a batch at a time, by name."""
    after = ""
    while True:
        rows = list(
            Blob.objects.filter(name__startswith=f"{folder}/", name__gt=after)
            .order_by("name")
            .values_list("name", "created_at", "size")[:BATCH]
        )
        if not rows:
            return
        after = rows[-1][0]
        result.scanned += len(rows)
        names = [name for name, created, _ in rows if created < cutoff]
        result.kept_young += len(rows) - len(names)
        if not names:
            continue
        quick = _quickly_referenced(folder, names)
        left = [n for n in names if n not in quick]
        referenced = _referenced(left, columns) if left else set()
        orphans = [n for n in left if n not in referenced]
        if not orphans:
            continue
        # The age again in the statement itself: a blob written again meanwhile stays.
        gone = Blob.objects.filter(name__in=orphans, created_at__lt=cutoff)
        sizes = dict(gone.values_list("name", "size"))
        if not dry_run:
            gone.filter(name__in=list(sizes)).delete()
        for name in orphans:
            if name in sizes:
                doomed(name, sizes[name])
