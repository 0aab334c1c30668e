"""Players' services followed by their tasks, queued once the caller commits."""

from __future__ import annotations

from arena.queueing import publish_on_commit

from .models import User
from .services import email_verification_check
from .tasks import email_verification_send


def email_verification_request(*, user: User) -> None:
    """Send ``user`` a link verifying their address (refused, saying why, when there is
    nothing to verify). The web page and the API throttle the requests."""
    email_verification_check(user=user)
    publish_on_commit(email_verification_send, user.pk)
