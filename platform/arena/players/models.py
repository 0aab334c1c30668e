"""Players: Django users, each with a public profile."""

from __future__ import annotations

from typing import ClassVar

from django.conf import settings
from django.contrib.auth.models import AbstractUser, UserManager
from django.core.validators import RegexValidator
from django.db import models
from django.db.models.functions import Lower


class PlayerManager(UserManager["User"]):
    def get_by_natural_key(self, username: str | None) -> User:
        """Log in by the username in any case (and any Unicode form NFKC folds together):
        no two users differ only by those (``User.Meta.constraints``)."""
        return self.get(username__iexact=User.normalize_username(username or ""))


class User(AbstractUser):
    """A person who logs in: a bot author, an organiser, or the house account.

    A project-owned user model from the first migration, so fields can be
    added later without swapping the model under existing data. Usernames are
    unique without regard to case, so "NEWBIE" cannot pass for "newbie".
    """

    objects: ClassVar[PlayerManager] = PlayerManager()

    # The address a verification link proved the user reads, and when: it counts only
    # while it is still ``email`` (selectors.email_verified), so a changed address is
    # unverified until its own link is followed.
    verified_email = models.EmailField(blank=True)
    email_verified_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = (
            models.UniqueConstraint(
                Lower("username"),
                name="players_username_unique_in_any_case",
                violation_error_message="That username is taken (in another case).",
            ),
        )


class Profile(models.Model):
    """What other players see of a user."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile"
    )
    display_name = models.CharField(max_length=64)
    bio = models.TextField(blank=True, max_length=2000)
    # The house account owns the built-in bots; pages mark its bots as such.
    is_house = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return self.display_name


team_name_validator = RegexValidator(
    r"^[A-Za-z0-9][A-Za-z0-9 _.-]{0,39}$",
    "Use 1-40 letters, digits, spaces, '_', '.' or '-', starting with a letter or digit.",
)


class Team(models.Model):
    """Users who own bots together: every member uploads versions of the team's bots,
    reads their internals and enters them; quotas count per team (docs/teams.md).

    New members join through an invitation link carrying ``invite_token``; a team owner
    regenerates it (old links stop working), and a link is good for
    ARENA_TEAM_INVITE_DAYS after ``invite_created_at``.
    """

    name = models.CharField(max_length=40, validators=[team_name_validator])
    description = models.TextField(blank=True, max_length=2000)
    invite_token = models.CharField(max_length=64, unique=True)
    invite_created_at = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = (
            # A bot's page shows its team's name instead of its owner's: no two alike.
            models.UniqueConstraint(
                Lower("name"),
                name="team_name_unique_in_any_case",
                violation_error_message="That team name is taken (in another case).",
            ),
        )

    def __str__(self) -> str:
        return self.name


class TeamRole(models.TextChoices):
    OWNER = "owner", "Owner"
    """Invites (sees and regenerates the link), removes members, hands over ownership."""
    MEMBER = "member", "Member"
    """Uploads, reads internals and enters the team's bots, like its owners."""


class TeamMembership(models.Model):
    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="memberships")
    # Indexed: a user's teams are read by every access check on a team's bot.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="team_memberships"
    )
    role = models.CharField(max_length=8, choices=TeamRole.choices, default=TeamRole.MEMBER)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=["team", "user"], name="teammembership_unique"),
        )

    def __str__(self) -> str:
        return f"{self.user_id} in {self.team_id} ({self.role})"
