"""Competitions: an event above the leagues, with an entry window, a season on its own
ladder(s), a submission freeze, a final event (a league) and standings archived for good.

A competition owns one restricted ladder per rule system (only its entrants play
there) and, from its freeze, one league per ladder played on the versions frozen
then. Its phase follows the clock (``services.competitions_advance_due``).
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import models

from arena.leagues.models import LeagueFormat


class Phase(models.TextChoices):
    """A competition's life; services.PHASE_TRANSITIONS lists the moves."""

    DRAFT = "draft", "Announced"
    """Created; entry opens at ``entry_opens_at``."""
    ENTRY = "entry", "Entry open"
    """Authors enter bots; the ladder plays."""
    SEASON = "season", "Season"
    """Entry closed; the ladder plays on until the freeze; entrants may still upload."""
    FROZEN = "frozen", "Frozen"
    """Submission freeze: each entrant's version is fixed; the final event is scheduled."""
    FINAL = "final", "Final event"
    """The final event (a league) is being played on the frozen versions."""
    ARCHIVED = "archived", "Archived"
    """Over: the final standings are archived for good. Final."""
    CANCELLED = "cancelled", "Cancelled"
    """Stopped by its organiser or staff, or no final event could be formed. Final."""


class Access(models.TextChoices):
    PUBLIC = "public", "Public"
    """Anyone signed in enters a public bot."""
    INVITATION = "invitation", "By invitation"
    """Only with the invitation link (its token), e.g. a class."""


class EntryStatus(models.TextChoices):
    ENTERED = "entered", "Entered"
    WITHDRAWN = "withdrawn", "Withdrawn"


class Competition(models.Model):
    slug = models.SlugField(max_length=48, unique=True)
    title = models.CharField(max_length=100)
    description = models.TextField(blank=True, help_text="Markdown; raw HTML is shown as text.")
    organiser = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="competitions_organised"
    )
    access = models.CharField(max_length=16, choices=Access.choices, default=Access.PUBLIC)
    # The invitation link's secret; regenerated to revoke a link that leaked.
    invitation_token = models.CharField(max_length=64)
    phase = models.CharField(max_length=16, choices=Phase.choices, default=Phase.DRAFT)
    entry_opens_at = models.DateTimeField()
    entry_closes_at = models.DateTimeField()
    freeze_at = models.DateTimeField(help_text="Versions uploaded after this do not count.")
    final_starts_at = models.DateTimeField(help_text="The final event's first round.")
    # The final event: a league on each of the competition's ladders.
    final_format = models.CharField(max_length=16, choices=LeagueFormat.choices)
    games_per_table = models.PositiveSmallIntegerField(default=1)
    duplicate = models.BooleanField(
        default=False, help_text="Final tables play duplicate deals (each seed once per seat)."
    )
    advance = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Knockout: how many of each table go through."
    )
    rounds = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Swiss rounds (default: log2 of the entrants)."
    )
    round_interval = models.DurationField(default=timedelta(hours=1))
    note = models.TextField(blank=True, help_text="Why it was cancelled, for readers.")
    phase_changed_at = models.DateTimeField(null=True, blank=True)
    archived_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = (
            models.CheckConstraint(
                condition=models.Q(entry_opens_at__lt=models.F("entry_closes_at"))
                & models.Q(entry_closes_at__lte=models.F("freeze_at"))
                & models.Q(freeze_at__lt=models.F("final_starts_at")),
                name="competition_calendar_in_order",
            ),
        )
        indexes = (models.Index(fields=["phase"], name="competition_phase"),)

    def __str__(self) -> str:
        return self.title


class CompetitionLadder(models.Model):
    """One rule system of a competition: its ladder, and its final event once frozen."""

    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="ladders")
    ladder = models.OneToOneField(
        "ladders.Ladder", on_delete=models.PROTECT, related_name="competition_ladder"
    )
    league = models.OneToOneField(
        "leagues.League",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="competition_ladder",
    )
    note = models.TextField(blank=True, help_text="Why it has no final event.")

    def __str__(self) -> str:
        return f"{self.ladder_id} of {self.competition_id}"


class CompetitionEntry(models.Model):
    """A bot its owner entered, on the competition ladder of its rule system."""

    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="entries")
    ladder = models.ForeignKey(CompetitionLadder, on_delete=models.CASCADE, related_name="entries")
    bot = models.ForeignKey(
        "bots.Bot", on_delete=models.PROTECT, related_name="competition_entries"
    )
    status = models.CharField(
        max_length=16, choices=EntryStatus.choices, default=EntryStatus.ENTERED
    )
    # Fixed at the freeze: the version the final event plays.
    frozen_version = models.ForeignKey(
        "bots.BotVersion",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="competition_entries",
    )
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=["competition", "bot"], name="competitionentry_once"),
        )
        verbose_name_plural = "competition entries"

    def __str__(self) -> str:
        return f"{self.bot_id} in {self.competition_id}"


class CompetitionPlacing(models.Model):
    """One line of a competition's archived final standings: written once, never recomputed.

    Names are copied as they were at the end, so later renames and ratings leave it alone.
    """

    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="placings")
    ladder = models.ForeignKey(CompetitionLadder, on_delete=models.CASCADE, related_name="placings")
    rank = models.PositiveIntegerField(help_text="1 is the winner.")
    bot = models.ForeignKey(
        "bots.Bot", null=True, on_delete=models.SET_NULL, related_name="competition_placings"
    )
    bot_name = models.CharField(max_length=40)
    owner_username = models.CharField(max_length=150)
    #: The team owning the bot at the end; null: its owner's alone (or archived before
    #: teams were recorded).
    team_name = models.CharField(max_length=40, null=True, blank=True)
    version_number = models.PositiveIntegerField(null=True)
    points = models.FloatField(default=0)
    money = models.BigIntegerField(default=0)
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=["ladder", "rank"], name="competitionplacing_rank_once"),
        )
        indexes = (models.Index(fields=["bot"], name="competitionplacing_bot"),)

    def __str__(self) -> str:
        return f"{self.rank}. {self.bot_name}"
