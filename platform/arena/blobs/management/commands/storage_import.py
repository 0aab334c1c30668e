"""``manage.py storage_import FOLDER``: copy files kept in a folder into the default storage.

For installs that kept bot code and match logs under MEDIA_ROOT (the default
before the database storage): the rows name their files relative to that
folder, and the copies keep those names, so nothing else changes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.files import File
from django.core.files.storage import default_storage
from django.core.management.base import BaseCommand, CommandError, CommandParser

from arena.blobs.storage_check import CHECK_FOLDER


class Command(BaseCommand):
    help = (
        "Copy every file under FOLDER (the old MEDIA_ROOT) into the default storage under "
        "the same name; files already there are left alone. Safe to run again."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("folder", type=Path, help="the folder files were kept in")

    def handle(self, *args: Any, **options: Any) -> None:
        folder: Path = options["folder"]
        if not folder.is_dir():
            raise CommandError(
                f"{folder} is not a folder: give the folder bot code and match logs were kept "
                "in (the old MEDIA_ROOT, e.g. var/media)."
            )
        copied = skipped = 0
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            name = path.relative_to(folder).as_posix()
            if name.startswith(f"{CHECK_FOLDER}/") or name == ".gitignore":
                continue  # the old storage's own check objects
            if default_storage.exists(name):
                skipped += 1
                continue
            with path.open("rb") as handle:
                stored = default_storage.save(name, File(handle))
            if stored != name:
                raise CommandError(
                    f"{name} was stored as {stored}: another host wrote it meanwhile"
                )
            copied += 1
        self.stdout.write(f"copied {copied} files from {folder}, {skipped} already there")
