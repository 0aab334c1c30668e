"""The one check of a status move, shared by every model with a status machine.

Each app keeps its own table of allowed moves (``VERSION_TRANSITIONS``,
``MATCH_TRANSITIONS``, ``LEAGUE_TRANSITIONS``) and its own error class; the
check and its message are written once, here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

from .errors import ArenaError

Status = TypeVar("Status", bound=str)


def check_move(
    moves: Mapping[Status, frozenset[Status]],
    current: Status,
    to: Status,
    *,
    what: object,
    error: type[ArenaError],
) -> None:
    """Raise ``error`` unless ``moves`` lets ``what`` go from ``current`` to ``to``."""
    if to not in moves[current]:
        allowed = ", ".join(sorted(moves[current])) or "none (final)"
        raise error(f"{what} is {current}: it cannot become {to} (allowed: {allowed}).")
