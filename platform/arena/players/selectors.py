"""Reads on players."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from rest_framework.request import Request

from .models import User

HOUSE_USERNAME = "house"


def house_user_get() -> User | None:
    """The account owning the house bots, if `load_house_bots` has run."""
    return User.objects.filter(username=HOUSE_USERNAME).first()


def player_get(*, username: str) -> User | None:
    """An active account by username, with its profile (a user page shows both)."""
    return User.objects.select_related("profile").filter(username=username, is_active=True).first()


def signed_in(request: HttpRequest | Request) -> User:
    """The player behind a request that requires one (login_required, IsAuthenticated).

    Those guards run first, so this only narrows the type; a request that slips
    through anyway is refused rather than served as somebody else.
    """
    user = request.user
    if not isinstance(user, User):
        raise PermissionDenied("sign in first.")
    return user
