"""``manage.py storage_sweep``: delete stored files that no row names (beat runs it daily)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from arena.blobs.sweep import storage_sweep


class Command(BaseCommand):
    help = (
        "Delete the default storage's files that no row names (left by a process killed "
        "between writing a file and committing its row), once older than "
        "ARENA_ORPHAN_GRACE_SECONDS. --dry-run lists them and deletes nothing."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--dry-run", action="store_true", help="list what would be deleted; delete nothing"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        dry_run: bool = options["dry_run"]
        verb = "would delete" if dry_run else "deleted"

        def say(name: str, size: int) -> None:
            self.stdout.write(f"{verb} {name} ({size} bytes)")

        grace = timedelta(seconds=settings.ARENA_ORPHAN_GRACE_SECONDS)
        result = storage_sweep(grace=grace, dry_run=dry_run, on_orphan=say)
        self.stdout.write(
            f"{verb} {result.deleted} orphaned files ({result.bytes} bytes); "
            f"{result.scanned} files checked, {result.kept_young} younger than "
            f"{settings.ARENA_ORPHAN_GRACE_SECONDS} s kept"
        )
