"""E-mails: in the outbox with a working one-click unsubscribe; choices respected; throttled."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core import mail
from django.test import Client

from arena.notifications import flows, services
from arena.notifications.kinds import EventKind
from arena.notifications.models import Channel, Delivery, DeliveryStatus
from arena.notifications.selectors import preference_for

from .receiver import receiver

pytestmark = pytest.mark.django_db


def tell(user: Any, kind: EventKind, key: str, capture: Any) -> list[Delivery]:
    with capture(execute=True):
        return flows.notify(
            user=user, kind=kind, key=key, subject=f"about {key}", text="It happened."
        )


def test_an_email_arrives_with_a_one_click_unsubscribe_that_works_without_login(
    alice: Any, django_capture_on_commit_callbacks: Any
) -> None:
    tell(alice, EventKind.PREFLIGHT, "preflight:1", django_capture_on_commit_callbacks)
    (message,) = mail.outbox
    assert message.to == ["alice@example.org"]
    assert message.subject == "[Las Vegas Arena] about preflight:1"
    assert "It happened." in message.body
    link = re.search(r"http://testserver(/notifications/unsubscribe/[^/\s]+/)", message.body)
    assert link is not None, message.body
    assert message.extra_headers["List-Unsubscribe"] == f"<http://testserver{link.group(1)}>"
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert Delivery.objects.get().status == DeliveryStatus.SENT

    anonymous = Client(enforce_csrf_checks=True)
    # Opening the link (a person, a link checker) changes nothing: it shows one button.
    page = anonymous.get(link.group(1))
    assert page.status_code == 200 and b'id="unsubscribe-form"' in page.content
    assert preference_for(user=alice, kind=EventKind.PREFLIGHT).email is True
    # The button, or the mail client's RFC 8058 POST: no CSRF token, no login.
    done = anonymous.post(link.group(1), {"List-Unsubscribe": "One-Click"})
    assert done.status_code == 200 and b'id="unsubscribed"' in done.content
    choice = preference_for(user=alice, kind=EventKind.PREFLIGHT)
    assert (choice.email, choice.webhook) == (False, True)

    tell(alice, EventKind.PREFLIGHT, "preflight:2", django_capture_on_commit_callbacks)
    assert len(mail.outbox) == 1  # that kind is off
    tell(alice, EventKind.CHALLENGE_FINISHED, "challenge:1", django_capture_on_commit_callbacks)
    assert len(mail.outbox) == 2  # the others are not


def test_an_altered_unsubscribe_link_changes_nothing(
    alice: Any, django_capture_on_commit_callbacks: Any
) -> None:
    tell(alice, EventKind.PREFLIGHT, "preflight:1", django_capture_on_commit_callbacks)
    link = re.search(r"http://testserver(/notifications/unsubscribe/[^/\s]+/)", mail.outbox[0].body)
    assert link is not None
    forged = link.group(1).replace("/unsubscribe/", "/unsubscribe/x")
    assert Client().post(forged).status_code == 400
    assert preference_for(user=alice, kind=EventKind.PREFLIGHT).email is True


def test_choices_pick_the_channels(alice: Any, django_capture_on_commit_callbacks: Any) -> None:
    services.preferences_set(
        user=alice,
        choices={"league.round": (False, True), "challenge.finished": (True, False)},
    )
    with receiver() as hook:
        services.webhook_set(user=alice, url=hook.url)
        tell(alice, EventKind.LEAGUE_ROUND, "round:1", django_capture_on_commit_callbacks)
        tell(alice, EventKind.CHALLENGE_FINISHED, "challenge:1", django_capture_on_commit_callbacks)
        tell(
            alice, EventKind.PREFLIGHT, "preflight:1", django_capture_on_commit_callbacks
        )  # defaults
    sent = sorted(Delivery.objects.values_list("notification__kind", "channel"))
    assert sent == [
        ("challenge.finished", Channel.EMAIL),
        ("league.round", Channel.WEBHOOK),
        ("version.preflight", Channel.EMAIL),
        ("version.preflight", Channel.WEBHOOK),
    ]
    assert [m.subject for m in mail.outbox] == [
        "[Las Vegas Arena] about challenge:1",
        "[Las Vegas Arena] about preflight:1",
    ]
    assert len(hook.received) == 2


def test_no_address_and_no_webhook_sends_nothing(
    bob: Any, django_capture_on_commit_callbacks: Any
) -> None:
    bob.email = ""
    bob.save()
    assert tell(bob, EventKind.PREFLIGHT, "p", django_capture_on_commit_callbacks) == []
    assert mail.outbox == [] and not Delivery.objects.exists()
    with pytest.raises(services.NotificationError, match="neither an e-mail address nor a webhook"):
        services.test_send(user=bob)


def test_an_event_is_told_once(alice: Any, django_capture_on_commit_callbacks: Any) -> None:
    tell(alice, EventKind.CHALLENGE_FINISHED, "challenge:3", django_capture_on_commit_callbacks)
    tell(alice, EventKind.CHALLENGE_FINISHED, "challenge:3", django_capture_on_commit_callbacks)
    assert len(mail.outbox) == 1


def test_past_the_hourly_limit_emails_are_dropped_and_logged(
    alice: Any, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.ARENA_NOTIFY_EMAILS_PER_HOUR = 3
    for number in range(5):
        tell(
            alice,
            EventKind.CHALLENGE_FINISHED,
            f"challenge:{number}",
            django_capture_on_commit_callbacks,
        )
    assert len(mail.outbox) == 3
    statuses = list(Delivery.objects.order_by("pk").values_list("status", "last_error"))
    assert [s for s, _ in statuses] == [DeliveryStatus.SENT] * 3 + [DeliveryStatus.THROTTLED] * 2
    assert statuses[-1][1] == "more than 3 per hour: not sent (see the delivery log)"
    # An hour later the count starts again.
    Delivery.objects.update(created_at=Delivery.objects.first().created_at.replace(year=2020))  # type: ignore[union-attr]
    tell(alice, EventKind.CHALLENGE_FINISHED, "challenge:9", django_capture_on_commit_callbacks)
    assert len(mail.outbox) == 4


def test_an_unverified_address_gets_no_email_and_the_page_says_why(
    django_capture_on_commit_callbacks: Any,
) -> None:
    from tests.platform.factories import UserFactory

    # Anyone can type an address that is not theirs: until its link is followed, nothing.
    dora = UserFactory(username="dora", verified_email="", email_verified_at=None)
    assert tell(dora, EventKind.PREFLIGHT, "p", django_capture_on_commit_callbacks) == []
    assert mail.outbox == [] and not Delivery.objects.exists()
    with pytest.raises(services.NotificationError, match="neither a verified e-mail address"):
        services.test_send(user=dora)
    client = Client()
    client.force_login(dora)
    page = client.get("/notifications/").content.decode()
    assert "dora@example.org is not verified: nothing is e-mailed to it" in page
    assert "Verify this address" in page

    # A webhook needs no verified address: it is delivered (here stored, not sent).
    services.webhook_set(user=dora, url="http://127.0.0.1:9/hook")
    (hooked,) = services.notify(user=dora, kind=EventKind.PREFLIGHT, key="w", subject="s", text="t")
    assert hooked.channel == Channel.WEBHOOK
    services.webhook_delete(user=dora)

    # Verified, the same event kind is e-mailed.
    dora.verified_email = dora.email
    dora.email_verified_at = dora.date_joined
    dora.save()
    tell(dora, EventKind.PREFLIGHT, "p2", django_capture_on_commit_callbacks)
    assert [m.to for m in mail.outbox] == [["dora@example.org"]]
