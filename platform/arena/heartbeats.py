"""Heartbeat files: a Celery worker and beat each touch one while they work, and
`python manage.py probe worker|beat` (compose's healthchecks) checks it is fresh.

A file on the process's own host, not a database row: the probe runs in the
process's container and must fail when that process stalls, whatever the others do.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from django.conf import settings

#: A file that is touched every ARENA_HEARTBEAT_SECONDS is stale after this many beats.
STALE_AFTER_BEATS = 4


def heartbeat_path(role: str, name: str) -> Path:
    """The heartbeat file of ``role`` ("worker" or "beat") named ``name`` (a node name)."""
    safe = re.sub(r"[^A-Za-z0-9_.@-]", "_", name)
    return Path(settings.ARENA_HEARTBEAT_DIR) / f"{role}-{safe}"


def beat(role: str, name: str) -> None:
    """Touch the heartbeat file (made with its folder when missing)."""
    path = heartbeat_path(role, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch()


def forget(role: str, name: str) -> None:
    """Remove the heartbeat file: the process stopped working (a clean stop, a lost broker)."""
    heartbeat_path(role, name).unlink(missing_ok=True)


def stale_after() -> float:
    return float(settings.ARENA_HEARTBEAT_SECONDS * STALE_AFTER_BEATS)


def freshest(role: str, name: str | None = None) -> tuple[Path, float] | None:
    """The newest heartbeat file of ``role`` (of node ``name`` if given) and its age in
    seconds, or None when there is none."""
    folder = Path(settings.ARENA_HEARTBEAT_DIR)
    if name is not None:
        candidates = [heartbeat_path(role, name)]
    else:
        candidates = list(folder.glob(f"{role}-*")) if folder.is_dir() else []
    found: tuple[Path, float] | None = None
    now = time.time()
    for path in candidates:
        try:
            age = now - path.stat().st_mtime
        except FileNotFoundError:
            continue
        if found is None or age < found[1]:
            found = (path, age)
    return found
