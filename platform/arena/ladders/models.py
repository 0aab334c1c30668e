"""Ladders (a game setup with limits) and the ratings of bot versions on them."""

from __future__ import annotations

from django.db import models

from arena.matches.games import MatchGame

from .elo import INITIAL_DEVIATION, INITIAL_RATING, Calibration, display_rating, is_provisional

# Bounds of the limits a ladder may set; the services explain a violation,
# the check constraints keep the database honest.
TIME_PER_DECISION_MS = (10, 600_000)
TIME_BANK_MS = (0, 3_600_000)
MEMORY_MB = (32, 4096)
SERIES_GAMES = (1, 64)
#: Games per series of a new ladder: three seat rotations of 4 seats. A sandboxed
#: bot's start costs several games' worth of CPU; spread over a series it is a small
#: share of each game (``bench/referee.py`` measures both against the pipe-echo floor).
DEFAULT_SERIES_GAMES = 12


class Ladder(models.Model):
    """A rated competition: one rule system, options and seat count, with limits.

    ``options`` holds every option of the rule system as resolved by
    ``vegas_engine.describe`` when the ladder was created, so the game stays
    the same even if an engine default changes later.
    """

    slug = models.SlugField(max_length=64, unique=True)
    name = models.CharField(max_length=100)
    rules = models.CharField(max_length=32, help_text="Rule system id of the engine.")
    seats = models.PositiveSmallIntegerField()
    options = models.JSONField(default=dict, blank=True)
    time_per_decision_ms = models.PositiveIntegerField(default=1000)
    time_bank_ms = models.PositiveIntegerField(
        default=10_000, help_text="Extra time a bot may spend over the game, in ms."
    )
    memory_mb = models.PositiveIntegerField(default=256)
    duplicate_deals = models.BooleanField(
        default=False,
        help_text="Play duplicate deals: each seed once per seat rotation by the same bots, "
        "rated once on their money over the deal. Fixed once the ladder has matches.",
    )
    series_games = models.PositiveSmallIntegerField(
        default=DEFAULT_SERIES_GAMES,
        help_text="Games a worker plays in a row with the same bots, one process per bot, "
        "seats rotating; each game is its own match and rating. On a duplicate ladder, "
        "whole deals: series_games // seats of them, at least one.",
    )
    # Closed ladders keep their ratings and history but get no new matches.
    is_open = models.BooleanField(default=True)
    # A competition's ladder: only its entrants play there (admitted by the competition),
    # so uploads and the entry forms never enter it, nor do house bots.
    restricted = models.BooleanField(
        default=False,
        help_text="Entered only through its competition: no uploads' entries, no house bots.",
    )
    # The shown Elo's stretch (elo.stretch): its ratings are INITIAL_RATING + elo_scale times
    # the Elo its updates run on (elo.working_rating) minus INITIAL_RATING.
    # Kept by the rating service only.
    elo_scale = models.FloatField(default=1.0, editable=False)
    # The calibration evidence since the last stretch (elo.Calibration).
    calibration_gradient = models.FloatField(default=0.0, editable=False)
    calibration_curvature = models.FloatField(default=0.0, editable=False)
    calibration_pairs = models.PositiveIntegerField(default=0, editable=False)
    # Units (matches, or whole deals) rated so far, and how many the last refit of the
    # ratings on the whole history read (services.ladder_refit, refit.refit_due).
    rated_units = models.PositiveIntegerField(default=0, editable=False)
    refit_units = models.PositiveIntegerField(default=0, editable=False)
    # When the ratings were last refitted.
    refit_at = models.DateTimeField(null=True, blank=True, editable=False)
    # When a season last began with its ratings reset (services.season_close): the refit and
    # the version verdicts read only results rated since. Null: every result counts.
    ratings_reset_at = models.DateTimeField(null=True, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = (
            models.CheckConstraint(condition=models.Q(seats__gte=2), name="ladder_seats_gte_2"),
            models.CheckConstraint(
                condition=models.Q(time_per_decision_ms__range=TIME_PER_DECISION_MS),
                name="ladder_time_per_decision_range",
            ),
            models.CheckConstraint(
                condition=models.Q(time_bank_ms__range=TIME_BANK_MS),
                name="ladder_time_bank_range",
            ),
            models.CheckConstraint(
                condition=models.Q(memory_mb__range=MEMORY_MB), name="ladder_memory_range"
            ),
            models.CheckConstraint(
                condition=models.Q(series_games__range=SERIES_GAMES),
                name="ladder_series_games_range",
            ),
        )

    def __str__(self) -> str:
        return self.name

    @property
    def game(self) -> MatchGame:
        """What the ladder's matches (and a bot's pre-flight for it) play."""
        return MatchGame.of(self)

    @property
    def series_deals(self) -> int:
        """Deals per series on a duplicate ladder: whole deals, at least one."""
        return max(1, self.series_games // self.seats)

    @property
    def pick_games(self) -> int:
        """Matches one pick of the scheduler queues: a series (of deals, or of games)."""
        return self.series_deals * self.seats if self.duplicate_deals else self.series_games

    @property
    def pick_units(self) -> int:
        """Rated units of one pick: its deals, or its games."""
        return self.series_deals if self.duplicate_deals else self.series_games

    @property
    def calibration(self) -> Calibration:
        return Calibration(
            self.calibration_gradient, self.calibration_curvature, self.calibration_pairs
        )

    @calibration.setter
    def calibration(self, value: Calibration) -> None:
        self.calibration_gradient = value.gradient
        self.calibration_curvature = value.curvature
        self.calibration_pairs = value.pairs


class Entry(models.Model):
    """A bot entered on a ladder by its owner: its version that passed the ladder's
    pre-flight plays there (see :class:`Qualification`)."""

    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, related_name="entries")
    # Indexed by entry_once, which starts with it.
    bot = models.ForeignKey(
        "bots.Bot", on_delete=models.CASCADE, related_name="entries", db_index=False
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = (models.UniqueConstraint(fields=["bot", "ladder"], name="entry_once"),)
        verbose_name_plural = "entries"

    def __str__(self) -> str:
        return f"{self.bot_id} on {self.ladder_id}"


class QualificationStatus(models.TextChoices):
    """Where a version stands with one ladder's pre-flight game."""

    PENDING = "pending", "Pending"
    """Not played yet (queued, or waiting for a worker that can sandbox)."""
    PASSED = "passed", "Passed"
    """Played the ladder's game to the end without a fault: the version may play there."""
    FAILED = "failed", "Failed"
    """Faulted in the ladder's game (or its code did not pass the static checks)."""


class Qualification(models.Model):
    """One bot version's pre-flight on one ladder: a full game of the ladder's setup
    against house bots, on a fresh seed recorded here, with the report of how it went."""

    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, related_name="qualifications")
    # Indexed by qualification_once, which starts with it.
    bot_version = models.ForeignKey(
        "bots.BotVersion",
        on_delete=models.CASCADE,
        related_name="qualifications",
        db_index=False,
    )
    status = models.CharField(
        max_length=16, choices=QualificationStatus.choices, default=QualificationStatus.PENDING
    )
    seed = models.BigIntegerField(null=True, blank=True, help_text="The pre-flight game's seed.")
    report = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    checked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=["bot_version", "ladder"], name="qualification_once"),
        )
        indexes = (
            # The sweep of pre-flights whose task was lost.
            models.Index(
                fields=["created_at"],
                condition=models.Q(status="pending"),
                name="qualification_pending",
            ),
        )

    def __str__(self) -> str:
        return f"{self.bot_version_id} on {self.ladder_id}: {self.status}"


class Challenge(models.Model):
    """Unrated matches an owner asked for: their bot against chosen bots, or random
    opponents from the ladder, on the ladder's game (a scrimmage); or one version of
    their bot against another of its versions, e.g. its parent (``opponent_versions``)."""

    requested_by = models.ForeignKey(
        "players.User", on_delete=models.CASCADE, related_name="challenges", db_index=False
    )
    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, related_name="challenges")
    bot_version = models.ForeignKey(
        "bots.BotVersion", on_delete=models.CASCADE, related_name="challenges"
    )
    games = models.PositiveSmallIntegerField(help_text="Matches asked for.")
    #: The opponents the owner chose (the other seats were drawn from the ladder).
    chosen = models.ManyToManyField("bots.Bot", related_name="+", blank=True)
    #: Versions chosen to play as they are, whatever their bot's playing version now
    #: (``challenges.version_challenge_create``).
    opponent_versions = models.ManyToManyField("bots.BotVersion", related_name="+", blank=True)
    matches = models.ManyToManyField("matches.Match", related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = (
            # A player's challenges, newest first, and the hourly quota.
            models.Index("requested_by", models.F("created_at").desc(), name="challenge_recent"),
        )

    def __str__(self) -> str:
        return f"challenge {self.pk} on {self.ladder_id}"


class Rating(models.Model):
    """The Elo rating of one bot version on one ladder.

    Ratings belong to versions, since each version is a different program; a
    new version's row starts from its parent's rating and counts its own
    rated matches and the deviation of a rating without results (so it is
    provisional again). ``bot`` repeats ``bot_version.bot`` so leaderboards
    need no extra join.
    """

    # No single-column FK indexes where a composite index below starts with the column.
    ladder = models.ForeignKey(
        Ladder, on_delete=models.CASCADE, related_name="ratings", db_index=False
    )
    bot = models.ForeignKey(
        "bots.Bot", on_delete=models.CASCADE, related_name="ratings", db_index=False
    )
    bot_version = models.ForeignKey(
        "bots.BotVersion", on_delete=models.CASCADE, related_name="ratings"
    )
    rating = models.FloatField(default=INITIAL_RATING)
    rated_matches = models.PositiveIntegerField(default=0)
    # The rating's uncertainty by the rating model, in shown Elo points (the "± 45"): set by
    # the refit from its curvature, shrunk by each rated unit between refits (ladders.elo).
    deviation = models.FloatField(default=INITIAL_DEVIATION)
    # The rating it started from (its parent's, or INITIAL_RATING): the centre of the
    # whole-history refit's prior (ladders.refit), so a version without results keeps it.
    prior = models.FloatField(default=INITIAL_RATING, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = (
            models.UniqueConstraint(
                fields=["ladder", "bot_version"], name="rating_unique_version_per_ladder"
            ),
        )
        indexes = (
            # Leaderboards: a ladder's ratings, best first.
            models.Index("ladder", models.F("rating").desc(), name="rating_ladder_best"),
            # A bot's ratings across ladders and versions.
            models.Index(fields=["bot", "ladder"], name="rating_bot_ladder"),
        )

    def __str__(self) -> str:
        return f"{self.bot_version} on {self.ladder}: {self.display}"

    @property
    def is_provisional(self) -> bool:
        return is_provisional(self.deviation)

    @property
    def display(self) -> str:
        return display_rating(self.rating, self.deviation)


class RatingChange(models.Model):
    """What one rated match did to one rating; written once, never changed.

    The unique (rating, match) pair makes applying a match twice impossible
    at the database level, beside the service's own check.
    """

    rating = models.ForeignKey(
        Rating, on_delete=models.CASCADE, related_name="changes", db_index=False
    )
    match = models.ForeignKey("matches.Match", on_delete=models.CASCADE, related_name="+")
    rating_before = models.FloatField()
    rating_after = models.FloatField()
    # The rating's deviation before and after (shown Elo points); null in changes made
    # before deviations were kept.
    deviation_before = models.FloatField(null=True, blank=True)
    deviation_after = models.FloatField(null=True, blank=True)
    k = models.FloatField()
    # The rating's rated-match count before this match (0 for its first).
    matches_before = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=["rating", "match"], name="ratingchange_once"),
        )
        indexes = (
            # A rating's history, newest first.
            models.Index("rating", models.F("id").desc(), name="ratingchange_rating_recent"),
        )


class Standings(models.Model):
    """A final table, frozen: its rows were copied when it was archived and never change,
    whatever later matches do to the ratings. A ladder's season keeps one
    (:class:`Season`); so may any other event that archives its final standings."""

    title = models.CharField(max_length=200)
    archived_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "standings"

    def __str__(self) -> str:
        return self.title


class StandingRow(models.Model):
    """One place of a frozen table, as it stood: names are copied, so a renamed bot or
    owner (or a deleted one) leaves the table as it was."""

    standings = models.ForeignKey(Standings, on_delete=models.CASCADE, related_name="rows")
    #: Order in the table, from 1 (ranked rows first, then the unranked ones).
    position = models.PositiveIntegerField()
    #: The place; null for a row listed but not ranked (a provisional rating).
    rank = models.PositiveIntegerField(null=True, blank=True)
    bot = models.ForeignKey(
        "bots.Bot", on_delete=models.SET_NULL, null=True, blank=True, related_name="standings"
    )
    bot_name = models.CharField(max_length=100)
    bot_version = models.ForeignKey(
        "bots.BotVersion", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    version_number = models.PositiveIntegerField(null=True, blank=True)
    owner = models.ForeignKey(
        "players.User", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    owner_username = models.CharField(max_length=150)
    #: The team owning the bot at the close; null: its owner's alone (or closed before
    #: teams were recorded).
    team_name = models.CharField(max_length=40, null=True, blank=True)
    rating = models.FloatField(null=True, blank=True)
    #: The rating's uncertainty, where the table's rating model gives one.
    deviation = models.FloatField(null=True, blank=True)
    #: A league format's points, where the table has them.
    points = models.FloatField(null=True, blank=True)
    #: Rated games (a duplicate deal counts once), or an event's games.
    games = models.PositiveIntegerField(default=0)
    provisional = models.BooleanField(default=False)

    class Meta:
        ordering = ("standings", "position")
        constraints = (
            models.UniqueConstraint(fields=["standings", "position"], name="standingrow_once"),
        )
        indexes = (
            # A bot's placings (its page).
            models.Index(fields=["bot", "standings"], name="standingrow_bot"),
        )

    def __str__(self) -> str:
        return f"{self.position}. {self.bot_name}"

    @property
    def display(self) -> str:
        if self.rating is None:
            return ""
        if self.deviation is None:  # archived before deviations were kept
            return f"{round(self.rating)}{'?' if self.provisional else ''}"
        return display_rating(self.rating, self.deviation)


class SeasonStart(models.TextChoices):
    """How a ladder's season began."""

    FIRST = "first", "The ladder's first"
    CARRIED = "carried", "Ratings carried over"
    RESET = "reset", "Ratings reset"


class Season(models.Model):
    """A stretch of a ladder's life between two closes by staff (``services.season_close``).

    A ladder without a row is in its first season, begun when it was created; the
    first close writes that season and the next. The season still running has no
    ``ended_at`` and no ``standings``; a closed one keeps its final table.
    """

    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, related_name="seasons")
    number = models.PositiveIntegerField()
    name = models.CharField(max_length=100)
    started_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)
    began = models.CharField(max_length=16, choices=SeasonStart.choices)
    standings = models.OneToOneField(
        Standings, on_delete=models.PROTECT, null=True, blank=True, related_name="season"
    )
    closed_by = models.ForeignKey(
        "players.User", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ("ladder", "number")
        constraints = (
            models.UniqueConstraint(fields=["ladder", "number"], name="season_once"),
            # One running season per ladder.
            models.UniqueConstraint(
                fields=["ladder"], condition=models.Q(ended_at__isnull=True), name="season_running"
            ),
        )

    def __str__(self) -> str:
        return f"{self.ladder} · {self.name}"

    @property
    def has_own_name(self) -> bool:
        """Named by staff, not just "Season N"."""
        return self.name != f"Season {self.number}"
