"""One-click unsubscribe tokens: who and which kind, signed with SECRET_KEY (no login)."""

from __future__ import annotations

from django.core import signing

from .kinds import EventKind
from .links import site_link

_SALT = "arena.notifications.unsubscribe"


def token_make(*, user_id: int, kind: str) -> str:
    return signing.dumps({"u": user_id, "k": kind}, salt=_SALT, compress=True)


def token_read(token: str) -> tuple[int, EventKind] | None:
    """The user id and kind a token names; None if it was not made here or was altered."""
    try:
        data = signing.loads(token, salt=_SALT)
        return int(data["u"]), EventKind(data["k"])
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        return None


def unsubscribe_url(*, user_id: int, kind: str) -> str:
    """The absolute link an e-mail carries."""
    return site_link("notification-unsubscribe", token=token_make(user_id=user_id, kind=kind))
