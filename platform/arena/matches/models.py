"""Matches on a ladder and the bot version sitting at each seat."""

from __future__ import annotations

from typing import Any

from django.db import models
from django.db.models import Exists
from django.utils import timezone

from .games import MatchGame


class MatchStatus(models.TextChoices):
    """A match's life; services.MATCH_TRANSITIONS lists the moves."""

    QUEUED = "queued", "Queued"
    """Waiting for a worker."""
    RUNNING = "running", "Running"
    """A worker is playing it."""
    FINISHED = "finished", "Finished"
    """Played to the end; results and log stored, ratings applied once."""
    FAILED_INFRA = "failed_infra", "Failed (infrastructure)"
    """The platform could not play it (worker lost, sandbox error) after every attempt; unrated."""
    CANCELLED = "cancelled", "Cancelled"
    """Withdrawn before it finished; unrated."""


#: Matches still to play: their seed, and the dice it deals, must stay secret.
UNPLAYED = (MatchStatus.QUEUED, MatchStatus.RUNNING)


def match_feed(match_id: int) -> str:
    """The live feed (arena.live) of the match's events while it is played."""
    return f"match:{match_id}"


def seed_in_play(seed: Any) -> Exists:
    """Whether a match still to play is dealt by ``seed`` (a value or an OuterRef).

    The games of a duplicate deal (of a ladder or a league) share one seed, so
    the first finished game's log shows the dice of those still to come.
    """
    return Exists(Match.objects.filter(seed=seed, status__in=UNPLAYED))


class ForfeitCause(models.TextChoices):
    """Why a seat lost by forfeit: the referee's exact fault kind (``bots_sdk.faults.FaultKind``).

    Blank (no forfeit) is the usual case. The game log names the same kind.
    """

    STARTUP_TIMEOUT = "startup_timeout", "Too slow to start"
    """Did not complete the handshake within the start-up time."""
    BAD_HANDSHAKE = "bad_handshake", "Bad handshake"
    """Answered the handshake with something other than ``ready``."""
    CRASHED = "crashed", "Crashed"
    """The process died of a signal (a crash, or killed for a limit)."""
    EXITED = "exited", "Exited"
    """The process exited by itself while the game was on."""
    OUT_OF_MEMORY = "out_of_memory", "Out of memory"
    """Killed for using more memory than the game allows."""
    CLOSED_STDOUT = "closed_stdout", "Closed its output"
    """Closed its standard output while the game was on."""
    CLOSED_STDIN = "closed_stdin", "Closed its input"
    """Stopped reading its standard input."""
    TIMEOUT = "timeout", "Ran out of time"
    """Took longer than the time per decision on one decision."""
    TIME_BANK = "time_bank_exhausted", "Time bank exhausted"
    """Used up the game's time bank."""
    LINE_TOO_LONG = "line_too_long", "Line too long"
    """Wrote a protocol line over the size limit."""
    OUTPUT_LIMIT = "output_limit", "Too much output"
    """Wrote more than the output limit over the game."""
    GARBAGE = "garbage", "Protocol error"
    """Wrote something that is not a valid protocol message."""
    ILLEGAL_ACTION = "illegal_action", "Illegal action"
    """Answered with an action the rules do not allow."""


class Match(models.Model):
    """One game, counted on a ladder; its game with ``seed`` makes it reproducible.

    The game (``rules``, ``options``) and the limits are the ladder's when the
    match was made, kept here: the match plays and shows exactly what was set
    then, and this app needs to know nothing of ladders.
    """

    # Indexed by match_ladder_finished, which starts with it.
    ladder = models.ForeignKey(
        "ladders.Ladder", on_delete=models.PROTECT, related_name="matches", db_index=False
    )
    rules = models.CharField(max_length=32, help_text="Rule system id of the engine.")
    seats = models.PositiveSmallIntegerField()
    options = models.JSONField(default=dict, blank=True)
    time_per_decision_ms = models.PositiveIntegerField()
    time_bank_ms = models.PositiveIntegerField()
    memory_mb = models.PositiveIntegerField()
    # The engine takes seeds up to 2**63 - 1: a signed 64-bit column holds them.
    seed = models.BigIntegerField()
    status = models.CharField(
        max_length=16, choices=MatchStatus.choices, default=MatchStatus.QUEUED
    )
    attempts = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    # When its run message was last published, or is due (a delayed retry): a match
    # queued for long after that lost its message, which matches_republish_queued resends.
    queued_at = models.DateTimeField(default=timezone.now)
    # Set while a failed attempt's retry is not published yet: matches_retry_waiting
    # publishes it as soon as the resource it failed on answers again, at the latest then.
    retry_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="A failed attempt's retry waits until the resource it failed on answers "
        "again, and at the latest until this time.",
    )
    started_at = models.DateTimeField(null=True, blank=True)
    # Who plays the current attempt ("host:pid:start-time") and when it last said so:
    # a running match whose runner died or fell silent is played again.
    runner = models.CharField(max_length=128, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # False: played and logged, but not on the ladder's Elo (a league that opts out, or a
    # duplicate deal made void by a game that failed or was cancelled).
    rated = models.BooleanField(default=True)
    # Set in the same transaction as the rating changes: the exactly-once mark.
    rated_at = models.DateTimeField(null=True, blank=True)
    # The engine's game log, gzip-compressed, in the default storage.
    log = models.FileField(max_length=255, blank=True)
    log_size = models.PositiveIntegerField(null=True, blank=True, help_text="Compressed bytes.")
    # The log moved to the archive storage (an old match's: services.retention).
    log_archived = models.BooleanField(default=False)
    error = models.TextField(blank=True, help_text="Why the last attempt failed, for operators.")
    # A game of a duplicate deal (a ladder option): the deal's first match (itself for
    # game 1) and this game's number. Indexed by match_deal_game_once, which starts with it.
    deal = models.ForeignKey(
        "self",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="deal_games",
        db_index=False,
        help_text="The first match of this game's duplicate deal; empty when not a deal.",
    )
    deal_game = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="This game's number in its deal, from 1."
    )
    # A game of a series: matches of the same bots created together and played in
    # order by one worker run, one process per bot (see services.match_create_series):
    # the series' first match (itself for game 1) and this game's place in the order.
    # Indexed by match_series_game_once, which starts with it.
    series = models.ForeignKey(
        "self",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="series_games",
        db_index=False,
        help_text="The first match of this game's series; empty when played alone.",
    )
    series_game = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="This game's place in its series' order, from 1."
    )

    class Meta:
        constraints = (
            models.CheckConstraint(condition=models.Q(seed__gte=0), name="match_seed_gte_0"),
            # Not a deal, or game 1 (the deal's first match, itself), or a later game
            # (created after the first, so with a larger id). The IS NOT NULL terms keep a
            # half-set pair from passing as NULL (a CHECK only refuses FALSE).
            models.CheckConstraint(
                condition=models.Q(deal__isnull=True, deal_game__isnull=True)
                | models.Q(
                    deal__isnull=False, deal_game__isnull=False, deal_game=1, deal=models.F("id")
                )
                | models.Q(
                    deal__isnull=False,
                    deal_game__isnull=False,
                    deal_game__gt=1,
                    deal__lt=models.F("id"),
                ),
                name="match_deal_game",
            ),
            models.UniqueConstraint(fields=["deal", "deal_game"], name="match_deal_game_once"),
            # The same for a series: game 1 is the series' first match, later games
            # were created after it.
            models.CheckConstraint(
                condition=models.Q(series__isnull=True, series_game__isnull=True)
                | models.Q(
                    series__isnull=False,
                    series_game__isnull=False,
                    series_game=1,
                    series=models.F("id"),
                )
                | models.Q(
                    series__isnull=False,
                    series_game__isnull=False,
                    series_game__gt=1,
                    series__lt=models.F("id"),
                ),
                name="match_series_game",
            ),
            models.UniqueConstraint(
                fields=["series", "series_game"], name="match_series_game_once"
            ),
        )
        indexes = (
            # A ladder's latest results.
            models.Index(
                "ladder", models.F("finished_at").desc(), "id", name="match_ladder_finished"
            ),
            # The queue and the sweeper of stale running matches.
            models.Index(fields=["status", "created_at"], name="match_status_created"),
            # Seeds of matches still to play (seed_in_play): a small partial index.
            models.Index(
                fields=["seed"],
                condition=models.Q(status__in=UNPLAYED),
                name="match_unplayed_seed",
            ),
            # Matches waiting to be retried, for the retry sweep (a small partial index).
            models.Index(
                fields=["retry_at"],
                condition=models.Q(retry_at__isnull=False),
                name="match_retry_waiting",
            ),
            # Finished matches still to rate, in finish order (a small partial index).
            models.Index(
                fields=["ladder", "finished_at", "id"],
                condition=models.Q(status=MatchStatus.FINISHED, rated=True, rated_at__isnull=True),
                name="match_unrated",
            ),
        )
        verbose_name_plural = "matches"

    @property
    def sealed(self) -> bool:
        """Whether the seed and the log stay hidden: until the match finished,
        and while another match dealt by the same seed is still to play.

        The seed, with the engine, tells every roll to come, and a log shows
        the dice its seed dealt. Reads the ``seed_in_play`` annotation that the
        matches selectors add, else asks the database.
        """
        if self.status != MatchStatus.FINISHED:
            return True
        in_play = getattr(self, "seed_in_play", None)
        if in_play is None:
            in_play = Match.objects.filter(seed=self.seed, status__in=UNPLAYED).exists()
        return bool(in_play)

    @property
    def public_seed(self) -> int | None:
        """The seed once it is no secret (see :attr:`sealed`), else None."""
        return None if self.sealed else self.seed

    def __str__(self) -> str:
        return f"match {self.pk} on {self.ladder_id}"

    @property
    def game(self) -> MatchGame:
        return MatchGame.of(self)


class Participant(models.Model):
    """One seat of a match: who played it and how it ended."""

    # Both FKs are indexed by the composite index / constraint that starts with them.
    match = models.ForeignKey(
        Match, on_delete=models.CASCADE, related_name="participants", db_index=False
    )
    seat = models.PositiveSmallIntegerField()
    # PROTECT: a version that played cannot disappear from the history.
    bot_version = models.ForeignKey(
        "bots.BotVersion", on_delete=models.PROTECT, related_name="participations", db_index=False
    )
    money = models.IntegerField(null=True, blank=True)
    rank = models.PositiveSmallIntegerField(null=True, blank=True, help_text="1 is best.")
    forfeit = models.CharField(max_length=32, choices=ForfeitCause.choices, blank=True)
    rating_before = models.FloatField(null=True, blank=True)
    rating_after = models.FloatField(null=True, blank=True)

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=["match", "seat"], name="participant_unique_seat"),
        )
        indexes = (
            # A version's matches, newest first (match ids grow with time).
            models.Index(
                "bot_version", models.F("match").desc(), name="participant_version_recent"
            ),
        )

    def __str__(self) -> str:
        return f"seat {self.seat} of match {self.match_id}"


class AttemptOutcome(models.TextChoices):
    """How one attempt at playing a match ended."""

    RUNNING = "running", "Running"
    FINISHED = "finished", "Finished"
    """Played to the end and recorded."""
    FAILED = "failed", "Failed"
    """A failure of ours (``fault`` says on what); the match was retried or given up on."""
    CANCELLED = "cancelled", "Cancelled"
    """The match was cancelled while this attempt played it."""


class AttemptFault(models.TextChoices):
    """What a failed attempt failed on: the resource probed before the match is retried
    (``arena.matches.retries``)."""

    DATABASE = "database", "Database"
    STORAGE = "storage", "Storage or disk space"
    BROKER = "broker", "Broker"
    SANDBOX = "sandbox", "Sandbox"
    WORKER_LOST = "worker_lost", "Worker lost"
    """Its worker died, fell silent or overran: nothing to probe, another worker plays it."""
    OTHER = "other", "Other"
    """Anything else (a bug): no probe, retried after its backoff."""


class MatchAttempt(models.Model):
    """One attempt at playing a match, kept after a later attempt succeeds: why each
    failed, and where, for staff."""

    # Indexed by matchattempt_once, which starts with it.
    match = models.ForeignKey(
        Match, on_delete=models.CASCADE, related_name="attempt_log", db_index=False
    )
    number = models.PositiveSmallIntegerField(help_text="Match.attempts when it began, from 1.")
    runner = models.CharField(
        max_length=128, blank=True, help_text="The worker: host:pid-namespace:pid:start-time."
    )
    started_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)
    outcome = models.CharField(
        max_length=16, choices=AttemptOutcome.choices, default=AttemptOutcome.RUNNING
    )
    fault = models.CharField(max_length=16, choices=AttemptFault.choices, blank=True)
    error = models.TextField(blank=True, help_text="Why it failed, for operators.")

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=["match", "number"], name="matchattempt_once"),
        )

    def __str__(self) -> str:
        return f"attempt {self.number} of match {self.match_id}"


class WorkerPresence(models.Model):
    """A Celery worker that is up, as it says itself every ARENA_WORKER_PRESENCE_SECONDS:
    matchmaking keeps as much work queued as the live workers' processes can take."""

    #: Celery's node name, ``celery@host`` (``-n`` names several on one host).
    hostname = models.CharField(max_length=255, unique=True)
    #: The queues it consumes.
    queues = models.JSONField(default=list)
    #: Its pool's processes: how many runs it plays at once.
    concurrency = models.PositiveIntegerField()
    started_at = models.DateTimeField()
    seen_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.hostname} ({self.concurrency} processes)"
