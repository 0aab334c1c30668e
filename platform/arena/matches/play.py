"""Playing one match with the bots SDK's referee: code from the storage, bots in the sandbox.

Pure of database writes: :func:`play_match` returns the seats' outcomes and
the game log, and the services record them. A bot's fault is part of the
result (its seat forfeits); anything that stops the game being played
fairly (no sandbox, a launch error, the storage) raises
:class:`~arena.bots.sandboxing.InfrastructureError`, which never counts
against a bot.
"""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass

from django.conf import settings
from django.utils.crypto import salted_hmac

from arena.bots.sandboxing import (
    InfrastructureError,
    RecordingLauncher,
    bot_spec,
    materialised,
    require_isolation,
)
from arena.live.services import LivePublisher
from bots_sdk import referee, sandbox
from bots_sdk.faults import FaultKind
from vegas_engine import log as game_logs

from .models import ForfeitCause, Match, match_feed
from .services import SeatOutcome


def forfeit_cause(kind: FaultKind) -> ForfeitCause:
    """The seat's forfeit: the referee's exact fault kind (the log names the same).

    LAUNCH_FAILED never gets here: RecordingLauncher makes it an InfrastructureError.
    """
    return ForfeitCause(kind.value)


def bot_seed_key() -> bytes:
    """The secret the bots' own seeds are derived with: the platform's, never a bot's.

    Derived from SECRET_KEY, so a match replayed on this platform gives its bots the
    same seeds, and no bot can work back from its seed to the game's (its dice).
    """
    return salted_hmac("arena.matches.bot_seed", "bot seeds", algorithm="sha256").digest()


@dataclass(frozen=True)
class PlayedMatch:
    seats: list[SeatOutcome]
    #: The engine's game log with the referee's record, as JSON bytes.
    game_log: bytes


def play_match(match: Match) -> PlayedMatch:
    """Play ``match`` (its participants seated in order) and return how it ended."""
    game = match.game
    participants = list(
        match.participants.select_related("bot_version__bot").order_by("seat").all()
    )
    versions = [p.bot_version for p in participants]
    require_isolation(versions)
    description = game.setup().describe()
    launcher = RecordingLauncher()
    # The match's page follows the game as it is played (arena.live).
    live = LivePublisher(
        feed=match_feed(match.pk),
        attempt=match.attempts,
        interval_s=settings.ARENA_LIVE_PUBLISH_MS / 1000,
    )
    with ExitStack() as stack:
        specs = [bot_spec(v, stack.enter_context(materialised(v))) for v in versions]
        try:
            with referee.Match(
                specs,
                game.limits(),
                launcher=launcher,
                bot_seed_key=bot_seed_key(),
                on_progress=live,
            ) as table:
                record = table.play(description, match.seed, list(range(len(specs))))
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
                forfeit=forfeit_cause(fault.kind) if fault is not None else None,
            )
        )
    return PlayedMatch(seats=seats, game_log=game_logs.dumps(record.log).encode())
