"""Players: Django users, each with a public profile."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models


class User(AbstractUser):
    """A person who logs in: a bot author, an organiser, or the house account.

    A project-owned user model from the first migration, so fields can be
    added later without swapping the model under existing data.
    """


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
