"""Repairs of the embedded broker's files (kombu's filesystem transport) before a process uses it.

Why: the transport keeps each exchange's bindings as a JSON list in
``<control>/<exchange>.exchange`` and rewrites it in place without
truncating it, so a list that got shorter, or a process killed while
writing it, leaves bytes after the list (``[[...]]]``). Every later bind
then fails to parse it and the worker exits at start, again and again: a
worker killed at the wrong moment kept the embedded platform without one.
"""

from __future__ import annotations

import fcntl
import json
import logging
from pathlib import Path

log = logging.getLogger(__name__)


def repair_exchange_tables(control: Path) -> list[Path]:
    """Rewrite each unreadable exchange table in ``control`` as the list it starts with.

    The leading list is what the last complete write left (the bytes after
    it are an older, longer one's tail); a file with no list at its start
    becomes empty (``[]``): the bindings are declared again as processes
    start. Under the transport's own lock on the file. Returns the files
    repaired.
    """
    repaired = []
    for path in sorted(control.glob("*.exchange")):
        with path.open("rb+", buffering=0) as table:
            fcntl.flock(table, fcntl.LOCK_EX)
            text = table.read().decode("utf-8", errors="replace")
            try:
                json.loads(text)
                continue
            except json.JSONDecodeError:
                pass
            try:
                bindings, _ = json.JSONDecoder().raw_decode(text.lstrip())
            except json.JSONDecodeError:
                bindings = []
            if not isinstance(bindings, list):
                bindings = []
            table.seek(0)
            table.write(json.dumps(bindings).encode())
            table.truncate()
        log.warning("embedded broker: repaired %s (was %r)", path.name, text[:200])
        repaired.append(path)
    return repaired
