"""Writes on leagues: creating them, entrants, the calendar, rounds, results and standings.

The life of a league, driven by :func:`league_advance` (the beat task
``league_tick``: every minute, and once at each round's time):

1. ``scheduled``: entrants may change until ``start_at``.
2. At ``start_at``: every accepted entrant's active version is frozen, the
   rounds are put on the calendar (``start_at + k * round_interval``, one
   clocked beat job each) and a round robin stores all its fixtures.
3. At a round's time (Swiss and knockout: once the previous round is over)
   its tables are formed and stored, and each game becomes a match through
   ``matches.services.match_create``, which queues it for a worker.
4. Finished matches are copied into the league's seats; a round whose games
   all ended closes (knockout: the top k of each table go through); the
   standings are recomputed; after the last round the league finishes.

Every step holds the league's row lock, so the minute tick and a round's
clocked job never act twice. ``now`` parameters let tests drive the clock.
"""

from __future__ import annotations

import json
import logging
import math
import secrets
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.db.models import Count
from django.utils import timezone
from django_celery_beat.models import (
    ClockedSchedule,
    IntervalSchedule,
    PeriodicTask,
    PeriodicTasks,
)

from arena.bots.models import Bot, BotVersion, VersionStatus, Visibility
from arena.errors import ArenaError
from arena.ladders.models import Ladder
from arena.matches.models import Match, MatchStatus, Participant
from arena.matches.services import (
    MAX_SEED,
    PLAYABLE_FROZEN,
    MatchSetupError,
    match_cancel,
    match_create,
)
from arena.players.models import User
from arena.queueing import publish_on_commit

from . import formats, scoring
from .models import (
    EntryStatus,
    GameStatus,
    League,
    LeagueBye,
    LeagueEntry,
    LeagueFixture,
    LeagueFormat,
    LeagueGame,
    LeagueGameSeat,
    LeagueRound,
    LeagueStanding,
    LeagueStatus,
    LeagueVisibility,
    RoundStatus,
)
from .selectors import bot_rule_systems, league_entry_is_invitation, league_units

log = logging.getLogger(__name__)

TICK_TASK = "arena.leagues.tasks.league_tick"
#: The league's beat job runs this often: it collects results and starts late rounds.
TICK_SECONDS = 60
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


# --------------------------------------------------------------------------- creating


def _check_bot(*, bot: Bot, organiser: User, ladder: Ladder, visibility: str) -> None:
    if bot.visibility == Visibility.PRIVATE and bot.owner_id != organiser.pk:
        raise LeagueEntryError(f"{bot.name} is a private bot: only its owner can enter it.")
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


def _planned_rounds(
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
) -> int:
    """Check a league's settings; returns its number of rounds."""
    if format not in LeagueFormat.values:
        raise LeagueConfigError(
            f"unknown format {format!r}: use one of {', '.join(LeagueFormat.values)}."
        )
    if visibility == LeagueVisibility.PUBLIC and not organiser.is_staff:
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
        planned = _planned_rounds(
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
    league_validate(
        organiser=organiser,
        ladder=ladder,
        format=format,
        visibility=visibility,
        start_at=start_at,
        round_interval=round_interval,
        entrants=len(bots),
        games_per_table=games_per_table,
        points_per_rank=points,
        advance=advance,
        rounds=rounds,
        max_tables=max_tables,
        now=now,
    )
    for bot in bots:
        _check_bot(bot=bot, organiser=organiser, ladder=ladder, visibility=visibility)
    try:
        with transaction.atomic():
            league = League.objects.create(
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
            LeagueEntry.objects.bulk_create(
                LeagueEntry(league=league, bot=bot, seed=seed, status=_entry_status(bot, organiser))
                for seed, bot in enumerate(bots, start=1)
            )
            league.tick_task = _tick_task_create(league)
            league.save(update_fields=["tick_task"])
    except IntegrityError:
        raise LeagueConfigError(f"a league with the slug {slug!r} already exists.") from None
    return league


def _lock(league: League) -> League:
    return League.objects.select_related("ladder").select_for_update(of=("self",)).get(pk=league.pk)


def _entries_left(league: League) -> int:
    return league.entries.exclude(status=EntryStatus.WITHDRAWN).count()


def league_entry_add(*, league: League, bot: Bot, by: User) -> LeagueEntry:
    """Enter ``bot`` before the start: accepted at once, or invited when it is not ``by``'s."""
    with transaction.atomic():
        locked = _lock(league)
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
    if entry.bot.owner_id == by.pk:
        return "its owner"
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
        locked = _lock(league)
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
        _forfeit(entry, f"withdrawn by {who} on {now:%Y-%m-%d %H:%M} UTC")
        # Its byes to come are gone: the table shows that at once.
        league_standings_recompute(league=locked, now=now)
    return entry


def league_entry_respond(*, entry: LeagueEntry, accept: bool) -> LeagueEntry:
    """The bot's owner accepts or declines an invitation."""
    with transaction.atomic():
        locked = _lock(entry.league)
        current = LeagueEntry.objects.select_for_update().get(pk=entry.pk)
        if locked.status != LeagueStatus.SCHEDULED:
            raise LeagueEntryError(f"{locked} has started: its entrants are fixed.")
        if current.status != EntryStatus.INVITED:
            raise LeagueEntryError(f"{current.bot} has no open invitation to {locked}.")
        current.status = EntryStatus.ACCEPTED if accept else EntryStatus.WITHDRAWN
        current.reason = "" if accept else "the invitation was declined"
        current.save(update_fields=["status", "reason"])
    return current


# --------------------------------------------------------------------------- beat jobs


def _tick_task_create(league: League) -> PeriodicTask:
    interval, _ = IntervalSchedule.objects.get_or_create(
        every=TICK_SECONDS, period=IntervalSchedule.SECONDS
    )
    return PeriodicTask.objects.create(
        name=f"league {league.pk}: tick",
        task=TICK_TASK,
        interval=interval,
        args=json.dumps([league.pk]),
        # The first run is at start_at: that run starts the league.
        start_time=league.start_at,
        description=f"Advances the league {league.slug}: start, rounds, results.",
    )


def _round_tasks_create(rounds: Sequence[LeagueRound], league: League) -> None:
    """One one-off clocked job per round, at its time; bulk-created for long calendars."""
    clocks = ClockedSchedule.objects.bulk_create(
        ClockedSchedule(clocked_time=rnd.scheduled_at) for rnd in rounds
    )
    tasks = PeriodicTask.objects.bulk_create(
        PeriodicTask(
            name=f"league {league.pk}: round {rnd.number}",
            task=TICK_TASK,
            clocked=clock,
            one_off=True,
            args=json.dumps([league.pk]),
            description=f"Starts round {rnd.number} of the league {league.slug} on time.",
        )
        for rnd, clock in zip(rounds, clocks, strict=True)
    )
    for rnd, task in zip(rounds, tasks, strict=True):
        rnd.clock_task = task
    LeagueRound.objects.bulk_update(rounds, ["clock_task"])
    # bulk_create skips PeriodicTask.save(), which tells beat to reload: do it once here.
    PeriodicTasks.update_changed()


def _beat_enable(league: League, enabled: bool) -> None:
    """Switch the clocked jobs of rounds not started; the tick keeps collecting results."""
    ids = LeagueRound.objects.filter(
        league=league, status=RoundStatus.SCHEDULED, clock_task__isnull=False
    ).values_list("clock_task_id", flat=True)
    PeriodicTask.objects.filter(pk__in=list(ids)).update(enabled=enabled)
    # A bulk update skips the model's save(): tell beat to reload its schedule.
    PeriodicTasks.update_changed()


def _beat_delete(league: League) -> None:
    round_tasks = LeagueRound.objects.filter(league=league, clock_task__isnull=False)
    task_ids = [league.tick_task_id, *round_tasks.values_list("clock_task_id", flat=True)]
    clocked_ids = PeriodicTask.objects.filter(pk__in=task_ids).values_list("clocked_id", flat=True)
    PeriodicTask.objects.filter(pk__in=task_ids).delete()
    ClockedSchedule.objects.filter(pk__in=[c for c in clocked_ids if c is not None]).delete()
    PeriodicTasks.update_changed()


# --------------------------------------------------------------------------- organiser


def _move(locked: League, to: LeagueStatus) -> None:
    current = LeagueStatus(locked.status)
    if to not in LEAGUE_TRANSITIONS[current]:
        allowed = ", ".join(sorted(LEAGUE_TRANSITIONS[current])) or "none (final)"
        raise LeagueTransitionError(
            f"{locked} is {current}: it cannot become {to} (allowed: {allowed})."
        )
    locked.status = to


def league_pause(*, league: League, now: datetime | None = None) -> League:
    """No round starts while paused; games already queued still play and are recorded.

    The league's minute tick keeps running (it collects results and starts
    nothing while paused); the clocked jobs of the rounds are switched off.
    """
    with transaction.atomic():
        locked = _lock(league)
        was = LeagueStatus(locked.status)
        _move(locked, LeagueStatus.PAUSED)
        locked.paused_from = was
        locked.paused_at = now or timezone.now()
        locked.save(update_fields=["status", "paused_from", "paused_at"])
        _beat_enable(locked, False)
    return locked


def league_resume(*, league: League, now: datetime | None = None) -> League:
    """Back to the calendar; rounds whose time passed move to the next free slots.

    The rhythm is kept (a round every day at 18:00 stays at 18:00): every
    round not started moves by the same whole number of intervals, the
    smallest that puts the next one at or after now.
    """
    now = now or timezone.now()
    with transaction.atomic():
        locked = _lock(league)
        if locked.status != LeagueStatus.PAUSED:
            raise LeagueTransitionError(
                f"{locked} is {locked.status}: only a paused league resumes."
            )
        _move(locked, LeagueStatus(locked.paused_from or LeagueStatus.SCHEDULED))
        if locked.status == LeagueStatus.SCHEDULED and locked.start_at < now:
            locked.start_at = now
            PeriodicTask.objects.filter(pk=locked.tick_task_id).update(start_time=now)
        pending = list(
            LeagueRound.objects.filter(league=locked, status=RoundStatus.SCHEDULED).order_by(
                "number"
            )
        )
        if pending and pending[0].scheduled_at < now:
            steps = math.ceil((now - pending[0].scheduled_at) / locked.round_interval)
            shift = steps * locked.round_interval
            for rnd in pending:
                rnd.scheduled_at += shift
            LeagueRound.objects.bulk_update(pending, ["scheduled_at"])
            tasks = PeriodicTask.objects.filter(
                pk__in=[rnd.clock_task_id for rnd in pending if rnd.clock_task_id]
            ).in_bulk()
            for rnd in pending:
                task = tasks.get(rnd.clock_task_id or 0)
                if task is not None and task.clocked_id is not None:
                    ClockedSchedule.objects.filter(pk=task.clocked_id).update(
                        clocked_time=rnd.scheduled_at
                    )
        locked.paused_from, locked.paused_at = "", None
        locked.save(update_fields=["status", "start_at", "paused_from", "paused_at"])
        _beat_enable(locked, True)
    _queue_tick(locked)
    return locked


def league_cancel(*, league: League, reason: str = "", now: datetime | None = None) -> League:
    """Stop for good: queued matches are cancelled, unplayed games void, results kept."""
    now = now or timezone.now()
    with transaction.atomic():
        locked = _lock(league)
        _move(locked, LeagueStatus.CANCELLED)
        games = LeagueGame.objects.filter(fixture__round__league=locked).exclude(
            status__in=GAME_FINAL
        )
        for match in Match.objects.filter(league_game__in=games, status=MatchStatus.QUEUED).only(
            "pk"
        ):
            match_cancel(match=match)
        games.update(status=GameStatus.VOID)
        LeagueRound.objects.filter(league=locked).exclude(status=RoundStatus.FINISHED).update(
            status=RoundStatus.CANCELLED
        )
        locked.finished_at = now
        locked.note = reason or "cancelled by the organiser"
        locked.paused_from = ""
        locked.save(update_fields=["status", "finished_at", "note", "paused_from"])
        _beat_delete(locked)
        league_standings_recompute(league=locked, now=now)
    return locked


def _queue_tick(league: League) -> None:
    from .tasks import league_tick

    publish_on_commit(league_tick, league.pk)


# --------------------------------------------------------------------------- the tick


def league_advance(*, league: League, now: datetime | None = None) -> League:
    """Everything due at ``now``: start, collect results, close and start rounds, finish."""
    now = now or timezone.now()
    with transaction.atomic():
        locked = _lock(league)
        if locked.status == LeagueStatus.SCHEDULED and now >= locked.start_at:
            _start(locked, now)
        if locked.status not in (LeagueStatus.RUNNING, LeagueStatus.PAUSED):
            return locked
        changed = _collect(locked)
        # A round may end at once (walkovers), letting the next start: loop until quiet.
        for _ in range(MAX_ROUNDS):
            closed = _close_rounds(locked, now)
            started = _start_due_rounds(locked, now) if locked.status == LeagueStatus.RUNNING else 0
            changed = changed or bool(closed or started)
            if not (closed or started):
                break
        unfinished = LeagueRound.objects.filter(league=locked).exclude(status=RoundStatus.FINISHED)
        if locked.status == LeagueStatus.RUNNING and not unfinished.exists():
            _finish(locked, now)
        elif changed:
            league_standings_recompute(league=locked, now=now)
    return locked


def _start(locked: League, now: datetime) -> None:
    """Freeze versions, put the rounds on the calendar, store a round robin's fixtures."""
    entries = list(locked.entries.select_related("bot").order_by("seed"))
    active = {
        v.bot_id: v
        for v in BotVersion.objects.filter(
            bot__in=[e.bot_id for e in entries], status=VersionStatus.ACTIVE
        )
    }
    playing = []
    for entry in entries:
        if entry.status == EntryStatus.INVITED:
            entry.status, entry.reason = (
                EntryStatus.WITHDRAWN,
                "the invitation was not accepted before the start",
            )
        elif entry.status == EntryStatus.ACCEPTED:
            version = active.get(entry.bot_id)
            if version is None:
                entry.status = EntryStatus.WITHDRAWN
                entry.reason = "no active version at the start (upload or fix the bot)"
            else:
                entry.status, entry.bot_version = EntryStatus.PLAYING, version
                playing.append(entry)
    LeagueEntry.objects.bulk_update(entries, ["status", "reason", "bot_version"])
    seats = locked.ladder.seats
    try:
        count = _planned_rounds(
            format=locked.format,
            entrants=len(playing),
            seats=seats,
            advance=locked.advance,
            rounds=locked.rounds_requested,
            max_tables=locked.max_tables,
        )
    except formats.FormatError as error:
        locked.status = LeagueStatus.CANCELLED
        locked.note = f"could not start: {error}"
        locked.finished_at = now
        locked.save(update_fields=["status", "note", "finished_at"])
        _beat_delete(locked)
        log.warning("league %s cancelled at its start: %s", locked.pk, error)
        return
    rounds = LeagueRound.objects.bulk_create(
        LeagueRound(
            league=locked,
            number=number,
            scheduled_at=locked.start_at + (number - 1) * locked.round_interval,
        )
        for number in range(1, count + 1)
    )
    _round_tasks_create(rounds, locked)
    if locked.format == LeagueFormat.ROUND_ROBIN:
        _store_round_robin(locked, rounds, playing)
    locked.status = LeagueStatus.RUNNING
    locked.started_at = now
    locked.save(update_fields=["status", "started_at"])


def _store_round_robin(
    league: League, rounds: Sequence[LeagueRound], playing: Sequence[LeagueEntry]
) -> None:
    seats = league.ladder.seats
    plans = formats.round_robin(
        len(playing),
        seats,
        max_tables=league.max_tables,
        rounds=league.rounds_requested,
        seed=secrets.randbits(32),
    )
    ids = [entry.pk for entry in playing]
    tables = [[tuple(ids[i] for i in table) for table in plan.tables] for plan in plans]
    # Seats are balanced over the whole design at once: it is known in advance.
    flat = [table for round_tables in tables for table in round_tables]
    seatings = formats.seat_tables(
        flat, seats=seats, games_per_table=league.games_per_table, duplicate=league.duplicate
    )
    position = 0
    for rnd, plan, round_tables in zip(rounds, plans, tables, strict=True):
        _store_round(
            league,
            rnd,
            round_tables,
            seatings[position : position + len(round_tables)],
            byes=[ids[i] for i in plan.byes],
        )
        position += len(round_tables)


def _store_round(
    league: League,
    rnd: LeagueRound,
    tables: Sequence[formats.Table],
    seatings: Sequence[Sequence[formats.Seating]],
    *,
    byes: Iterable[int] = (),
    advances: Sequence[int] | None = None,
) -> None:
    """Bulk-store a round's tables, games (with their secret seeds), seats and byes."""
    seats = league.ladder.seats
    fixtures = LeagueFixture.objects.bulk_create(
        LeagueFixture(
            round=rnd, table=index, advance=None if advances is None else advances[index - 1]
        )
        for index in range(1, len(tables) + 1)
    )
    games: list[LeagueGame] = []
    seat_entries: list[formats.Seating] = []
    for fixture, table_games in zip(fixtures, seatings, strict=True):
        deal_seeds: dict[int, int] = {}
        for number, seating in enumerate(table_games):
            deal = number // seats if league.duplicate else number
            if deal not in deal_seeds:
                deal_seeds[deal] = secrets.randbelow(MAX_SEED + 1)
            games.append(
                LeagueGame(fixture=fixture, number=number, deal=deal, seed=deal_seeds[deal])
            )
            seat_entries.append(seating)
    LeagueGame.objects.bulk_create(games, batch_size=2000)
    LeagueGameSeat.objects.bulk_create(
        (
            LeagueGameSeat(game=game, seat=seat, entry_id=entry)
            for game, seating in zip(games, seat_entries, strict=True)
            for seat, entry in enumerate(seating)
        ),
        batch_size=5000,
    )
    LeagueBye.objects.bulk_create(LeagueBye(round=rnd, entry_id=entry) for entry in byes)


def _seat_history(league: League) -> dict[int, list[int]]:
    seats = league.ladder.seats
    history: dict[int, list[int]] = defaultdict(lambda: [0] * seats)
    rows = (
        LeagueGameSeat.objects.filter(game__fixture__round__league=league)
        .values_list("entry_id", "seat")
        .annotate(n=Count("id"))
        .order_by()
    )
    for entry, seat, n in rows:
        history[entry][seat] += n
    return dict(history)


def _played_tables(league: League) -> set[frozenset[int]]:
    members: dict[int, set[int]] = defaultdict(set)
    rows = LeagueGameSeat.objects.filter(
        game__fixture__round__league=league, game__number=0
    ).values_list("game__fixture_id", "entry_id")
    for fixture, entry in rows:
        members[fixture].add(entry)
    return {frozenset(m) for m in members.values()}


def league_round_store_swiss(*, league: League, rnd: LeagueRound) -> None:
    """Form and store a Swiss round: neighbours in the standings, no table repeated if avoidable."""
    seats = league.ladder.seats
    lines = _compute_lines(league)
    active = set(league.entries.filter(status=EntryStatus.PLAYING).values_list("pk", flat=True))
    order = [line.entry for line in lines if line.entry in active]
    byes = _byes_so_far(league)
    players, sitting_out = formats.swiss_byes(order, seats, byes)
    if len(players) < seats:
        _store_round(league, rnd, [], [], byes=sitting_out)
        return
    history = _seat_history(league)
    # Games short of whole rotations leave seats to even out: pairing helps then.
    uneven = not league.duplicate and league.games_per_table % seats
    tables = formats.swiss_tables(
        players, seats, _played_tables(league), history=history if uneven else None
    )
    seatings = formats.seat_tables(
        tables,
        seats=seats,
        games_per_table=league.games_per_table,
        duplicate=league.duplicate,
        history=history,
    )
    _store_round(league, rnd, tables, seatings, byes=sitting_out)


def _knockout_survivors(league: League, rnd: LeagueRound) -> list[int]:
    """Who plays this knockout round, best first: by place at their last table, then seed."""
    alive = list(
        league.entries.filter(status__in=(EntryStatus.PLAYING, EntryStatus.FORFEITED))
        .filter(last_round__isnull=True)
        .values_list("pk", "seed", "status")
    )
    if rnd.number == 1:
        return [
            pk
            for pk, _, _ in sorted(alive, key=lambda row: (row[2] == EntryStatus.FORFEITED, row[1]))
        ]
    previous = LeagueRound.objects.get(league=league, number=rnd.number - 1)
    place = _previous_places(league, previous)
    # Byes of the last round count as first places; forfeited entrants go last.
    return [
        pk
        for pk, seed, status in sorted(
            alive,
            key=lambda row: (row[2] == EntryStatus.FORFEITED, place.get(row[0], 0), row[1]),
        )
    ]


def _previous_places(league: League, rnd: LeagueRound) -> dict[int, int]:
    places: dict[int, int] = {}
    by_fixture: dict[int, list[scoring.Unit]] = defaultdict(list)
    for unit in league_units(league=league, round_number=rnd.number):
        by_fixture[unit.fixture].append(unit)
    for units in by_fixture.values():
        for place, entry in enumerate(fixture_order(units, league.points_per_rank), start=1):
            places[entry] = place
    return places


def fixture_order(units: Sequence[scoring.Unit], points: Sequence[float]) -> list[int]:
    return scoring.fixture_order(units, points)


def league_round_store_knockout(*, league: League, rnd: LeagueRound) -> None:
    """Form and store a knockout round from the plan: byes to the best, serpentine tables."""
    seats = league.ladder.seats
    started = league.entries.filter(status__in=IN_PLAY).count()
    plan = formats.knockout_plan(started, seats, league.advance or 1)[rnd.number - 1]
    order = _knockout_survivors(league, rnd)
    tables, _ = formats.knockout_tables(order, plan)
    seatings = formats.seat_tables(
        tables,
        seats=seats,
        games_per_table=league.games_per_table,
        duplicate=league.duplicate,
        history=_seat_history(league),
    )
    # Byes in a knockout just go through: not stored as byes (they earn no points).
    _store_round(league, rnd, tables, seatings, advances=plan.advance)


def _start_due_rounds(locked: League, now: datetime) -> int:
    """Start every round that is due; Swiss and knockout rounds wait for the previous one."""
    started = 0
    pending = LeagueRound.objects.filter(
        league=locked, status=RoundStatus.SCHEDULED, scheduled_at__lte=now
    ).order_by("number")
    for rnd in pending:
        if locked.format != LeagueFormat.ROUND_ROBIN:
            unfinished = LeagueRound.objects.filter(league=locked, number__lt=rnd.number).exclude(
                status=RoundStatus.FINISHED
            )
            if unfinished.exists():
                break
            if locked.format == LeagueFormat.SWISS:
                league_round_store_swiss(league=locked, rnd=rnd)
            else:
                league_round_store_knockout(league=locked, rnd=rnd)
        _queue_games(locked, rnd)
        rnd.status, rnd.started_at = RoundStatus.RUNNING, now
        rnd.save(update_fields=["status", "started_at"])
        started += 1
    return started


def _unplayable(version: BotVersion | None) -> str | None:
    """Why a frozen version cannot play any more, or None if it can."""
    if version is None:
        return "it has no frozen version"
    if version.status not in PLAYABLE_FROZEN:
        return (
            f"its frozen version {version} is {version.status}: only versions that passed "
            "validation (active, or retired by a newer upload) play"
        )
    return None


def _forfeit(entry: LeagueEntry, why: str) -> None:
    entry.status = EntryStatus.FORFEITED
    entry.reason = f"{why}, so its remaining games are lost by forfeit"
    entry.save(update_fields=["status", "reason"])
    # A bye is worth a table's average points: an entrant that left earns none after it.
    LeagueBye.objects.filter(entry=entry, round__status=RoundStatus.SCHEDULED).delete()


def _forfeit_unplayable(entries: Iterable[LeagueEntry]) -> None:
    """Entrants whose frozen version genuinely cannot play forfeit the rest of the league.

    A newer upload retires the frozen version but does not stop it: the
    league keeps playing exactly the version it froze.
    """
    for entry in entries:
        why = _unplayable(entry.bot_version)
        if entry.status != EntryStatus.FORFEITED and why is not None:
            _forfeit(entry, why)


def _queue_games(locked: League, rnd: LeagueRound) -> None:
    """Create and queue a match per game (match_create queues it after commit)."""
    games = list(
        LeagueGame.objects.filter(fixture__round=rnd, status=GameStatus.SCHEDULED).order_by(
            "fixture__table", "number"
        )
    )
    seats_of: dict[int, list[LeagueGameSeat]] = defaultdict(list)
    for seat in (
        LeagueGameSeat.objects.filter(game__in=games)
        .select_related("entry__bot_version__bot")
        .order_by("game_id", "seat")
    ):
        seats_of[seat.game_id].append(seat)
    entries = {s.entry_id: s.entry for seats in seats_of.values() for s in seats}
    _forfeit_unplayable(entries.values())
    walkover_seats: list[LeagueGameSeat] = []
    for game in games:
        seats = seats_of[game.pk]
        forfeited = [entries[s.entry_id].status == EntryStatus.FORFEITED for s in seats]
        if any(forfeited):
            if all(forfeited):
                game.status = GameStatus.VOID
                continue
            for seat, rank, lost in zip(
                seats, scoring.walkover_ranks(forfeited), forfeited, strict=True
            ):
                seat.money, seat.rank, seat.forfeit = 0, rank, lost
            walkover_seats.extend(seats)
            game.status = GameStatus.WALKOVER
            continue
        versions = [entries[s.entry_id].bot_version for s in seats]
        if not locked.ladder.is_open:
            log.warning(
                "league %s game %s not played: %s is closed", locked.pk, game.pk, locked.ladder
            )
            game.status = GameStatus.VOID
            continue
        try:
            game.match = match_create(
                ladder_id=locked.ladder_id,
                game=locked.ladder.game,
                versions=[v for v in versions if v is not None],
                seed=game.seed,
                rated=locked.rated,
                allow_retired=True,
            )
        except MatchSetupError as error:
            # Every seat's version passed _forfeit_unplayable: the refusal is the
            # engine's (the ladder's options), not an entrant's fault.
            log.warning("league %s game %s not played: %s", locked.pk, game.pk, error)
            game.status = GameStatus.VOID
            continue
        game.status = GameStatus.QUEUED
    LeagueGame.objects.bulk_update(games, ["status", "match"], batch_size=2000)
    LeagueGameSeat.objects.bulk_update(walkover_seats, ["money", "rank", "forfeit"])


def _collect(locked: League) -> int:
    """Copy the results of league matches that ended; returns how many games changed."""
    games = list(
        LeagueGame.objects.filter(
            fixture__round__league=locked,
            status=GameStatus.QUEUED,
            match__status__in=MATCH_FINAL,
        ).select_related("match")
    )
    if not games:
        return 0
    results = {
        (p.match_id, p.seat): p
        for p in Participant.objects.filter(match_id__in=[g.match_id for g in games])
    }
    seats = list(LeagueGameSeat.objects.filter(game__in=games))
    by_game = {g.pk: g for g in games}
    for seat in seats:
        game = by_game[seat.game_id]
        assert game.match is not None
        if game.match.status != MatchStatus.FINISHED:
            continue
        participant = results[(game.match_id, seat.seat)]
        seat.money, seat.rank = participant.money, participant.rank
        seat.forfeit = bool(participant.forfeit)
    for game in games:
        assert game.match is not None
        finished = game.match.status == MatchStatus.FINISHED
        # An infrastructure failure or a cancelled match is nobody's result.
        game.status = GameStatus.FINISHED if finished else GameStatus.VOID
    LeagueGameSeat.objects.bulk_update(seats, ["money", "rank", "forfeit"])
    LeagueGame.objects.bulk_update(games, ["status"])
    return len(games)


def _close_rounds(locked: League, now: datetime) -> int:
    closed = 0
    running = LeagueRound.objects.filter(league=locked, status=RoundStatus.RUNNING).order_by(
        "number"
    )
    for rnd in running:
        if LeagueGame.objects.filter(fixture__round=rnd).exclude(status__in=GAME_FINAL).exists():
            continue
        if locked.format == LeagueFormat.KNOCKOUT:
            _knockout_advance(locked, rnd)
        rnd.status, rnd.finished_at = RoundStatus.FINISHED, now
        rnd.save(update_fields=["status", "finished_at"])
        closed += 1
    return closed


def _knockout_advance(locked: League, rnd: LeagueRound) -> None:
    """The top ``advance`` of each table go through; the others are out in this round.

    An entrant that forfeited (its version broke, or it was withdrawn) goes
    last at its table and never goes through, nor on a bye: its place goes to
    the best entrant out in this round that did not forfeit (a lucky loser:
    the best place at its table, then the seed), so the next round keeps the
    size the plan gives it. Only when no such entrant is left does a forfeited
    one keep the place, to lose its games there by walkover.
    """
    by_fixture: dict[int, list[scoring.Unit]] = defaultdict(list)
    for unit in league_units(league=locked, round_number=rnd.number):
        by_fixture[unit.fixture].append(unit)
    fixtures = {f.pk: f for f in LeagueFixture.objects.filter(round=rnd)}
    members: dict[int, set[int]] = defaultdict(set)
    for fixture_id, entry_id in LeagueGameSeat.objects.filter(
        game__fixture__round=rnd, game__number=0
    ).values_list("game__fixture_id", "entry_id"):
        members[fixture_id].add(entry_id)
    entries = {e.pk: e for e in locked.entries.filter(status__in=IN_PLAY)}
    final = (
        len(fixtures) == 1
        and not LeagueRound.objects.filter(league=locked, number__gt=rnd.number).exists()
    )

    def forfeited(entry_id: int) -> bool:
        return entries[entry_id].status == EntryStatus.FORFEITED

    places: dict[int, int] = {}
    through: list[int] = []
    out: list[int] = []
    for fixture_id, fixture in fixtures.items():
        ordered = fixture_order(by_fixture.get(fixture_id, []), locked.points_per_rank)
        # Entrants with no unit (every game void) keep their seed order, after the rest.
        ordered += sorted(members[fixture_id] - set(ordered), key=lambda e: entries[e].seed)
        ordered.sort(key=forfeited)
        advancing = 0 if final else fixture.advance or 1
        for place, entry_id in enumerate(ordered, start=1):
            places[entry_id] = place
            (through if place <= advancing else out).append(entry_id)
    # Byes go through without playing; a forfeited one goes out below everyone out here.
    byes = [e for e, entry in entries.items() if entry.last_round is None and e not in places]
    places.update(dict.fromkeys(byes, locked.ladder.seats + 1))
    quitters = [e for e in [*through, *byes] if forfeited(e)]
    lucky = sorted((e for e in out if not forfeited(e)), key=lambda e: (places[e], entries[e].seed))
    out = [e for e in out if e not in lucky[: len(quitters)]]
    out += quitters[: len(lucky)]
    for entry_id in out:
        entry = entries[entry_id]
        entry.last_round, entry.last_place = rnd.number, places[entry_id]
        if entry.status == EntryStatus.PLAYING and not (final and places[entry_id] == 1):
            entry.status = EntryStatus.ELIMINATED
        entry.save(update_fields=["last_round", "last_place", "status"])


def _finish(locked: League, now: datetime) -> None:
    lines = league_standings_recompute(league=locked, now=now)
    locked.status = LeagueStatus.FINISHED
    locked.finished_at = now
    locked.winner_id = lines[0].entry_id if lines else None
    locked.save(update_fields=["status", "finished_at", "winner"])
    _beat_delete(locked)


# --------------------------------------------------------------------------- standings


def _byes_so_far(league: League) -> Counter[int]:
    """Rounds each entrant sat out so far.

    A round robin stores every bye at the start; one counts once its round has begun.
    """
    return Counter(
        LeagueBye.objects.filter(
            round__league=league, round__status__in=(RoundStatus.RUNNING, RoundStatus.FINISHED)
        ).values_list("entry_id", flat=True)
    )


def _compute_lines(league: League) -> list[scoring.Line]:
    entries = list(
        league.entries.filter(status__in=IN_PLAY).values_list(
            "pk", "seed", "last_round", "last_place"
        )
    )
    seeds = {pk: seed for pk, seed, _, _ in entries}
    stages = None
    if league.format == LeagueFormat.KNOCKOUT:
        # Still in: above everyone out; out: by the round reached, then the place there.
        stages = {
            pk: (MAX_ROUNDS + 1, 0) if last is None else (last, place or 0)
            for pk, _, last, place in entries
        }
    byes = _byes_so_far(league)
    mean_points = sum(league.points_per_rank) / len(league.points_per_rank)
    return scoring.standings(
        seeds,
        league_units(league=league),
        points_per_rank=league.points_per_rank,
        byes=byes,
        # A bye is worth a table's average points: sitting out neither helps nor hurts.
        bye_points=mean_points * league.games_per_table,
        stages=stages,
    )


def league_standings_recompute(
    *, league: League, now: datetime | None = None
) -> list[LeagueStanding]:
    """Recompute and store the table from every result (idempotent)."""
    lines = _compute_lines(league)
    rows = [
        LeagueStanding(
            league=league,
            entry_id=line.entry,
            position=position,
            points=line.points,
            money=line.money,
            games=line.games,
            results=line.results,
            wins=line.wins,
            forfeits=line.forfeits,
            byes=line.byes,
            rating=line.rating,
            rated_results=line.rated,
        )
        for position, line in enumerate(lines, start=1)
    ]
    with transaction.atomic():
        LeagueStanding.objects.filter(league=league).delete()
        LeagueStanding.objects.bulk_create(rows, batch_size=2000)
        League.objects.filter(pk=league.pk).update(standings_updated_at=now or timezone.now())
    return rows
