"""`python manage.py probe worker|beat|web`: compose's healthchecks of the platform's
processes. Exit status 0 when ready, 1 with the reason on stderr otherwise."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from arena import heartbeats
from arena.ops.checks import Check, check_broker, check_database, check_storage


def _heartbeat(role: str, name: str | None) -> Check:
    found = heartbeats.freshest(role, name)
    limit = heartbeats.stale_after()
    whose = f"{role} {name}" if name else f"any {role}"
    if found is None:
        return Check(
            "heartbeat",
            False,
            f"no heartbeat file of {whose} in {heartbeats.heartbeat_path(role, '*').parent}: "
            f"the {role} has not started, or lost its broker",
        )
    path, age = found
    if age > limit:
        return Check(
            "heartbeat",
            False,
            f"{path.name} is {age:.0f} s old (at most {limit:.0f}): the {role} is stuck "
            "or lost its broker",
        )
    return Check("heartbeat", True, f"{path.name} {age:.0f} s old")


class Command(BaseCommand):
    help = (
        "Check that a process of the platform is ready: a worker's or beat's heartbeat is "
        "fresh and the database answers; web: database, broker and storage answer."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("role", choices=["worker", "beat", "web"])
        parser.add_argument(
            "--node",
            help="the worker's node name (celery@host, ratings@host...); default: any "
            "worker whose heartbeat is in ARENA_HEARTBEAT_DIR",
        )

    def handle(self, *args: Any, role: str, node: str | None, **options: Any) -> None:
        if role == "web":
            checks = [check_database(), check_broker(), check_storage()]
        else:
            checks = [_heartbeat(role, node), check_database()]
        failed = [check for check in checks if not check.ok]
        if failed:
            raise CommandError(
                f"{role} not ready: "
                + "; ".join(f"{check.name}: {check.detail}" for check in failed)
            )
        self.stdout.write(
            f"{role} ready: " + "; ".join(f"{check.name}: {check.detail}" for check in checks)
        )
