"""Bots and their immutable versions.

A bot is a name owned by a player; each upload of its code is a new
:class:`BotVersion`. The code fields of a version are written once, at
upload, and never changed: matches and ratings refer to exactly the program
that played. Only a version's status and validation report move afterwards,
through the services.
"""

from __future__ import annotations

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models
from django.db.models.functions import Lower


class Visibility(models.TextChoices):
    """Who sees a bot. Its code is never shown to anyone but its owner and staff."""

    PUBLIC = "public", "Public"
    """Listed on pages and leaderboards; ladders may schedule it."""
    PRIVATE = "private", "Private"
    """Seen by its owner and staff only; plays only matches they start (testing)."""


class Runtime(models.TextChoices):
    """The language a version is built and run with in the bot sandbox: the ids of
    ``bots_sdk.runtimes.RUNTIMES``, which holds how each one builds and runs."""

    PYTHON = "python", "Python 3.11"
    """CPython 3.11 with numpy, the bots SDK and the engine; main.py."""
    JS = "js", "JavaScript (Node.js)"
    """Node.js from Debian; main.js."""
    C = "c", "C (gcc 12, C17)"
    """gcc -std=c17 -O2; main.c and the other .c files."""
    CPP = "cpp", "C++ (g++ 12, C++20)"
    """g++ -std=c++20 -O2; main.cpp and the other .cpp/.cc/.cxx files."""
    JAVA = "java", "Java (OpenJDK 17)"
    """javac, then java with class Main; main.java and the other .java files."""
    RUST = "rust", "Rust (rustc, edition 2021)"
    """rustc -C opt-level=2 main.rs (other files through its mod lines)."""
    GO = "go", "Go 1.19"
    """go build of main.go and the other .go files (package main)."""


class CodeFormat(models.TextChoices):
    """How the uploaded code is packaged."""

    FILE = "file", "single source file"
    """One file, stored and built as its runtime's main file (main.py, main.c, ...)."""
    ZIP = "zip", ".zip archive"
    """Several files; the runtime's main file at the archive's top level."""


class VersionStatus(models.TextChoices):
    """Where a version is in its life; services.VERSION_TRANSITIONS lists the moves."""

    PENDING = "pending", "Pending"
    """Stored, waiting for a validation worker."""
    VALIDATING = "validating", "Validating"
    """A worker is checking it."""
    ACTIVE = "active", "Active"
    """Passed validation; the bot's playing version (at most one per bot)."""
    FAILED = "failed", "Failed"
    """Did not pass validation; the report says why. Final."""
    RETIRED = "retired", "Retired"
    """Replaced by a newer active version or withdrawn; kept for its history. Final."""


bot_name_validator = RegexValidator(
    r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$",
    "Use 1-40 letters, digits, '_', '.' or '-', starting with a letter or digit.",
)


#: What a workbench's name adds to its draft's bot name ('~' is no character of a bot's).
WORKBENCH_SUFFIX = "~draft"


class Bot(models.Model):
    """A named bot of one player; what plays is one of its versions."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="bots"
    )
    # A team's bot is managed by every member of the team (selectors.may_manage_bot) and
    # shown as the team's; ``owner`` stays the member who created it.
    team = models.ForeignKey(
        "players.Team", null=True, blank=True, on_delete=models.PROTECT, related_name="bots"
    )
    name = models.CharField(max_length=40, validators=[bot_name_validator])
    visibility = models.CharField(
        max_length=16, choices=Visibility.choices, default=Visibility.PUBLIC
    )
    description = models.TextField(blank=True, max_length=2000)
    # A workbench holds the test builds of the owner's editor drafts (see TestGame): private,
    # entered on no ladder, listed nowhere (arena.bots.selectors.bot_list_visible).
    workbench = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = (
            # "Greedy" and "greedy" are the same bot to a reader.
            models.UniqueConstraint("owner", Lower("name"), name="bot_unique_name_per_owner"),
            # A team's bots are told apart by name too (a null team is distinct from any).
            models.UniqueConstraint("team", Lower("name"), name="bot_unique_name_per_team"),
        )
        indexes = (
            # The public list of bots, paged by name.
            models.Index(fields=["visibility", "name"], name="bot_visibility_name"),
        )

    def __str__(self) -> str:
        return self.name


class BotVersion(models.Model):
    """One immutable upload of a bot's code.

    The code is a content-addressed file in the default storage (its name is
    derived from its SHA-256), so identical uploads share one file and every
    web and worker machine reads the same bytes. So is its built program,
    made once when it is validated: matches never compile.
    """

    # Indexed by botversion_unique_number, which starts with it.
    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="versions", db_index=False)
    number = models.PositiveIntegerField()
    # The version this one replaces: its rating is where this one starts.
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="children"
    )
    code = models.FileField(max_length=255)
    code_sha256 = models.CharField(max_length=64, db_index=True)
    code_size = models.PositiveIntegerField(help_text="Size of the upload in bytes.")
    code_format = models.CharField(max_length=8, choices=CodeFormat.choices)
    runtime = models.CharField(max_length=32, choices=Runtime.choices, default=Runtime.PYTHON)
    # The name of the file uploaded (a single file is stored and run as the runtime's main
    # file, e.g. main.py): reports name it to its author. Empty for versions before it.
    filename = models.CharField(max_length=255, blank=True, default="")
    # The built program (a zip of the sandbox's /build), content-addressed in the default
    # storage so equal builds share it; empty for runtimes that build none, or until built.
    build = models.CharField(max_length=255, blank=True, default="")
    status = models.CharField(
        max_length=16, choices=VersionStatus.choices, default=VersionStatus.PENDING
    )
    status_changed_at = models.DateTimeField(auto_now_add=True)
    validation_report = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=["bot", "number"], name="botversion_unique_number"),
            models.CheckConstraint(
                condition=models.Q(number__gte=1), name="botversion_number_gte_1"
            ),
            # A bot plays with one version at a time.
            models.UniqueConstraint(
                fields=["bot"],
                condition=models.Q(status=VersionStatus.ACTIVE),
                name="botversion_one_active_per_bot",
            ),
        )
        indexes = (
            # The validation queue and the sweeper of stuck validations.
            models.Index(fields=["status", "status_changed_at"], name="botversion_status_changed"),
        )

    def __str__(self) -> str:
        return f"{self.bot.name} v{self.number}"


class Draft(models.Model):
    """Code an author writes in the browser editor: one source file, saved as they type.

    A draft is no version: nothing plays it until its author runs a test game
    (which builds a copy of it, :class:`TestGame`) or submits it, which uploads
    it as a new version of the bot named ``name`` (created if it has none).
    """

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="drafts", db_index=False
    )
    # The bot it becomes a version of: one of the owner's bots, or a new bot's name.
    name = models.CharField(max_length=40, validators=[bot_name_validator])
    # The file as the author would upload it (main.py, mybot.go): its suffix names the runtime.
    filename = models.CharField(max_length=255)
    source = models.TextField(blank=True)
    # The version it was started from; empty when started from a starter kit.
    started_from = models.ForeignKey(
        BotVersion, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = (
            # The editor's list of the author's drafts, latest first.
            models.Index("owner", models.F("updated_at").desc(), name="draft_owner_updated"),
        )

    def __str__(self) -> str:
        return f"draft {self.pk} of {self.name}"


class TestGame(models.Model):
    """One unrated game of a draft against house bots, played as the platform plays.

    The draft's code is stored as a version of its author's workbench bot (a
    test build): built by the same build step as an upload, then seated in a
    real, unrated :class:`~arena.matches.models.Match` of the ladder's game.
    A version, because a match seats versions and the match page, replay and
    debug output all work on them; a workbench's, so the author's real bot
    keeps its versions, verdicts, ratings and levels free of test builds.
    """

    __test__ = False  # not a pytest test class

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="test_games",
        db_index=False,
    )
    draft = models.ForeignKey(
        Draft, null=True, blank=True, on_delete=models.SET_NULL, related_name="test_games"
    )
    ladder = models.ForeignKey("ladders.Ladder", on_delete=models.CASCADE, related_name="+")
    build = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="test_games")
    # The opponents' versions (house bots' playing versions), by seat with the draft's left out.
    opponents = models.JSONField(default=list)
    seat = models.PositiveSmallIntegerField(help_text="The draft's seat.")
    match = models.ForeignKey(
        "matches.Match", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = (
            # The author's latest test games, and the hourly limit.
            models.Index("owner", models.F("created_at").desc(), name="testgame_owner_recent"),
        )

    def __str__(self) -> str:
        return f"test game {self.pk}"
