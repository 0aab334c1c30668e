"""``manage.py archive_logs [--days N] [--dry-run]``: old match logs to the archive storage."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from arena.blobs.storage_check import archive, describe
from arena.matches.services import match_logs_archive


class Command(BaseCommand):
    help = (
        "Move the logs of matches older than --days (ARENA_MATCH_LOG_ARCHIVE_DAYS) from the "
        "default storage to the archive storage; pages and downloads read them there."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--days",
            type=int,
            default=settings.ARENA_MATCH_LOG_ARCHIVE_DAYS,
            help="matches that ended more than this many days ago (default: the setting)",
        )
        parser.add_argument("--dry-run", action="store_true", help="count, move nothing")

    def handle(self, *args: Any, **options: Any) -> None:
        days: int = options["days"]
        if days < 1:
            raise CommandError(
                "give --days N (1 or more), or set ARENA_MATCH_LOG_ARCHIVE_DAYS: logs of "
                "matches that ended more than N days ago move to the archive."
            )
        result = match_logs_archive(
            finished_before=timezone.now() - timedelta(days=days), dry_run=options["dry_run"]
        )
        verb = "would move" if options["dry_run"] else "moved"
        self.stdout.write(
            f"{verb} {result.matches} match logs ({result.bytes} bytes) older than {days} days "
            f"to {describe(archive())}"
        )
