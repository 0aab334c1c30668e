"""What other apps call to tell an author something: the service, then the deliveries
queued once the event commits (a rolled-back event sends nothing)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.players.models import User
from arena.queueing import publish_on_commit

from . import services
from .kinds import EventKind
from .models import Delivery
from .tasks import delivery_send


def _queue(deliveries: list[Delivery]) -> list[Delivery]:
    for delivery in deliveries:
        publish_on_commit(delivery_send, delivery.pk)
    return deliveries


def notify(
    *,
    user: User,
    kind: EventKind,
    key: str,
    subject: str,
    text: str,
    payload: Mapping[str, Any] | None = None,
) -> list[Delivery]:
    """Tell ``user`` of an event (:func:`.services.notify`): once per ``key``, on the
    channels they chose for ``kind``; the deliveries are queued."""
    return _queue(
        services.notify(user=user, kind=kind, key=key, subject=subject, text=text, payload=payload)
    )


def test_send(*, user: User) -> list[Delivery]:
    """The settings page's "send a test" (:func:`.services.test_send`), queued."""
    return _queue(services.test_send(user=user))
