"""What the league services share: limits, status moves, errors, the row lock."""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from datetime import datetime, timedelta

from arena.errors import ArenaError
from arena.matches.models import MatchStatus

from .. import formats
from ..models import (
    EntryStatus,
    GameStatus,
    League,
    LeagueBye,
    LeagueEntry,
    LeagueFormat,
    LeagueStatus,
    RoundStatus,
)

log = logging.getLogger(__name__)

MIN_ROUND_INTERVAL = timedelta(minutes=1)
MAX_GAMES_PER_TABLE = 100
MAX_ROUNDS = 1000
# Above this many combinations a round robin becomes a balanced design (about
# entrants / (seats - 1) rounds): C(16, 4) = 1,820 tables would take 455+ rounds.
DEFAULT_MAX_TABLES = 500
# /leagues/new/ is the page that creates leagues: a league of that slug would have no page.
RESERVED_SLUGS = frozenset({"new"})

LEAGUE_TRANSITIONS: Mapping[LeagueStatus, frozenset[LeagueStatus]] = {
    LeagueStatus.SCHEDULED: frozenset(
        {LeagueStatus.RUNNING, LeagueStatus.PAUSED, LeagueStatus.CANCELLED}
    ),
    LeagueStatus.RUNNING: frozenset(
        {LeagueStatus.PAUSED, LeagueStatus.FINISHED, LeagueStatus.CANCELLED}
    ),
    # Back to where it was paused from.
    LeagueStatus.PAUSED: frozenset(
        {LeagueStatus.SCHEDULED, LeagueStatus.RUNNING, LeagueStatus.CANCELLED}
    ),
    LeagueStatus.FINISHED: frozenset(),
    LeagueStatus.CANCELLED: frozenset(),
}

# Entrants that take part once the league started (forfeited ones still hold their seats).
IN_PLAY = (EntryStatus.PLAYING, EntryStatus.FORFEITED, EntryStatus.ELIMINATED)
MATCH_FINAL = (MatchStatus.FINISHED, MatchStatus.FAILED_INFRA, MatchStatus.CANCELLED)
GAME_FINAL = (GameStatus.FINISHED, GameStatus.WALKOVER, GameStatus.VOID)


class LeagueConfigError(ArenaError):
    """A league's settings no schedule can satisfy, or that the platform refuses."""

    code = "league_config"


class LeagueEntryError(ArenaError):
    """A bot that cannot enter (or leave) this league."""

    code = "league_entry"


class LeagueTransitionError(ArenaError):
    code = "league_transition"


def lock_league(league: League) -> League:
    return League.objects.select_related("ladder").select_for_update(of=("self",)).get(pk=league.pk)


def planned_rounds(
    *,
    format: str,
    entrants: int,
    seats: int,
    advance: int | None,
    rounds: int | None,
    max_tables: int,
) -> int:
    """How many rounds the league plays with this many entrants (raises FormatError)."""
    formats.check_entrants(entrants, seats)
    if format == LeagueFormat.KNOCKOUT:
        return len(formats.knockout_plan(entrants, seats, advance or 1))
    if format == LeagueFormat.SWISS:
        return rounds or max(1, math.ceil(math.log2(entrants)))
    return formats.round_robin_rounds(entrants, seats, max_tables=max_tables, rounds=rounds)


def round_times(*, start_at: datetime, round_interval: timedelta, rounds: int) -> list[datetime]:
    """When each round starts: the one rule for a league's calendar, stored at its start
    (tick) and shown before its creation (creating.league_plan)."""
    return [start_at + (number - 1) * round_interval for number in range(1, rounds + 1)]


def forfeit_entry(entry: LeagueEntry, why: str) -> None:
    entry.status = EntryStatus.FORFEITED
    entry.reason = f"{why}, so its remaining games are lost by forfeit"
    entry.save(update_fields=["status", "reason"])
    # A bye is worth a table's average points: an entrant that left earns none after it.
    LeagueBye.objects.filter(entry=entry, round__status=RoundStatus.SCHEDULED).delete()
