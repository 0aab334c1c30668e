"""Writes on a league before it starts: creating it, its entrants, invitations."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone

from arena.bots.models import Bot, BotVersion, Visibility
from arena.bots.selectors import may_manage_bot
from arena.ladders.models import Ladder
from arena.players.models import User

from .. import formats
from ..models import (
    EntryStatus,
    League,
    LeagueEntry,
    LeagueFormat,
    LeagueStatus,
    LeagueVisibility,
)
from ..selectors import bot_rule_systems, league_entry_is_invitation
from .common import (
    DEFAULT_MAX_TABLES,
    MAX_GAMES_PER_TABLE,
    MAX_ROUNDS,
    MIN_ROUND_INTERVAL,
    RESERVED_SLUGS,
    LeagueConfigError,
    LeagueEntryError,
    forfeit_entry,
    lock_league,
    planned_rounds,
    round_times,
)
from .standings import league_standings_recompute

log = logging.getLogger(__name__)


def _check_bot(*, bot: Bot, organiser: User, ladder: Ladder, visibility: str) -> None:
    if bot.workbench:
        raise LeagueEntryError(
            f"{bot.name} holds the editor's test builds: submit the draft and enter its bot."
        )
    if bot.visibility == Visibility.PRIVATE and not may_manage_bot(organiser, bot):
        raise LeagueEntryError(
            f"{bot.name} is a private bot: only its owner or its team's members can enter it."
        )
    if visibility == LeagueVisibility.PUBLIC and bot.visibility == Visibility.PRIVATE:
        raise LeagueEntryError(
            f"{bot.name} is private: a public league's games are public. Make the bot public, "
            "or enter it in a private league."
        )
    systems = bot_rule_systems(bot=bot)
    if systems and ladder.rules not in systems:
        raise LeagueEntryError(
            f"{bot.name} plays {', '.join(sorted(systems))}, not {ladder.rules}: "
            f"enter a bot rated on a {ladder.rules} ladder."
        )


def _entry_status(bot: Bot, organiser: User) -> EntryStatus:
    if league_entry_is_invitation(bot=bot, organiser=organiser):
        return EntryStatus.INVITED
    return EntryStatus.ACCEPTED


def league_validate(
    *,
    organiser: User,
    ladder: Ladder,
    format: str,
    visibility: str,
    start_at: datetime,
    round_interval: timedelta,
    entrants: int,
    games_per_table: int,
    points_per_rank: Sequence[float],
    advance: int | None,
    rounds: int | None,
    max_tables: int,
    now: datetime,
    frozen_final: bool = False,
) -> int:
    """Check a league's settings; returns its number of rounds.

    ``frozen_final``: a competition's final event (:func:`league_create_frozen`): it
    plays on the competition's restricted ladder, and is public without staff (the
    competition allowed its organiser).
    """
    if format not in LeagueFormat.values:
        raise LeagueConfigError(
            f"unknown format {format!r}: use one of {', '.join(LeagueFormat.values)}."
        )
    if ladder.restricted and not frozen_final:
        raise LeagueConfigError(
            f"{ladder} is a competition's ladder: it plays that competition's final event "
            "only. Choose another ladder."
        )
    if visibility == LeagueVisibility.PUBLIC and not (organiser.is_staff or frozen_final):
        raise LeagueConfigError(
            "only staff organise public leagues: create a private league and invite bots."
        )
    if not ladder.is_open:
        raise LeagueConfigError(f"{ladder} is closed: its game takes no new matches.")
    if start_at <= now:
        raise LeagueConfigError(
            f"the start time {start_at:%Y-%m-%d %H:%M} UTC is in the past "
            f"(now {now:%Y-%m-%d %H:%M} UTC): choose a later time."
        )
    if round_interval < MIN_ROUND_INTERVAL:
        raise LeagueConfigError(
            f"rounds must be at least {MIN_ROUND_INTERVAL} apart, got {round_interval}."
        )
    if not 1 <= games_per_table <= MAX_GAMES_PER_TABLE:
        raise LeagueConfigError(
            f"games per table must be 1-{MAX_GAMES_PER_TABLE}, got {games_per_table}."
        )
    if rounds is not None and not 1 <= rounds <= MAX_ROUNDS:
        raise LeagueConfigError(f"rounds must be 1-{MAX_ROUNDS}, got {rounds}.")
    if max_tables < 1:
        raise LeagueConfigError(f"the table cap must be at least 1, got {max_tables}.")
    if format == LeagueFormat.KNOCKOUT and advance is None:
        raise LeagueConfigError("a knockout needs `advance`: how many of each table go through.")
    if format != LeagueFormat.KNOCKOUT and advance is not None:
        raise LeagueConfigError("`advance` is for knockouts only.")
    try:
        formats.check_points(points_per_rank, ladder.seats)
        planned = planned_rounds(
            format=format,
            entrants=entrants,
            seats=ladder.seats,
            advance=advance,
            rounds=rounds,
            max_tables=max_tables,
        )
    except formats.FormatError as error:
        raise LeagueConfigError(str(error)) from None
    if planned > MAX_ROUNDS:
        raise LeagueConfigError(
            f"this league would need {planned} rounds (most {MAX_ROUNDS}): use fewer entrants "
            "or a balanced design (lower the table cap)."
        )
    return planned


@dataclass(frozen=True)
class LeaguePlan:
    """A league's calendar before its creation: what its start will schedule."""

    entrants: int
    rounds: int
    first_round_at: datetime
    last_round_at: datetime


def league_plan(
    *,
    organiser: User,
    ladder: Ladder,
    format: str,
    visibility: str,
    start_at: datetime,
    round_interval: timedelta,
    entrants: int,
    games_per_table: int = 1,
    points_per_rank: Sequence[float] | None = None,
    advance: int | None = None,
    rounds: int | None = None,
    max_tables: int = DEFAULT_MAX_TABLES,
    now: datetime | None = None,
) -> LeaguePlan:
    """The rounds and their times a league of these settings gets if ``entrants`` bots play,
    by the checks of league_create and the rule its start schedules with (LeagueConfigError
    says what league_create would refuse)."""
    count = league_validate(
        organiser=organiser,
        ladder=ladder,
        format=format,
        visibility=visibility,
        start_at=start_at,
        round_interval=round_interval,
        entrants=entrants,
        games_per_table=games_per_table,
        points_per_rank=list(points_per_rank or formats.default_points(ladder.seats)),
        advance=advance,
        rounds=rounds,
        max_tables=max_tables,
        now=now or timezone.now(),
    )
    times = round_times(start_at=start_at, round_interval=round_interval, rounds=count)
    return LeaguePlan(
        entrants=entrants, rounds=count, first_round_at=times[0], last_round_at=times[-1]
    )


def league_create(
    *,
    organiser: User,
    ladder: Ladder,
    name: str,
    slug: str,
    format: str,
    start_at: datetime,
    round_interval: timedelta,
    bots: Sequence[Bot],
    visibility: str = LeagueVisibility.PUBLIC,
    games_per_table: int = 1,
    duplicate: bool = False,
    rated: bool = True,
    points_per_rank: Sequence[float] | None = None,
    advance: int | None = None,
    rounds: int | None = None,
    max_tables: int = DEFAULT_MAX_TABLES,
    now: datetime | None = None,
) -> League:
    """A scheduled league with ``bots`` entered in seeding order (the first is seed 1).

    ``rated``: its games also count on the ladder's Elo (the league's own
    standings rating counts them either way).
    """
    now = now or timezone.now()
    points = list(points_per_rank or formats.default_points(ladder.seats))
    if slug.lower() in RESERVED_SLUGS:
        raise LeagueConfigError(
            f"the slug {slug!r} is the address of the new-league page: choose another."
        )
    if len({bot.pk for bot in bots}) != len(bots):
        raise LeagueEntryError("a bot is entered twice: each bot enters once.")
    for bot in bots:
        _check_bot(bot=bot, organiser=organiser, ladder=ladder, visibility=visibility)
    return _league_store(
        organiser=organiser,
        ladder=ladder,
        name=name,
        slug=slug,
        format=format,
        visibility=visibility,
        start_at=start_at,
        round_interval=round_interval,
        games_per_table=games_per_table,
        duplicate=duplicate,
        rated=rated,
        points=points,
        advance=advance,
        rounds=rounds,
        max_tables=max_tables,
        now=now,
        entries=[
            LeagueEntry(bot=bot, seed=seed, status=_entry_status(bot, organiser))
            for seed, bot in enumerate(bots, start=1)
        ],
    )


def _league_store(
    *,
    organiser: User,
    ladder: Ladder,
    name: str,
    slug: str,
    format: str,
    visibility: str,
    start_at: datetime,
    round_interval: timedelta,
    games_per_table: int,
    duplicate: bool,
    rated: bool,
    points: list[float],
    advance: int | None,
    rounds: int | None,
    max_tables: int,
    now: datetime,
    entries: Sequence[LeagueEntry],
    frozen_final: bool = False,
) -> League:
    """Check a league's settings, then store it with ``entries`` (their league unset)."""
    league_validate(
        organiser=organiser,
        ladder=ladder,
        format=format,
        visibility=visibility,
        start_at=start_at,
        round_interval=round_interval,
        entrants=len(entries),
        games_per_table=games_per_table,
        points_per_rank=points,
        advance=advance,
        rounds=rounds,
        max_tables=max_tables,
        now=now,
        frozen_final=frozen_final,
    )
    league = League(
        slug=slug,
        name=name,
        organiser=organiser,
        ladder=ladder,
        visibility=visibility,
        format=format,
        games_per_table=games_per_table,
        duplicate=duplicate,
        rated=rated,
        points_per_rank=points,
        advance=advance,
        rounds_requested=rounds,
        max_tables=max_tables,
        start_at=start_at,
        round_interval=round_interval,
    )
    return _league_insert(league, entries)


def _league_insert(league: League, entries: Sequence[LeagueEntry]) -> League:
    """Store a checked ``league`` and its ``entries`` together; a taken slug is refused."""
    try:
        with transaction.atomic():
            league.save(force_insert=True)
            for entry in entries:
                entry.league = league
            LeagueEntry.objects.bulk_create(entries)
    except IntegrityError:
        raise LeagueConfigError(f"a league with the slug {league.slug!r} already exists.") from None
    return league


def league_create_frozen(
    *,
    organiser: User,
    ladder: Ladder,
    name: str,
    slug: str,
    format: str,
    start_at: datetime,
    round_interval: timedelta,
    versions: Sequence[BotVersion],
    visibility: str,
    games_per_table: int = 1,
    duplicate: bool = False,
    rated: bool = True,
    advance: int | None = None,
    rounds: int | None = None,
    now: datetime,
) -> League:
    """A scheduled league of ``versions`` already frozen, seeded in order: a competition's
    final event, whose entrants their owners entered there (so none is invited) and
    whose versions were frozen at its submission freeze (the start keeps them)."""
    points = formats.default_points(ladder.seats)
    if len({version.bot_id for version in versions}) != len(versions):
        raise LeagueEntryError("a bot is entered twice: each bot enters once.")
    return _league_store(
        organiser=organiser,
        ladder=ladder,
        name=name,
        slug=slug,
        format=format,
        visibility=visibility,
        start_at=start_at,
        round_interval=round_interval,
        games_per_table=games_per_table,
        duplicate=duplicate,
        rated=rated,
        points=list(points),
        advance=advance,
        rounds=rounds,
        max_tables=DEFAULT_MAX_TABLES,
        now=now,
        frozen_final=True,
        entries=[
            LeagueEntry(
                bot_id=version.bot_id,
                bot_version=version,
                seed=seed,
                status=EntryStatus.ACCEPTED,
            )
            for seed, version in enumerate(versions, start=1)
        ],
    )


def _entries_left(league: League) -> int:
    return league.entries.exclude(status=EntryStatus.WITHDRAWN).count()


def league_entry_add(*, league: League, bot: Bot, by: User) -> LeagueEntry:
    """Enter ``bot`` before the start: accepted at once, or invited when it is not ``by``'s."""
    with transaction.atomic():
        locked = lock_league(league)
        if locked.status != LeagueStatus.SCHEDULED:
            raise LeagueEntryError(f"{locked} has started: its entrants are fixed.")
        _check_bot(bot=bot, organiser=by, ladder=locked.ladder, visibility=locked.visibility)
        status = _entry_status(bot, by)
        existing = locked.entries.filter(bot=bot).first()
        if existing is not None:
            if existing.status != EntryStatus.WITHDRAWN:
                raise LeagueEntryError(f"{bot.name} is already entered in {locked}.")
            existing.status, existing.reason = status, ""
            existing.save(update_fields=["status", "reason"])
            return existing
        last = locked.entries.order_by("-seed").values_list("seed", flat=True).first() or 0
        return LeagueEntry.objects.create(league=locked, bot=bot, seed=last + 1, status=status)


def _remover(entry: LeagueEntry, league: League, by: User) -> str:
    """Who takes ``entry`` out, as its reason says it."""
    if may_manage_bot(by, entry.bot, staff=False):
        return "its owner" if entry.bot.team_id is None else "its team"
    if league.organiser_id == by.pk:
        return "the organiser"
    return f"staff ({by.username})"


def league_entry_remove(
    *, league: League, bot: Bot, by: User, now: datetime | None = None
) -> LeagueEntry:
    """Take ``bot`` out of ``league``; ``by`` (the bot's owner, the organiser or staff) is named.

    Before the start it is withdrawn and plays nothing; the league must keep a
    full table. Once started (running or paused) it forfeits as an entrant
    whose version broke: its games not queued yet become walkovers when their
    round starts (Swiss no longer pairs it; a knockout never lets it through),
    games already queued or running still play, and its results so far stay
    in the standings.
    """
    now = now or timezone.now()
    with transaction.atomic():
        locked = lock_league(league)
        if locked.status in (LeagueStatus.FINISHED, LeagueStatus.CANCELLED):
            raise LeagueEntryError(
                f"{locked} is {locked.status}: its entrants and results are final, "
                "there is nothing left to withdraw from."
            )
        # The league's row lock guards its entries.
        entry = (
            locked.entries.select_related("bot")
            .filter(bot=bot)
            .exclude(status=EntryStatus.WITHDRAWN)
            .first()
        )
        if entry is None:
            raise LeagueEntryError(f"{bot.name} is not entered in {locked}.")
        who = _remover(entry, locked, by)
        if locked.started_at is None:
            left = _entries_left(locked) - 1
            if left < locked.ladder.seats:
                raise LeagueEntryError(
                    f"without {bot.name}, {left} entrants cannot fill a table of "
                    f"{locked.ladder.seats} seats: enter another bot first."
                )
            entry.status = EntryStatus.WITHDRAWN
            entry.reason = f"removed before the start by {who}"
            entry.save(update_fields=["status", "reason"])
            return entry
        if entry.status == EntryStatus.FORFEITED:
            raise LeagueEntryError(
                f"{bot.name} has already forfeited {locked} ({entry.reason}): "
                "it plays no more games."
            )
        if entry.status == EntryStatus.ELIMINATED or entry.last_round is not None:
            raise LeagueEntryError(
                f"{bot.name} is already out of {locked} (round {entry.last_round}): "
                "it plays no more games."
            )
        forfeit_entry(entry, f"withdrawn by {who} on {now:%Y-%m-%d %H:%M} UTC")
        # Its byes to come are gone: the table shows that at once.
        league_standings_recompute(league=locked, now=now)
    return entry


def league_entry_respond(*, entry: LeagueEntry, accept: bool) -> LeagueEntry:
    """The bot's owner accepts or declines an invitation."""
    with transaction.atomic():
        locked = lock_league(entry.league)
        current = LeagueEntry.objects.select_for_update().get(pk=entry.pk)
        if locked.status != LeagueStatus.SCHEDULED:
            raise LeagueEntryError(f"{locked} has started: its entrants are fixed.")
        if current.status != EntryStatus.INVITED:
            raise LeagueEntryError(f"{current.bot} has no open invitation to {locked}.")
        current.status = EntryStatus.ACCEPTED if accept else EntryStatus.WITHDRAWN
        current.reason = "" if accept else "the invitation was declined"
        current.save(update_fields=["status", "reason"])
    return current
