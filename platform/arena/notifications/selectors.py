"""Reads of the notifications: an author's choices, webhook and delivery log."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import QuerySet

from arena.players.models import User

from .kinds import EventKind
from .models import Delivery, Preference, WebhookEndpoint

#: A kind an author never chose: e-mail on (if they have an address), webhook on (if set).
DEFAULT_EMAIL = True
DEFAULT_WEBHOOK = True


def preference_for(*, user: User, kind: EventKind) -> Preference:
    """``user``'s choice for ``kind`` (the defaults, unsaved, if they never chose)."""
    chosen = Preference.objects.filter(user=user, kind=kind).first()
    return chosen or Preference(user=user, kind=kind, email=DEFAULT_EMAIL, webhook=DEFAULT_WEBHOOK)


@dataclass(frozen=True)
class Choice:
    kind: EventKind
    email: bool
    webhook: bool


def preferences_of(*, user: User) -> list[Choice]:
    """Every kind an author may choose, with their choice (or the default)."""
    chosen = {p.kind: p for p in Preference.objects.filter(user=user)}
    choices = []
    for kind in EventKind.choosable():
        row = chosen.get(kind)
        choices.append(
            Choice(
                kind=kind,
                email=DEFAULT_EMAIL if row is None else row.email,
                webhook=DEFAULT_WEBHOOK if row is None else row.webhook,
            )
        )
    return choices


def webhook_of(*, user: User) -> WebhookEndpoint | None:
    return WebhookEndpoint.objects.filter(user=user).first()


def deliveries_recent(*, user: User, limit: int = 30) -> QuerySet[Delivery]:
    """``user``'s latest deliveries, newest first, with their notification."""
    return (
        Delivery.objects.filter(user=user)
        .select_related("notification")
        .order_by("-created_at", "-pk")[:limit]
    )
