"""Players: Django users, each with a public profile."""

from __future__ import annotations

from typing import ClassVar

from django.conf import settings
from django.contrib.auth.models import AbstractUser, UserManager
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
