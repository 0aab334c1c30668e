"""Writes on tables: a person sits down against bots, answers the decisions asked, and the
worker records how the game ended."""

from __future__ import annotations

import gzip
import logging
import secrets
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import DatabaseError, connection, models, transaction
from django.utils import timezone

import vegas_engine
from arena.bots.models import Bot, BotVersion, VersionStatus, Visibility
from arena.bots.sandboxing import is_trusted
from arena.bots.selectors import may_manage_bot
from arena.errors import ArenaError
from arena.ladders.models import QualificationStatus
from arena.live.services import live_drop
from arena.matches.games import MatchGame
from arena.matches.outcomes import SeatOutcome
from arena.matches.services import MAX_SEED
from arena.players.models import User
from arena.transitions import check_move
from vegas_engine import OptionValue

from .models import ACTIVE, Table, TableSeat, TableStatus, table_feed

log = logging.getLogger(__name__)

TABLE_TRANSITIONS: Mapping[TableStatus, frozenset[TableStatus]] = {
    TableStatus.QUEUED: frozenset({TableStatus.PLAYING, TableStatus.CANCELLED, TableStatus.FAILED}),
    TableStatus.PLAYING: frozenset({TableStatus.FINISHED, TableStatus.FAILED}),
    TableStatus.FINISHED: frozenset(),
    TableStatus.FAILED: frozenset(),
    TableStatus.CANCELLED: frozenset(),
}

#: The bots' limits at a table: a ladder's usual ones, with a bank for the longer games.
BOT_DECISION_MS = 1000
BOT_BANK_MS = 20_000
BOT_MEMORY_MB = 256
#: The advisory lock serialising the platform-wide count of open tables (PostgreSQL).
TABLES_LOCK_KEY = 0x7461626C  # "tabl"
#: The time a person's answer takes to reach the referee (database, seat, pipe): the
#: page's deadline comes this much before the referee's.
ANSWER_MARGIN = timedelta(seconds=1)


class TableError(ArenaError):
    """A table that cannot be set as asked."""

    code = "table_invalid"


class TableLimitError(ArenaError):
    """Too many tables at once for one person."""

    code = "table_limit"


class TablesFullError(ArenaError):
    """Every table the platform keeps open at once is taken (ARENA_TABLES_OPEN_MAX)."""

    code = "tables_full"
    http_status = 503
    retry_after = 120


class TableActionError(ArenaError):
    """An answer that cannot be taken: not legal, too late, or no decision asked."""

    code = "table_action"


class TableTransitionError(ArenaError):
    code = "table_transition"


class TableStoppedError(ArenaError):
    """An answer to a table whose game stopped on our side (its worker gone): nothing will
    read it; the person starts a new table."""

    code = "table_stopped"
    http_status = 409


def _worker_gone_reason() -> str:
    return (
        f"its worker is gone (silent for over {settings.ARENA_TABLE_LEASE_SECONDS} s: "
        "stopped or restarted)"
    )


def _move(locked: Table, to: TableStatus) -> None:
    check_move(
        TABLE_TRANSITIONS,
        TableStatus(locked.status),
        to,
        what=f"table {locked.pk}",
        error=TableTransitionError,
    )
    locked.status = to


def _lock(table_id: int) -> Table:
    return Table.objects.select_for_update().get(pk=table_id)


# --------------------------------------------------------------------------- sitting down


def _playing_version(player: User, bot: Bot, rules: str) -> BotVersion:
    """The version of ``bot`` that plays at the table: its active one, if it plays ``rules``."""
    if bot.visibility == Visibility.PRIVATE and not may_manage_bot(player, bot):
        raise TableError(f"no bot {bot.pk}: choose among the bots you can see.")
    version = BotVersion.objects.filter(bot=bot, status=VersionStatus.ACTIVE).first()
    if version is None:
        raise TableError(f"{bot.name} has no active version: choose a bot that plays.")
    # House bots play every rule system; an uploaded bot, those whose pre-flight it passed.
    if not is_trusted(version) and not version.qualifications.filter(
        ladder__rules=rules, status=QualificationStatus.PASSED
    ):
        raise TableError(
            f"{bot.name} has not passed a pre-flight game of {rules} (on a {rules} ladder): "
            "it may not know this game. Choose a house bot or one that plays it."
        )
    return version


def _checked_options(rules: str, seats: int, options: Mapping[str, OptionValue]) -> None:
    try:
        vegas_engine.describe(rules, seats, dict(options))
    except vegas_engine.InvalidDescriptionError as error:
        raise TableError(f"the engine cannot play this game: {error}") from None


def table_create(
    *,
    player: User,
    rules: str,
    seats: int,
    seat: int,
    opponents: Sequence[Bot],
    options: Mapping[str, OptionValue] | None = None,
) -> Table:
    """Seat ``player`` at ``seat`` of a new unrated game, ``opponents`` in the other seats in
    order (a bot may take several); :func:`arena.tables.flows.table_create` also queues
    its game for a worker.

    Opponents are bots the player may see with an active version that plays
    ``rules`` (house bots play all). A player has at most
    ARENA_TABLES_PER_PLAYER tables waiting or being played at once, the
    platform ARENA_TABLES_OPEN_MAX (TablesFullError).
    """
    options = dict(options or {})
    _checked_options(rules, seats, options)
    if not 0 <= seat < seats:
        raise TableError(f"choose your seat among 0-{seats - 1}, not {seat}.")
    if len(opponents) != seats - 1:
        raise TableError(
            f"a game of {seats} seats needs {seats - 1} bots beside you, got {len(opponents)}."
        )
    versions = [_playing_version(player, bot, rules) for bot in opponents]
    with transaction.atomic():
        User.objects.select_for_update().get(pk=player.pk)  # one count at a time
        limit = settings.ARENA_TABLES_PER_PLAYER
        active = Table.objects.filter(player=player, status__in=ACTIVE).count()
        if active >= limit:
            raise TableLimitError(
                f"you have {active} game(s) waiting or being played and the limit is {limit}: "
                "finish or leave one first."
            )
        _check_room()
        table = Table.objects.create(
            player=player,
            **MatchGame(
                rules=rules,
                seats=seats,
                options=options,
                time_per_decision_ms=BOT_DECISION_MS,
                time_bank_ms=BOT_BANK_MS,
                memory_mb=BOT_MEMORY_MB,
            ).fields(),
            seat=seat,
            decision_seconds=settings.ARENA_TABLE_DECISION_SECONDS,
            seed=secrets.randbelow(MAX_SEED + 1),
        )
        bots = iter(versions)
        TableSeat.objects.bulk_create(
            TableSeat(table=table, seat=number, bot_version=None if number == seat else next(bots))
            for number in range(seats)
        )
    return table


def _check_room() -> None:
    """Refuse a table past the platform's cap: each holds a tables worker for its game."""
    if connection.vendor == "postgresql":  # one count at a time, platform-wide
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [TABLES_LOCK_KEY])
    limit = settings.ARENA_TABLES_OPEN_MAX
    if Table.objects.filter(status__in=ACTIVE).count() >= limit:
        raise TablesFullError(f"all {limit} tables are in use, try again in a few minutes.")


def table_cancel(*, table: Table) -> Table:
    """The person leaves a table no worker has taken yet."""
    with transaction.atomic():
        locked = _lock(table.pk)
        if locked.status != TableStatus.QUEUED:
            raise TableTransitionError(
                f"this game is {locked.get_status_display().lower()}: only a game still "
                "waiting for a worker can be left (a game being played ends when you stop "
                "answering: you forfeit after the time-out)."
            )
        _move(locked, TableStatus.CANCELLED)
        locked.finished_at = timezone.now()
        locked.save(update_fields=["status", "finished_at"])
    return locked


# --------------------------------------------------------------------------- the person's turn


def table_ask(
    *, table_id: int, request_id: int, observation: dict[str, object], time_ms: int
) -> bool:
    """The worker asks the person for a decision (the referee's request ``request_id``,
    ``time_ms`` to answer). False when the table is no longer being played."""
    now = timezone.now()
    return bool(
        Table.objects.filter(pk=table_id, status=TableStatus.PLAYING).update(
            request_id=request_id,
            observation=observation,
            asked_at=now,
            deadline_at=now + timedelta(milliseconds=time_ms) - ANSWER_MARGIN,
            answer="",
            heartbeat_at=now,
        )
    )


def table_act(*, table: Table, player: User, request_id: int, action: str) -> Table:
    """The person's answer to decision ``request_id``: one of its legal actions, in time.

    Refused, saying why, when it is not legal, too late, or answers a decision
    that is over or was answered already; refused with :class:`TableStoppedError`
    when the game stopped (a worker found gone now fails the table first). The
    worker passes it to the referee.
    """
    table_check_worker(table=table)
    with transaction.atomic():
        locked = _lock(table.pk)
        if locked.player_id != player.pk:
            raise TableActionError("this is not your table: only its player answers.")
        if locked.status == TableStatus.FAILED:
            raise TableStoppedError(
                f"this table's game stopped: {locked.error}; start a new table."
            )
        if locked.status != TableStatus.PLAYING:
            raise TableActionError(
                f"this game is {locked.get_status_display().lower()}: there is nothing to answer."
            )
        if locked.request_id != request_id or locked.observation is None:
            raise TableActionError(
                f"decision {request_id} is over: the game moved on (reload to see where it is)."
            )
        if locked.answer:
            raise TableActionError(
                f"you answered decision {request_id} already ({locked.answer!r})."
            )
        if locked.deadline_at is not None and timezone.now() > locked.deadline_at:
            raise TableActionError(
                f"too late: your {locked.decision_seconds} seconds for this decision ran out."
            )
        legal = [str(a) for a in locked.observation.get("legal_actions") or []]
        if action not in legal:
            raise TableActionError(f"{action!r} is not legal now; legal: {', '.join(legal)}.")
        locked.answer = action
        locked.save(update_fields=["answer"])
    return locked


def table_heartbeat(*, table_id: int) -> bool:
    """The worker playing the table is alive; False once it is no longer being played."""
    return bool(
        Table.objects.filter(pk=table_id, status=TableStatus.PLAYING).update(
            heartbeat_at=timezone.now()
        )
    )


def _lease_cutoff() -> datetime:
    """A table being played whose last beat is older than this lost its worker."""
    return timezone.now() - timedelta(seconds=settings.ARENA_TABLE_LEASE_SECONDS)


def table_check_worker(*, table: Table) -> bool:
    """Fail ``table`` if it is being played and its worker is gone (no beat within
    ARENA_TABLE_LEASE_SECONDS); True if it did. Called as the person polls or answers, so
    a dead worker shows within seconds rather than at the next sweep.

    Cheap when the worker beats: ``table`` as loaded decides, the lock is taken only to
    fail it."""
    if table.status != TableStatus.PLAYING or (
        table.heartbeat_at is not None and table.heartbeat_at >= _lease_cutoff()
    ):
        return False
    return _fail_if_silent(table.pk)


def _fail_if_silent(table_id: int) -> bool:
    """Fail the table if, checked again under its lock, it is still played and silent."""
    with transaction.atomic():
        locked = (
            Table.objects.select_for_update()
            .filter(pk=table_id, status=TableStatus.PLAYING)
            .filter(models.Q(heartbeat_at__lt=_lease_cutoff()) | models.Q(heartbeat_at=None))
            .first()
        )
        if locked is None:
            return False  # it beat, ended or was failed meanwhile
        reason = _worker_gone_reason()
        locked.save(update_fields=_end(locked, TableStatus.FAILED, error=reason))
    log.warning("table %s failed: %s", table_id, reason)
    return True


# --------------------------------------------------------------------------- the worker's side


def table_start(*, table: Table) -> Table:
    with transaction.atomic():
        locked = _lock(table.pk)
        _move(locked, TableStatus.PLAYING)
        locked.started_at = locked.heartbeat_at = timezone.now()
        locked.save(update_fields=["status", "started_at", "heartbeat_at"])
    return locked


def log_storage_name(table_id: int) -> str:
    return f"tables/logs/{table_id // 10_000:06d}/{table_id}.json.gz"


def _end(locked: Table, to: TableStatus, *, error: str = "") -> list[str]:
    """Move a locked table to its end; the fields to save."""
    _move(locked, to)
    locked.finished_at = timezone.now()
    locked.request_id = locked.observation = locked.asked_at = locked.deadline_at = None
    locked.answer = ""
    locked.error = error
    transaction.on_commit(lambda: _drop_live_feed(locked.pk))
    return [
        "status",
        "finished_at",
        "request_id",
        "observation",
        "asked_at",
        "deadline_at",
        "answer",
        "error",
    ]


def _drop_live_feed(table_id: int) -> None:
    try:
        live_drop(feed=table_feed(table_id))
    except DatabaseError as error:
        log.warning("table %s: live feed not dropped (the sweep will): %s", table_id, error)


def table_finish(*, table: Table, outcomes: Sequence[SeatOutcome], game_log: bytes) -> Table:
    """Record a played table: each seat's result and the compressed log."""
    seats = sorted(o.seat for o in outcomes)
    if seats != list(range(table.seats)):
        raise TableError(
            f"table {table.pk}: results for seats {seats}, expected 0-{table.seats - 1}."
        )
    name = log_storage_name(table.pk)
    compressed = gzip.compress(game_log, mtime=0)
    with transaction.atomic():
        locked = _lock(table.pk)
        fields = _end(locked, TableStatus.FINISHED)
        if default_storage.exists(name):
            default_storage.delete(name)
        locked.log = default_storage.save(name, ContentFile(compressed))
        locked.log_size = len(compressed)
        locked.save(update_fields=[*fields, "log", "log_size"])
        by_seat = {o.seat: o for o in outcomes}
        rows = list(locked.table_seats.all())
        for row in rows:
            outcome = by_seat[row.seat]
            row.money, row.rank = outcome.money, outcome.rank
            row.forfeit = outcome.forfeit or ""
        TableSeat.objects.bulk_update(rows, ["money", "rank", "forfeit"])
    return locked


def table_fail(*, table: Table, error: str) -> Table:
    """The platform could not play the table (not the person's fault): it ends, unplayed."""
    with transaction.atomic():
        locked = _lock(table.pk)
        locked.save(update_fields=_end(locked, TableStatus.FAILED, error=error))
    log.warning("table %s failed: %s", locked.pk, error)
    return locked


def tables_end_lost() -> int:
    """Beat sweep, every few seconds: tables whose worker is gone (silent for
    ARENA_TABLE_LEASE_SECONDS), and tables no worker took in time, fail (the person may
    sit down again)."""
    ended = 0
    silent = Table.objects.filter(status=TableStatus.PLAYING).filter(
        models.Q(heartbeat_at__lt=_lease_cutoff()) | models.Q(heartbeat_at=None)
    )
    for table_id in silent.values_list("pk", flat=True):
        ended += _fail_if_silent(table_id)
    waited = timedelta(seconds=settings.ARENA_TABLE_QUEUE_SECONDS)
    reason = f"no worker was free to play it within {waited}"
    stale = {"status": TableStatus.QUEUED, "created_at__lt": timezone.now() - waited}
    for table_id in Table.objects.filter(**stale).values_list("pk", flat=True):
        with transaction.atomic():
            # Checked again under the lock: a worker may have taken it meanwhile.
            locked = Table.objects.select_for_update().filter(pk=table_id, **stale).first()
            if locked is None:
                continue
            locked.save(update_fields=_end(locked, TableStatus.FAILED, error=reason))
        log.warning("table %s failed: %s", table_id, reason)
        ended += 1
    return ended
