"""``manage.py backup_platform FILE``: the whole platform in one file (arena.blobs.backup)."""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from arena.blobs.backup import BackupError, backup


class Command(BaseCommand):
    help = (
        "Back up the platform into FILE (a tar file): the database (one snapshot, taken while "
        "the platform runs) and the stored files, with a manifest of what it holds."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "file", type=Path, help="the backup file to write, e.g. arena.tar; - for stdout"
        )
        parser.add_argument(
            "--no-files",
            action="store_true",
            help="leave the storage's files out (a bucket backed up by its own means)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["file"]
        try:
            if str(path) == "-":
                # To standard output (a container's exec): written whole first, then copied.
                with tempfile.TemporaryDirectory(prefix="arena-") as tmp:
                    manifest = backup(Path(tmp) / "arena.tar", files=not options["no_files"])
                    with (Path(tmp) / "arena.tar").open("rb") as whole:
                        shutil.copyfileobj(whole, sys.stdout.buffer)
                    sys.stdout.buffer.flush()
            else:
                manifest = backup(path, files=not options["no_files"])
        except BackupError as error:
            raise CommandError(str(error)) from None
        where = (
            "in the database"
            if manifest.files_in_database
            else f"{manifest.files} files, {manifest.file_bytes} bytes"
        )
        # The report goes to stderr when the backup itself went to stdout.
        report = self.stderr if str(path) == "-" else self.stdout
        report.write(
            f"backed up {len(manifest.tables)} tables "
            f"({sum(manifest.tables.values())} rows) and the stored files ({where}) to {path}"
        )
        if manifest.missing_files:
            self.stderr.write(
                f"warning: rows name {len(manifest.missing_files)}+ files the storage lacks, "
                f"e.g. {manifest.missing_files[0]} (missing before the backup too)"
            )
