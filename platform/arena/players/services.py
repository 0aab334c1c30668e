"""Writes on players."""

from __future__ import annotations

from django.contrib.auth import authenticate
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpRequest
from rest_framework.authtoken.models import Token

from arena.errors import ArenaError

from .models import Profile, User


class PlayerError(ArenaError):
    code = "player_invalid"


@transaction.atomic
def player_create(
    *,
    username: str,
    email: str = "",
    password: str | None = None,
    display_name: str = "",
    is_staff: bool = False,
    is_house: bool = False,
) -> User:
    """A user and their profile; without a password the account cannot log in.

    The username is taken in its NFKC form (full-width or composed letters fold
    into the plain ones) and must differ from every other in more than case.
    """
    username = User.normalize_username(username)
    taken = User.objects.filter(username__iexact=username).values_list("username", flat=True)
    if (existing := taken.first()) is not None:
        raise PlayerError(
            f"the username {username!r} is taken"
            + ("" if existing == username else f" (as {existing!r}: case does not count)")
            + ": choose another."
        )
    user = User(username=username, email=email, is_staff=is_staff)
    if password is None:
        user.set_unusable_password()
    else:
        user.set_password(password)
    try:
        user.full_clean()
    except ValidationError as error:
        raise PlayerError("; ".join(error.messages)) from None
    user.save()
    Profile.objects.create(user=user, display_name=display_name or username, is_house=is_house)
    return user


class CredentialsError(ArenaError):
    code = "credentials_invalid"


def auth_token_obtain(*, request: HttpRequest, username: str, password: str) -> Token:
    """The API token of the account with these credentials, created on first use.

    ``request`` (Django's, not DRF's) lets django-axes count failures by address
    and mark a locked-out one for its middleware.
    """
    user = authenticate(request, username=username, password=password)
    if user is None or not user.is_active:
        raise CredentialsError(
            "unknown username or wrong password: use the credentials you log in with."
        )
    token, _ = Token.objects.get_or_create(user=user)
    return token


def auth_token_revoke(*, user: User) -> None:
    """Delete the user's API token: scripts using it stop working until a new one is made."""
    Token.objects.filter(user=user).delete()
