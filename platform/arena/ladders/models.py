"""Ladders (a game setup with limits) and the ratings of bot versions on them."""

from __future__ import annotations

from django.db import models

from .elo import INITIAL_RATING, display_rating, is_provisional

# Bounds of the limits a ladder may set; the services explain a violation,
# the check constraints keep the database honest.
TIME_PER_DECISION_MS = (10, 600_000)
TIME_BANK_MS = (0, 3_600_000)
MEMORY_MB = (32, 4096)


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
    # Closed ladders keep their ratings and history but get no new matches.
    is_open = models.BooleanField(default=True)
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
        )

    def __str__(self) -> str:
        return self.name


class Rating(models.Model):
    """The Elo rating of one bot version on one ladder.

    Ratings belong to versions, since each version is a different program; a
    new version's row starts from its parent's rating and counts its own
    rated matches (so it is provisional again). ``bot`` repeats
    ``bot_version.bot`` so leaderboards need no extra join.
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
        return is_provisional(self.rated_matches)

    @property
    def display(self) -> str:
        return display_rating(self.rating, self.rated_matches)


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
