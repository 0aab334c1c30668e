"""``manage.py restore_platform FILE``: a backup into an empty platform (arena.blobs.backup)."""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from arena.blobs.backup import BackupError, restore


class Command(BaseCommand):
    help = (
        "Restore FILE, written by backup_platform, into this platform's database and storage, "
        "which must be empty; then check every table's rows and every file rows name."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path, help="the backup file; - for stdin")
        parser.add_argument(
            "--no-files",
            action="store_true",
            help="do not restore files (the storage's bucket was restored by its own means)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["file"]
        try:
            if str(path) == "-":
                # From standard input (a container's exec): copied whole first, then read.
                with tempfile.TemporaryDirectory(prefix="arena-") as tmp:
                    with (Path(tmp) / "arena.tar").open("wb") as whole:
                        shutil.copyfileobj(sys.stdin.buffer, whole)
                    restored = restore(Path(tmp) / "arena.tar", files=not options["no_files"])
            else:
                restored = restore(path, files=not options["no_files"])
        except BackupError as error:
            raise CommandError(str(error)) from None
        manifest = restored.manifest
        self.stdout.write(
            f"restored the backup of {manifest.created_at}: {len(manifest.tables)} tables "
            f"({sum(manifest.tables.values())} rows) and {restored.files} files; "
            f"checked: every table's rows and the {manifest.named_files} files rows name"
        )
        if restored.pending_migrations:
            self.stdout.write(
                f"the backup predates {len(restored.pending_migrations)} migrations of this "
                "release: run `manage.py migrate` next."
            )
