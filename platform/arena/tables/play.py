"""Playing one table with the bots SDK's referee: the bots as in any match (stored code,
sandboxed unless house bots), the person at an in-process seat (arena.tables.seating).

:func:`play_table` is pure of writes but the person's decisions: it returns the seats'
outcomes and the game log; :func:`table_run`, the task's, starts the table, plays it and
records the result through the services. A failure of ours
raises :class:`~arena.bots.sandboxing.InfrastructureError`.
"""

from __future__ import annotations

import logging
from contextlib import ExitStack
from dataclasses import dataclass

from arena.bots.sandboxing import (
    InfrastructureError,
    RecordingLauncher,
    bot_spec,
    materialised,
    require_isolation,
)
from arena.live.services import LivePublisher
from arena.matches.outcomes import SeatOutcome
from arena.matches.play import bot_seed_key, forfeit_cause
from bots_sdk import referee, sandbox
from bots_sdk.launcher import BotSpec
from vegas_engine import log as game_logs

from .models import Table, TableStatus, table_feed
from .seating import PersonSeat
from .services import TableTransitionError, table_fail, table_finish, table_start

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PlayedTable:
    seats: list[SeatOutcome]
    #: The engine's game log with the referee's record, as JSON bytes.
    game_log: bytes


def play_table(table: Table) -> PlayedTable:
    """Play ``table``: the person at their seat, the bots at the others."""
    rows = list(table.table_seats.select_related("bot_version__bot").order_by("seat"))
    versions = [row.bot_version for row in rows if row.bot_version is not None]
    require_isolation(versions)
    game = table.game
    description = game.setup().describe()
    launcher = RecordingLauncher()
    # Every step is published at once: the person's board shows the bots' moves as
    # soon as they are made, and always before the person is asked.
    live = LivePublisher(feed=table_feed(table.pk), attempt=1, interval_s=0)
    with ExitStack() as stack:
        person = stack.enter_context(PersonSeat(table))
        specs: list[BotSpec] = []
        for row in rows:
            if row.bot_version is None:
                specs.append(person.spec)
            else:
                files = stack.enter_context(materialised(row.bot_version))
                specs.append(bot_spec(row.bot_version, files))
        try:
            with referee.Match(
                specs,
                game.limits(),
                launcher=launcher,
                bot_seed_key=bot_seed_key(),
                player_limits={table.seat: person.limits},
                on_progress=live,
            ) as match:
                record = match.play(description, table.seed, list(range(len(specs))))
        except (sandbox.SandboxError, OSError) as error:
            raise InfrastructureError(f"the referee failed: {error}") from error
    launcher.check()
    if person.error is not None:
        raise InfrastructureError(f"the person's seat failed: {person.error}")
    faults = {seat.seat: seat.fault for seat in record.seats}
    seats = [
        SeatOutcome(
            seat=entry["seat"],
            money=entry["money"],
            rank=entry["rank"],
            forfeit=forfeit_cause(fault.kind) if (fault := faults[entry["seat"]]) else None,
        )
        for entry in record.result
    ]
    log = record.moves_log
    # A person's seat has no trace: its timings and empty notes tell nothing.
    log["referee"]["seats"][table.seat].pop("trace", None)
    return PlayedTable(seats=seats, game_log=game_logs.dumps(log).encode())


def table_run(*, table: Table) -> Table:
    """Play a queued table to the end and record it (a task may deliver it twice: a
    table already taken is left alone). A failure of ours fails the table."""
    current = Table.objects.get(pk=table.pk)
    if current.status != TableStatus.QUEUED:
        return current
    try:
        started = table_start(table=current)
    except TableTransitionError:
        return current  # another worker took it
    try:
        played = play_table(started)
        return table_finish(table=started, outcomes=played.seats, game_log=played.game_log)
    except TableTransitionError:
        log.warning("table %s was ended (its worker presumed lost) while it played", started.pk)
        return Table.objects.get(pk=started.pk)
    except Exception as error:
        # Ours by construction: a bot's or the person's fault is a forfeit, not an exception.
        log.exception("table %s failed", started.pk)
        return table_fail(table=started, error=f"{type(error).__name__}: {error}")
