"""The tables' writes that work follows: the service, then the task it calls for, queued
once the write commits.

Services never queue their app's tasks, so that they stay below them (tasks call
services); what the API and the pages call when a write must be followed by work is
here, above both.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from arena.bots.models import Bot
from arena.players.models import User
from arena.queueing import publish_on_commit
from vegas_engine import OptionValue

from . import services
from .models import Table
from .tasks import table_play


def table_create(
    *,
    player: User,
    rules: str,
    seats: int,
    seat: int,
    opponents: Sequence[Bot],
    options: Mapping[str, OptionValue] | None = None,
) -> Table:
    """A new table (:func:`~arena.tables.services.table_create`), its game queued for a
    tables worker once it is committed."""
    table = services.table_create(
        player=player, rules=rules, seats=seats, seat=seat, opponents=opponents, options=options
    )
    _queue_play(table)
    return table


def _queue_play(table: Table) -> None:
    publish_on_commit(table_play, table.pk)
