"""Writes of the notifications: choices, the webhook, notifications and their deliveries.

:func:`notify` stores an event for an author with one delivery per channel they chose
(throttled per hour); :func:`delivery_attempt` makes one attempt at one delivery,
which the task ``tasks.delivery_send`` retries. Other apps call :mod:`.flows`,
which queues the deliveries once the event commits.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.mail import EmailMessage
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from arena.errors import ArenaError
from arena.players.models import User
from arena.players.selectors import email_verified

from . import webhooks
from .kinds import EventKind
from .links import site_link
from .models import Channel, Delivery, DeliveryStatus, Notification, Preference, WebhookEndpoint
from .selectors import preference_for
from .unsubscribe import unsubscribe_url

log = logging.getLogger(__name__)


class DeliveryRetry(Exception):
    """An attempt failed and another is due (the task retries it, with backoff)."""


class NotificationError(ArenaError):
    code = "notification"


def preferences_set(*, user: User, choices: Mapping[str, tuple[bool, bool]]) -> None:
    """Set ``user``'s (e-mail, webhook) choice for each kind named in ``choices``."""
    for kind, (email, webhook) in choices.items():
        if kind not in EventKind.choosable():
            raise NotificationError(
                f"{kind!r} is not a kind of notification; choose among "
                + ", ".join(k.value for k in EventKind.choosable())
            )
        Preference.objects.update_or_create(
            user=user, kind=kind, defaults={"email": email, "webhook": webhook}
        )


def email_unsubscribe(*, user_id: int, kind: EventKind) -> None:
    """Turn off the e-mails of one kind (the one-click link); its webhook choice stays."""
    user = User.objects.filter(pk=user_id).first()
    if user is None:
        return
    webhook = preference_for(user=user, kind=kind).webhook
    Preference.objects.update_or_create(
        user=user, kind=kind, defaults={"email": False, "webhook": webhook}
    )


def webhook_set(*, user: User, url: str) -> WebhookEndpoint:
    """Point ``user``'s webhook at ``url`` (checked: :func:`.webhooks.url_check`); a new
    endpoint gets a new secret, a changed URL keeps its secret."""
    webhooks.url_check(url)
    endpoint, _ = WebhookEndpoint.objects.get_or_create(
        user=user, defaults={"url": url, "secret": _new_secret()}
    )
    if endpoint.url != url:
        endpoint.url = url
        endpoint.save(update_fields=["url", "updated_at"])
    return endpoint


def webhook_secret_regenerate(*, user: User) -> WebhookEndpoint:
    endpoint = WebhookEndpoint.objects.filter(user=user).first()
    if endpoint is None:
        raise NotificationError("You have no webhook yet: set its URL first.")
    endpoint.secret = _new_secret()
    endpoint.save(update_fields=["secret", "updated_at"])
    return endpoint


def webhook_delete(*, user: User) -> None:
    WebhookEndpoint.objects.filter(user=user).delete()


def _new_secret() -> str:
    return secrets.token_hex(32)


def notify(
    *,
    user: User,
    kind: EventKind,
    key: str,
    subject: str,
    text: str,
    payload: Mapping[str, Any] | None = None,
    now: datetime | None = None,
) -> list[Delivery]:
    """Tell ``user`` of an event: a notification (once per ``key``) with a delivery on each
    channel they chose for ``kind`` and set up (a verified e-mail address, a webhook).
    Returns the deliveries to send; a channel over its hourly limit gets a ``throttled``
    one, never sent. An unverified address gets nothing: anyone can type anybody's.

    The test kind goes to every channel set up, whatever the choices.
    """
    now = now or timezone.now()
    choice = preference_for(user=user, kind=kind)
    endpoint = WebhookEndpoint.objects.filter(user=user).first()
    targets: list[tuple[str, str]] = []
    if (choice.email or kind == EventKind.TEST) and email_verified(user):
        targets.append((Channel.EMAIL, user.email))
    if (choice.webhook or kind == EventKind.TEST) and endpoint is not None:
        targets.append((Channel.WEBHOOK, endpoint.url))
    if not targets:
        return []
    with transaction.atomic():
        # One author's notifications one at a time: the hourly counts below stay exact.
        User.objects.select_for_update().filter(pk=user.pk).first()
        try:
            with transaction.atomic():
                notification = Notification.objects.create(
                    user=user,
                    kind=kind,
                    key=key[:200],
                    subject=subject[:200],
                    text=text,
                    payload=dict(payload or {}),
                )
        except IntegrityError:
            return []  # told already
        deliveries = []
        for channel, target in targets:
            status = DeliveryStatus.PENDING
            error = ""
            limit = _hourly_limit(channel)
            if _sent_last_hour(user, channel, now) >= limit:
                status = DeliveryStatus.THROTTLED
                error = f"more than {limit} per hour: not sent (see the delivery log)"
                log.info("notification %s to %s: %s throttled", notification.pk, user.pk, channel)
            deliveries.append(
                Delivery.objects.create(
                    notification=notification,
                    user=user,
                    channel=channel,
                    target=target,
                    status=status,
                    last_error=error,
                )
            )
    return [d for d in deliveries if d.status == DeliveryStatus.PENDING]


def _hourly_limit(channel: str) -> int:
    if channel == Channel.EMAIL:
        return int(settings.ARENA_NOTIFY_EMAILS_PER_HOUR)
    return int(settings.ARENA_NOTIFY_WEBHOOKS_PER_HOUR)


def _sent_last_hour(user: User, channel: str, now: datetime) -> int:
    return (
        Delivery.objects.filter(user=user, channel=channel, created_at__gt=now - timedelta(hours=1))
        .exclude(status=DeliveryStatus.THROTTLED)
        .count()
    )


def webhook_body(delivery: Delivery) -> bytes:
    """The JSON a webhook posts: the same bytes on every attempt."""
    notification = delivery.notification
    document = {
        "delivery": delivery.pk,
        "kind": notification.kind,
        "subject": notification.subject,
        "text": notification.text,
        "created_at": notification.created_at.isoformat(),
        "data": notification.payload,
    }
    return json.dumps(document, sort_keys=True, separators=(",", ":")).encode()


def delivery_attempt(*, delivery: Delivery, now: datetime | None = None) -> Delivery:
    """One attempt at a pending delivery, recorded; raises DeliveryRetry when it failed
    with attempts left (``ARENA_NOTIFY_MAX_ATTEMPTS``), after recording it."""
    now = now or timezone.now()
    # The row stays locked through the attempt (at most the webhook's short timeout): a
    # message delivered twice waits, then finds it sent, and sends nothing.
    with transaction.atomic():
        locked = (
            Delivery.objects.select_for_update()
            .select_related("notification")
            .filter(pk=delivery.pk)
            .first()
        )
        if locked is None or locked.status != DeliveryStatus.PENDING:
            return locked or delivery  # sent already, or given up (a message delivered twice)
        if locked.channel == Channel.EMAIL:
            ok, status, error = _send_email(locked)
        else:
            ok, status, error = _send_webhook(locked, now)
        locked.attempts += 1
        locked.last_attempt_at = now
        locked.last_response = status
        locked.last_error = error
        if ok:
            locked.status, locked.sent_at = DeliveryStatus.SENT, now
        elif locked.attempts >= settings.ARENA_NOTIFY_MAX_ATTEMPTS:
            locked.status = DeliveryStatus.FAILED
        locked.save()
    if locked.status == DeliveryStatus.PENDING:
        raise DeliveryRetry(f"delivery {locked.pk} attempt {locked.attempts}: {error}")
    return locked


def _send_webhook(delivery: Delivery, now: datetime) -> tuple[bool, int | None, str]:
    endpoint = WebhookEndpoint.objects.filter(user_id=delivery.user_id).first()
    if endpoint is None:
        return False, None, "the webhook was removed"
    timestamp = int(now.timestamp())
    body = webhook_body(delivery)
    answer = webhooks.post(
        url=endpoint.url,
        body=body,
        headers={
            "X-Arena-Event": delivery.notification.kind,
            "X-Arena-Delivery": str(delivery.pk),
            webhooks.TIMESTAMP_HEADER: str(timestamp),
            webhooks.SIGNATURE_HEADER: webhooks.signature(
                secret=endpoint.secret, timestamp=timestamp, body=body
            ),
        },
    )
    return answer.ok, answer.status, answer.error


def _send_email(delivery: Delivery) -> tuple[bool, int | None, str]:
    notification = delivery.notification
    link = unsubscribe_url(user_id=delivery.user_id, kind=notification.kind)
    body = (
        f"{notification.text}\n\n--\n"
        f"Stop these e-mails ({EventKind(notification.kind).label.lower()}): {link}\n"
        f"All your choices: {site_link('web:notifications')}\n"
    )
    message = EmailMessage(
        subject=f"[Las Vegas Arena] {notification.subject}",
        body=body,
        to=[delivery.target],
        headers={
            # RFC 8058: a mail client's own unsubscribe button POSTs to the link.
            "List-Unsubscribe": f"<{link}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        },
    )
    try:
        message.send()
    except OSError as error:  # SMTP refused, unreachable
        return False, None, f"{type(error).__name__}: {error}"[:500]
    return True, None, ""


def test_send(*, user: User) -> list[Delivery]:
    """The settings page's test: a notification on every channel set up."""
    if not email_verified(user) and not WebhookEndpoint.objects.filter(user=user).exists():
        raise NotificationError(
            "Nothing to test: you have neither "
            + (
                "a verified e-mail address (follow the link e-mailed to it)"
                if user.email
                else "an e-mail address"
            )
            + " nor a webhook; set one first."
        )
    return notify(
        user=user,
        kind=EventKind.TEST,
        key=f"test:{secrets.token_hex(8)}",
        subject="A test notification",
        text="This is a test sent from your notification settings. It works.",
        payload={"test": True},
    )


#: A pending delivery untouched this long lost its message (retries wait an hour at most).
LOST_AFTER = timedelta(hours=2)


def deliveries_lost(*, now: datetime | None = None) -> list[int]:
    """Pending deliveries whose task was lost (a broker outage), to queue again; their
    clocks restart so the next sweep does not queue them twice."""
    now = now or timezone.now()
    cutoff = now - LOST_AFTER
    lost = Delivery.objects.filter(status=DeliveryStatus.PENDING).filter(
        Q(last_attempt_at__lt=cutoff) | Q(last_attempt_at__isnull=True, created_at__lt=cutoff)
    )
    ids = list(lost.values_list("pk", flat=True)[:1000])
    Delivery.objects.filter(pk__in=ids).update(last_attempt_at=now)
    return ids
