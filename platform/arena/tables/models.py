"""Tables: a person's unrated game against bots, played in the browser.

The bots run on the workers as in any match (sandboxed, unless house bots);
the person's seat is relayed to the web: the worker stores the decision asked
(``request_id``, ``observation``, ``deadline_at``) and waits for the answer the
person posts (``answer``). Tables never touch ladders or ratings.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from arena.matches.games import MatchGame
from arena.matches.models import ForfeitCause


class TableStatus(models.TextChoices):
    """A table's life; services.TABLE_TRANSITIONS lists the moves."""

    QUEUED = "queued", "Waiting for a worker"
    """Created; its game waits for a worker."""
    PLAYING = "playing", "Playing"
    """A worker plays it: the bots decide there, the person on the page."""
    FINISHED = "finished", "Finished"
    """Played to the end (a person who walked away forfeited); result and log stored."""
    FAILED = "failed", "Failed"
    """The platform could not play it (no sandbox, its worker lost); not the person's fault."""
    CANCELLED = "cancelled", "Cancelled"
    """Left by the person before a worker took it."""


#: Tables that count against a person's limit of games at once.
ACTIVE = (TableStatus.QUEUED, TableStatus.PLAYING)


def table_feed(table_id: int) -> str:
    """The live feed (arena.live) of the table's events while it is played."""
    return f"table:{table_id}"


class Table(models.Model):
    """One game: a person at ``seat``, bots at the others; unrated."""

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tables"
    )
    rules = models.CharField(max_length=32, help_text="Rule system id of the engine.")
    seats = models.PositiveSmallIntegerField()
    options = models.JSONField(default=dict, blank=True)
    seat = models.PositiveSmallIntegerField(help_text="The person's seat.")
    # The bots' limits (MatchGame's fields); the person's are decision_seconds.
    time_per_decision_ms = models.PositiveIntegerField()
    time_bank_ms = models.PositiveIntegerField()
    memory_mb = models.PositiveIntegerField()
    decision_seconds = models.PositiveIntegerField(
        help_text="The person's time per decision; past it they forfeit."
    )
    seed = models.BigIntegerField()
    status = models.CharField(
        max_length=16, choices=TableStatus.choices, default=TableStatus.QUEUED
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    # The worker playing it says it is alive; a table silent for long lost its worker.
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The decision the person is asked: the referee's request id, what the seat sees
    # (with its legal actions), and until when; then the answer they posted.
    request_id = models.PositiveIntegerField(null=True, blank=True)
    observation = models.JSONField(null=True, blank=True)
    asked_at = models.DateTimeField(null=True, blank=True)
    deadline_at = models.DateTimeField(null=True, blank=True)
    answer = models.CharField(max_length=200, blank=True)
    # The engine's game log with the referee's record, gzip-compressed, in the default storage.
    log = models.FileField(max_length=255, blank=True)
    log_size = models.PositiveIntegerField(null=True, blank=True, help_text="Compressed bytes.")
    error = models.TextField(blank=True, help_text="Why it failed, for the person and operators.")

    class Meta:
        indexes = (
            # A person's tables, newest first, and their count of active ones.
            models.Index("player", models.F("created_at").desc(), name="table_player_recent"),
            # The sweep of tables whose worker was lost.
            models.Index(
                fields=["heartbeat_at"],
                condition=models.Q(status__in=ACTIVE),
                name="table_active_heartbeat",
            ),
        )
        constraints = (
            models.CheckConstraint(condition=models.Q(seed__gte=0), name="table_seed_gte_0"),
            models.CheckConstraint(
                condition=models.Q(seat__lt=models.F("seats")), name="table_seat_in_range"
            ),
        )

    def __str__(self) -> str:
        return f"table {self.pk} ({self.rules}, {self.seats} seats)"

    @property
    def game(self) -> MatchGame:
        return MatchGame.of(self)

    @property
    def public_seed(self) -> int | None:
        """The seed once the game is over: before, it tells every roll to come."""
        return self.seed if self.status == TableStatus.FINISHED else None


class TableSeat(models.Model):
    """One seat of a table: the person (no bot version) or a bot, and how it ended."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="table_seats")
    seat = models.PositiveSmallIntegerField()
    # PROTECT: a version that played cannot disappear from the history.
    bot_version = models.ForeignKey(
        "bots.BotVersion",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="table_seats",
        help_text="Empty: the person's seat.",
    )
    money = models.IntegerField(null=True, blank=True)
    rank = models.PositiveSmallIntegerField(null=True, blank=True, help_text="1 is best.")
    forfeit = models.CharField(max_length=32, choices=ForfeitCause.choices, blank=True)

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=["table", "seat"], name="tableseat_unique_seat"),
        )

    def __str__(self) -> str:
        return f"seat {self.seat} of table {self.table_id}"

    @property
    def is_person(self) -> bool:
        return self.bot_version_id is None
