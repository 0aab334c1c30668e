"""Old match logs move from the default storage (the database, by default) to the
archive storage, a batch at a time; a match keeps its name for the log, and reads find
it in either place (``selectors.match_log_read``).

Each log is copied, checked by size, removed from the default storage, then marked
archived; a run cut short anywhere leaves every log readable (the reader falls back
to the other storage) and the next run finishes it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from django.core.files.base import ContentFile
from django.db.models import Q

from arena.blobs.storage_check import archive, default

from ..models import Match, MatchStatus

log = logging.getLogger(__name__)

BATCH = 200


@dataclass
class ArchiveResult:
    matches: int = 0
    bytes: int = 0


class ArchiveError(Exception):
    """A log that cannot be archived as it is (a copy that differs)."""


def _archive_one(name: str) -> int:
    """Copy ``name`` to the archive (unless there already) and remove it from the default
    storage; returns its size."""
    source, target = default(), archive()
    if not target.exists(name):
        with source.open(name, "rb") as handle:
            data = handle.read()
        stored = target.save(name, ContentFile(data))
        if stored != name:
            target.delete(stored)
            raise ArchiveError(f"the archive stored {name} as {stored}")
    size = int(target.size(name))
    if source.exists(name):
        if source.size(name) != size:
            raise ArchiveError(f"the archived copy of {name} differs from the log ({size} bytes)")
        source.delete(name)
    return size


def match_logs_archive(*, finished_before: datetime, dry_run: bool = False) -> ArchiveResult:
    """Move the logs of matches that ended before ``finished_before`` to the archive."""
    result = ArchiveResult()
    due = (
        Match.objects.filter(finished_at__lt=finished_before, log_archived=False)
        .exclude(Q(log="") | Q(status__in=(MatchStatus.QUEUED, MatchStatus.RUNNING)))
        .order_by("pk")
    )
    after = 0
    while batch := list(due.filter(pk__gt=after).values_list("pk", "log", "log_size")[:BATCH]):
        after = batch[-1][0]
        done = []
        for pk, name, size in batch:
            if dry_run:
                result.matches += 1
                result.bytes += size or 0
                continue
            try:
                result.bytes += _archive_one(name)
            except (OSError, ArchiveError) as error:
                log.warning("could not archive the log of match %s: %s", pk, error)
                continue
            done.append(pk)
            result.matches += 1
        Match.objects.filter(pk__in=done).update(log_archived=True)
    log.info(
        "log archive%s: %s logs (%s bytes) %s",
        " (dry run)" if dry_run else "",
        result.matches,
        result.bytes,
        "would move" if dry_run else "moved",
    )
    return result
