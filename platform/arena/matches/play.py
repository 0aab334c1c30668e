"""Playing matches with the bots SDK's referee: code from the storage, bots in the sandbox.

Pure of database writes but the live feed (``arena.live``, what a running
match's page shows): a :class:`MatchTable` plays the games of a series
(or a lone match) and returns each one's seats' outcomes and game log, and
the services record them. A bot's fault is part of the result (its seat
forfeits); anything that stops a game being played fairly (no sandbox, a
launch error, the storage) raises
:class:`~arena.bots.sandboxing.InfrastructureError`, which never counts
against a bot.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from types import TracebackType

from django.conf import settings
from django.utils.crypto import salted_hmac

from arena.bots.models import BotVersion
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
from vegas_engine import State
from vegas_engine import log as game_logs

from .models import ForfeitCause, Match, Participant, match_feed
from .outcomes import SeatOutcome


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
    #: Seconds the bots took to start in this game (the slowest, as they start
    #: together), 0 when every process was already running; and the game's
    #: seconds in all, start included.
    start_s: float = 0.0
    play_s: float = 0.0
    #: Whether any of its events went to the match's live feed (which then needs dropping).
    live_published: bool = False


def _seated_versions(matches: Sequence[Match]) -> dict[int, list[BotVersion]]:
    """The versions at the seats of each match, in seat order (one query for them all)."""
    seated: dict[int, list[BotVersion]] = {match.pk: [] for match in matches}
    participants = (
        Participant.objects.filter(match__in=[match.pk for match in matches])
        .select_related("bot_version__bot")
        .order_by("match_id", "seat")
    )
    for participant in participants:
        seated[participant.match_id].append(participant.bot_version)
    return seated


class MatchTable:
    """The bots of a series of matches at one table: one process per bot across games.

    The matches share their game and bot versions (a series; a lone match is a
    series of one). The first one's seats name the players; a later match
    seats them where its own participants sit. The referee runs with
    ``seed_once_per_process``: a bot's process never plays two games dealt by
    one seed (a duplicate deal's), so it cannot know the dice to come. A
    seat's fault forfeits its game only, and the next game starts a fresh
    process for that bot. Use as a context manager: leaving it ends every
    process and removes the bots' files.
    """

    def __init__(self, matches: Sequence[Match]) -> None:
        if not matches:
            raise ValueError("a table needs at least one match")
        self.matches = list(matches)
        self.game = self.matches[0].game
        self.seated = _seated_versions(self.matches)
        self.players = self.seated[self.matches[0].pk]
        self.launcher = RecordingLauncher()
        self._stack = ExitStack()
        self._table: referee.Match | None = None
        # The feed of the game being played: its match's page follows it (arena.live).
        self._live: LivePublisher | None = None

    def __enter__(self) -> MatchTable:
        require_isolation(self.players)
        try:
            # One folder per version, shared by its seats (a version may sit twice).
            files = {}
            for version in self.players:
                if version.pk not in files:
                    files[version.pk] = self._stack.enter_context(materialised(version))
            specs = [bot_spec(v, files[v.pk]) for v in self.players]
            self._table = referee.Match(
                specs,
                self.game.limits(),
                launcher=self.launcher,
                bot_seed_key=bot_seed_key(),
                seed_once_per_process=True,
                on_progress=self._progress,
            )
        except BaseException:
            self._stack.close()
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            if self._table is not None:
                try:
                    self._table.close()
                except (sandbox.SandboxError, OSError) as error:
                    if exc is None:  # else the error being raised says more
                        raise InfrastructureError(f"the referee failed: {error}") from error
        finally:
            self._stack.close()

    def _progress(self, game_id: int, state: State) -> None:
        if self._live is not None:
            self._live(game_id, state)

    def _seating(self, match: Match) -> list[int]:
        """Which player sits at each seat of ``match``: its versions matched to the players."""
        if match.pk not in self.seated:
            raise ValueError(f"{match} is not one of this table's matches")
        free = list(range(len(self.players)))
        seating = []
        for version in self.seated[match.pk]:
            player = next((i for i in free if self.players[i].pk == version.pk), None)
            if player is None:
                raise ValueError(f"{match} seats {version}, who is not at this table")
            free.remove(player)
            seating.append(player)
        return seating

    def play(self, match: Match) -> PlayedMatch:
        """Play ``match`` (one of the table's) and return how it ended."""
        assert self._table is not None, "use the table as a context manager"
        if match.game != self.game:
            raise ValueError(f"{match} plays another game than this table's")
        description = match.game.setup().describe()
        seating = self._seating(match)
        self._live = live = LivePublisher(
            feed=match_feed(match.pk),
            attempt=match.attempts,
            interval_s=settings.ARENA_LIVE_PUBLISH_MS / 1000,
        )
        began = time.perf_counter()
        try:
            record = self._table.play(description, match.seed, seating)
        except (sandbox.SandboxError, OSError) as error:
            raise InfrastructureError(f"the referee failed: {error}") from error
        finally:
            self._live = None
        played_s = time.perf_counter() - began
        self.launcher.check()
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
        started = [seat.startup_ms for seat in record.seats if seat.startup_ms is not None]
        return PlayedMatch(
            seats=seats,
            game_log=game_logs.dumps(record.moves_log).encode(),
            start_s=max(started, default=0.0) / 1000,
            play_s=played_s,
            live_published=live.sent > 0,
        )


def play_match(match: Match) -> PlayedMatch:
    """Play ``match`` alone (its participants seated in order) and return how it ended."""
    with MatchTable([match]) as table:
        return table.play(match)
