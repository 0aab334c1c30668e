"""Reads on players."""

from __future__ import annotations

from .models import User

HOUSE_USERNAME = "house"


def house_user_get() -> User | None:
    """The account owning the house bots, if `load_house_bots` has run."""
    return User.objects.filter(username=HOUSE_USERNAME).first()


def player_get(*, username: str) -> User | None:
    """An active account by username, with its profile (a user page shows both)."""
    return User.objects.select_related("profile").filter(username=username, is_active=True).first()
