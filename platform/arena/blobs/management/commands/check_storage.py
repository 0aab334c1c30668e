"""``manage.py check_storage``: can this host use the platform's shared storage?"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from arena.blobs.storage_check import StorageCheckError, check_storage, claim_storage


class Command(BaseCommand):
    help = (
        "Write, read back and delete a probe object in the default storage, and check that "
        "it is the storage the platform's other hosts share (the same check a worker runs "
        "when it starts). --claim records this host's storage as the platform's instead."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--claim",
            action="store_true",
            help="record this host's storage as the platform's (after moving the files to "
            "it); hosts whose storage differs refuse to start from then on",
        )
        parser.add_argument(
            "--role", default="host", help="this process in the messages (host, web, worker)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        run = claim_storage if options["claim"] else check_storage
        try:
            result = run(role=options["role"])
        except StorageCheckError as error:
            raise CommandError(str(error)) from error
        self.stdout.write(str(result))
