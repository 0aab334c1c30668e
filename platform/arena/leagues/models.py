"""Leagues: entrants, a calendar of rounds, tables (fixtures), their games and the standings.

A league plays a ladder's game (rules, seats, options, limits). Its games are
ordinary matches of that ladder; :class:`LeagueGameSeat` copies each seat's
result (or records a walkover) so standings are computed from this app's
tables alone, and :class:`LeagueStanding` keeps the last computed table.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import models


class LeagueFormat(models.TextChoices):
    """How tables are formed; ``formats.py`` holds the algorithms."""

    ROUND_ROBIN = "round_robin", "Round robin"
    """Every combination of entrants, or a balanced design of rounds above the table cap."""
    SWISS = "swiss", "Swiss"
    """Each round seats entrants of similar score together, never repeating a table if avoidable."""
    KNOCKOUT = "knockout", "Knockout by tables"
    """The top k of each table advance, until one final table."""


class LeagueVisibility(models.TextChoices):
    """Who sees a league and who may organise one."""

    PUBLIC = "public", "Public"
    """Listed for everyone; organised by staff, with public bots."""
    PRIVATE = "private", "Private"
    """Seen by its organiser, the entrants' owners and staff; any player may organise one."""


class LeagueStatus(models.TextChoices):
    """A league's life; services.LEAGUE_TRANSITIONS lists the moves."""

    SCHEDULED = "scheduled", "Scheduled"
    """Waiting for its start time; entrants may still change."""
    RUNNING = "running", "Running"
    """Started: versions frozen, rounds start on the calendar."""
    PAUSED = "paused", "Paused"
    """No round starts until the organiser resumes; games already queued still play."""
    FINISHED = "finished", "Finished"
    """Every round played; the final table and the winner are kept. Final."""
    CANCELLED = "cancelled", "Cancelled"
    """Stopped by the organiser (or unable to start); results so far are kept. Final."""


class EntryStatus(models.TextChoices):
    """Where an entrant stands."""

    INVITED = "invited", "Invited"
    """Waiting for the bot's owner to accept (private leagues of other players' bots)."""
    ACCEPTED = "accepted", "Accepted"
    """Will play; its bot's active version is frozen at the start."""
    PLAYING = "playing", "Playing"
    """Started with its frozen version."""
    ELIMINATED = "eliminated", "Eliminated"
    """Knocked out (knockout format); its results stay in the standings."""
    FORFEITED = "forfeited", "Forfeited"
    """Its version could not play, or it was withdrawn after the start (``reason`` says
    which): its games not queued yet are lost by walkover; its results so far stay."""
    WITHDRAWN = "withdrawn", "Withdrawn"
    """Declined, removed before the start, or not ready at the start; plays nothing."""


class RoundStatus(models.TextChoices):
    """A round on the calendar."""

    SCHEDULED = "scheduled", "Scheduled"
    """Waiting for its time (and, for Swiss and knockout, for the previous round)."""
    RUNNING = "running", "Running"
    """Its games are queued or playing."""
    FINISHED = "finished", "Finished"
    """Every game has a result (or was void)."""
    CANCELLED = "cancelled", "Cancelled"
    """The league was cancelled before the round ended."""


class GameStatus(models.TextChoices):
    """One game of a table."""

    SCHEDULED = "scheduled", "Scheduled"
    """Its round has not started."""
    QUEUED = "queued", "Queued"
    """A match was created for it; waiting for the match to end."""
    FINISHED = "finished", "Finished"
    """The match finished; seat results copied."""
    WALKOVER = "walkover", "Walkover"
    """Not played: a seat's bot had forfeited; it loses, the other seats share the top places."""
    VOID = "void", "Void"
    """The platform could not play it (or the league was cancelled); counts for nobody."""


class League(models.Model):
    """A competition of entered bots on a ladder's game, over a calendar of rounds."""

    slug = models.SlugField(max_length=64, unique=True)
    name = models.CharField(max_length=100)
    organiser = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="leagues_organised"
    )
    # The game and limits come from the ladder; league matches are that ladder's matches.
    ladder = models.ForeignKey("ladders.Ladder", on_delete=models.PROTECT, related_name="leagues")
    visibility = models.CharField(
        max_length=16, choices=LeagueVisibility.choices, default=LeagueVisibility.PUBLIC
    )
    format = models.CharField(max_length=16, choices=LeagueFormat.choices)
    status = models.CharField(
        max_length=16, choices=LeagueStatus.choices, default=LeagueStatus.SCHEDULED
    )
    # Where a paused league goes back to on resume.
    paused_from = models.CharField(max_length=16, choices=LeagueStatus.choices, blank=True)
    games_per_table = models.PositiveSmallIntegerField(
        default=1, help_text="Games of each table; deals of N rotated games when duplicate."
    )
    duplicate = models.BooleanField(
        default=False, help_text="Each deal's seed is played once per seat rotation."
    )
    # League games are the ladder's matches; the league's own Elo (standings) counts either way.
    rated = models.BooleanField(
        default=True, help_text="League games also count on the ladder's Elo"
    )
    points_per_rank = models.JSONField(help_text="Points for rank 1, 2, ... of a table.")
    advance = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Knockout: how many of each table go through."
    )
    rounds_requested = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Swiss rounds, or rounds of a balanced round robin."
    )
    max_tables = models.PositiveIntegerField(
        default=500, help_text="Round robin: above this many combinations, a balanced design."
    )
    start_at = models.DateTimeField()
    round_interval = models.DurationField(help_text="Time between two rounds' starts.")
    started_at = models.DateTimeField(null=True, blank=True)
    paused_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    winner = models.ForeignKey(
        "LeagueEntry", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    note = models.TextField(blank=True, help_text="Why it was cancelled, for readers.")
    standings_updated_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = (
            models.CheckConstraint(
                condition=models.Q(games_per_table__gte=1), name="league_games_per_table_gte_1"
            ),
            models.CheckConstraint(
                condition=models.Q(round_interval__gt=timedelta(0)),
                name="league_round_interval_positive",
            ),
        )
        indexes = (models.Index(fields=["status", "start_at"], name="league_status_start"),)

    def __str__(self) -> str:
        return self.name


class LeagueEntry(models.Model):
    """A bot entered in a league, and the version it plays with once the league starts."""

    league = models.ForeignKey(
        League, on_delete=models.CASCADE, related_name="entries", db_index=False
    )
    bot = models.ForeignKey("bots.Bot", on_delete=models.PROTECT, related_name="league_entries")
    # Frozen at the start: exactly the program that plays every league game.
    bot_version = models.ForeignKey(
        "bots.BotVersion",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="league_entries",
    )
    status = models.CharField(
        max_length=16, choices=EntryStatus.choices, default=EntryStatus.ACCEPTED
    )
    # Seeding order (1 is the top seed): round one of Swiss and knockout, and the last tie-break.
    seed = models.PositiveIntegerField()
    reason = models.TextField(blank=True, help_text="Why it forfeited or withdrew.")
    # Knockout: the round it went out in (or its final) and its place at that table.
    last_round = models.PositiveSmallIntegerField(null=True, blank=True)
    last_place = models.PositiveSmallIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=["league", "bot"], name="leagueentry_unique_bot"),
        )
        verbose_name_plural = "league entries"

    def __str__(self) -> str:
        return f"{self.bot} in {self.league_id}"


class LeagueRound(models.Model):
    """One round on the league's calendar."""

    league = models.ForeignKey(
        League, on_delete=models.CASCADE, related_name="rounds", db_index=False
    )
    number = models.PositiveSmallIntegerField(help_text="1 is the first round.")
    scheduled_at = models.DateTimeField()
    status = models.CharField(
        max_length=16, choices=RoundStatus.choices, default=RoundStatus.SCHEDULED
    )
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=["league", "number"], name="leagueround_unique_number"),
        )

    def __str__(self) -> str:
        return f"round {self.number} of {self.league_id}"


class LeagueFixture(models.Model):
    """One table of a round: its entrants play its games."""

    round = models.ForeignKey(
        LeagueRound, on_delete=models.CASCADE, related_name="fixtures", db_index=False
    )
    table = models.PositiveIntegerField(help_text="1 is the round's first table.")
    # Knockout: how many of this table go through (the last table may let through more).
    advance = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=["round", "table"], name="leaguefixture_unique_table"),
        )

    def __str__(self) -> str:
        return f"table {self.table} of round {self.round_id}"


class LeagueGame(models.Model):
    """One game of a table; with duplicate deals, the ``seats`` games of a deal share a seed."""

    fixture = models.ForeignKey(
        LeagueFixture, on_delete=models.CASCADE, related_name="games", db_index=False
    )
    number = models.PositiveSmallIntegerField(help_text="0-based, within the table.")
    deal = models.PositiveSmallIntegerField(help_text="Games of one deal are scored together.")
    # Secret until played: the seed fixes every roll.
    seed = models.BigIntegerField()
    status = models.CharField(
        max_length=16, choices=GameStatus.choices, default=GameStatus.SCHEDULED
    )
    match = models.OneToOneField(
        "matches.Match", null=True, blank=True, on_delete=models.PROTECT, related_name="league_game"
    )

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=["fixture", "number"], name="leaguegame_unique_number"),
            models.CheckConstraint(condition=models.Q(seed__gte=0), name="leaguegame_seed_gte_0"),
        )
        indexes = (
            # Games waiting on their match, swept by the league tick.
            models.Index(
                fields=["status"],
                condition=models.Q(status="queued"),
                name="leaguegame_queued",
            ),
        )

    def __str__(self) -> str:
        return f"game {self.number} of {self.fixture_id}"


class LeagueGameSeat(models.Model):
    """One seat of a league game: the entrant, and its result once known."""

    game = models.ForeignKey(
        LeagueGame, on_delete=models.CASCADE, related_name="seats", db_index=False
    )
    seat = models.PositiveSmallIntegerField()
    entry = models.ForeignKey(LeagueEntry, on_delete=models.CASCADE, related_name="seats")
    money = models.IntegerField(null=True, blank=True)
    rank = models.PositiveSmallIntegerField(null=True, blank=True, help_text="1 is best.")
    forfeit = models.BooleanField(default=False)

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=["game", "seat"], name="leaguegameseat_unique_seat"),
        )

    def __str__(self) -> str:
        return f"seat {self.seat} of {self.game_id}"


class LeagueBye(models.Model):
    """An entrant sitting out a round (fields that do not split into full tables)."""

    round = models.ForeignKey(
        LeagueRound, on_delete=models.CASCADE, related_name="byes", db_index=False
    )
    entry = models.ForeignKey(LeagueEntry, on_delete=models.CASCADE, related_name="byes")

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=["round", "entry"], name="leaguebye_unique_entry"),
        )


class LeagueStanding(models.Model):
    """An entrant's line in the last computed table (services.league_standings_recompute)."""

    league = models.ForeignKey(
        League, on_delete=models.CASCADE, related_name="standings", db_index=False
    )
    entry = models.OneToOneField(LeagueEntry, on_delete=models.CASCADE, related_name="standing")
    position = models.PositiveIntegerField()
    points = models.FloatField(default=0)
    money = models.BigIntegerField(default=0)
    games = models.PositiveIntegerField(default=0, help_text="Games with a result.")
    results = models.PositiveIntegerField(default=0, help_text="Scored units: games or deals.")
    wins = models.PositiveIntegerField(default=0, help_text="Units ranked first.")
    forfeits = models.PositiveIntegerField(default=0)
    byes = models.PositiveIntegerField(default=0)
    rating = models.FloatField(help_text="Elo over this league's games only.")
    rated_results = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = (
            models.UniqueConstraint(
                fields=["league", "position"], name="leaguestanding_unique_position"
            ),
        )

    def __str__(self) -> str:
        return f"{self.position}. {self.entry_id}"
