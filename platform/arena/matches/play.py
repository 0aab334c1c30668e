"""Playing one match with the bots SDK's referee: code from the storage, bots in the sandbox.

Pure of database writes: :func:`play_match` returns the seats' outcomes and
the game log, and the services record them. A bot's fault is part of the
result (its seat forfeits); anything that stops the game being played
fairly (no sandbox, a launch error, the storage) raises
:class:`~arena.bots.sandboxing.InfrastructureError`, which never counts
against a bot.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import ExitStack
from dataclasses import dataclass

import vegas_engine
from arena.bots.sandboxing import (
    InfrastructureError,
    RecordingLauncher,
    bot_spec,
    materialised,
    require_isolation,
)
from arena.ladders.models import Ladder
from bots_sdk import referee, sandbox
from bots_sdk.faults import FaultKind
from bots_sdk.protocol import Limits
from vegas_engine import log as game_logs

from .models import ForfeitCause, Match
from .services import SeatOutcome

MiB = 1024 * 1024

#: The referee's exact fault, as the forfeit cause a seat shows (the log keeps the exact one).
FORFEIT_CAUSES: Mapping[FaultKind, ForfeitCause] = {
    FaultKind.STARTUP_TIMEOUT: ForfeitCause.TIMEOUT,
    FaultKind.TIMEOUT: ForfeitCause.TIMEOUT,
    FaultKind.TIME_BANK: ForfeitCause.TIMEOUT,
    FaultKind.CRASHED: ForfeitCause.CRASH,
    FaultKind.EXITED: ForfeitCause.CRASH,
    FaultKind.OUT_OF_MEMORY: ForfeitCause.MEMORY,
    FaultKind.ILLEGAL_ACTION: ForfeitCause.ILLEGAL_ACTION,
    FaultKind.BAD_HANDSHAKE: ForfeitCause.PROTOCOL,
    FaultKind.CLOSED_STDOUT: ForfeitCause.PROTOCOL,
    FaultKind.CLOSED_STDIN: ForfeitCause.PROTOCOL,
    FaultKind.LINE_TOO_LONG: ForfeitCause.PROTOCOL,
    FaultKind.OUTPUT_LIMIT: ForfeitCause.PROTOCOL,
    FaultKind.GARBAGE: ForfeitCause.PROTOCOL,
    # LAUNCH_FAILED is ours: RecordingLauncher turns it into an InfrastructureError.
}


@dataclass(frozen=True)
class PlayedMatch:
    seats: list[SeatOutcome]
    #: The engine's game log with the referee's record, as JSON bytes.
    game_log: bytes


def ladder_limits(ladder: Ladder) -> Limits:
    return Limits(
        decision_ms=ladder.time_per_decision_ms,
        # The referee's bank covers all of a seat's decisions in a game; a
        # ladder without a bank still allows one full decision.
        bank_ms=max(ladder.time_bank_ms, ladder.time_per_decision_ms),
        memory_bytes=ladder.memory_mb * MiB,
    )


def play_match(match: Match) -> PlayedMatch:
    """Play ``match`` (its participants seated in order) and return how it ended."""
    ladder = match.ladder
    participants = list(
        match.participants.select_related("bot_version__bot").order_by("seat").all()
    )
    versions = [p.bot_version for p in participants]
    require_isolation(versions)
    description = vegas_engine.describe(ladder.rules, ladder.seats, match.seed, ladder.options)
    launcher = RecordingLauncher()
    with ExitStack() as stack:
        specs = [bot_spec(v, stack.enter_context(materialised(v))) for v in versions]
        try:
            with referee.Match(specs, ladder_limits(ladder), launcher=launcher) as game:
                record = game.play(description, list(range(len(specs))))
        except (sandbox.SandboxError, OSError) as error:
            raise InfrastructureError(f"the referee failed: {error}") from error
    launcher.check()
    faults = {seat.seat: seat.fault for seat in record.seats}
    seats = []
    for entry in record.result:
        fault = faults[entry["seat"]]
        seats.append(
            SeatOutcome(
                seat=entry["seat"],
                money=entry["money"],
                rank=entry["rank"],
                forfeit=FORFEIT_CAUSES[fault.kind] if fault is not None else None,
            )
        )
    return PlayedMatch(seats=seats, game_log=game_logs.dumps(record.log).encode())
