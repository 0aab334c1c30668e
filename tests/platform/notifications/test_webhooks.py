"""Webhooks: signed as documented, retried after a failure until delivered, refused
where they could reach the platform's own network."""

from __future__ import annotations

import json
import re
import socket
from datetime import timedelta
from typing import Any

import pytest

from arena.notifications import flows, services
from arena.notifications.kinds import EventKind
from arena.notifications.models import Channel, Delivery, DeliveryStatus, Notification
from arena.notifications.tasks import deliveries_requeue_lost, delivery_send
from arena.notifications.webhooks import WebhookUrlError, url_check

from .conftest import documented_verify
from .receiver import receiver

pytestmark = pytest.mark.django_db


def test_a_webhook_failing_once_is_retried_then_delivered_with_a_valid_signature(
    alice: Any, django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice.email = ""  # the webhook alone
    alice.save()
    # In eager mode Celery runs a task's retry at once, in line, unless errors propagate
    # (as the suite's settings make them): no countdown waited, no sleep.
    monkeypatch.setitem(delivery_send.app.conf, "task_eager_propagates", False)
    with receiver([500, 200]) as hook:
        endpoint = services.webhook_set(user=alice, url=hook.url)
        with django_capture_on_commit_callbacks(execute=True):
            flows.notify(
                user=alice,
                kind=EventKind.CHALLENGE_FINISHED,
                key="challenge:7",
                subject="Challenge finished",
                text="shark won 2 of 2",
                payload={"challenge": 7},
            )
    delivery = Delivery.objects.get()
    assert (delivery.channel, delivery.status, delivery.attempts) == (
        Channel.WEBHOOK,
        DeliveryStatus.SENT,
        2,
    )
    assert (delivery.last_response, delivery.last_error) == (200, "")
    assert len(hook.received) == 2
    verify = documented_verify()
    for got in hook.received:
        assert verify(endpoint.secret, got.headers, got.body)
        assert not verify("another secret", got.headers, got.body)
        assert not verify(endpoint.secret, got.headers, got.body + b" ")
        assert got.headers["X-Arena-Event"] == "challenge.finished"
        assert got.headers["X-Arena-Delivery"] == str(delivery.pk)
    body = json.loads(hook.received[-1].body)
    assert body["kind"] == "challenge.finished" and body["data"] == {"challenge": 7}
    assert body["delivery"] == delivery.pk


def test_each_attempt_is_logged_and_the_last_one_gives_up(alice: Any, settings: Any) -> None:
    settings.ARENA_NOTIFY_MAX_ATTEMPTS = 3
    alice.email = ""
    alice.save()
    with receiver([503]) as hook:
        services.webhook_set(user=alice, url=hook.url)
        (delivery,) = services.notify(
            user=alice, kind=EventKind.PREFLIGHT, key="k", subject="s", text="t"
        )
        for attempt in (1, 2):
            with pytest.raises(services.DeliveryRetry):
                services.delivery_attempt(delivery=delivery)
            delivery.refresh_from_db()
            assert (delivery.status, delivery.attempts) == (DeliveryStatus.PENDING, attempt)
            assert (delivery.last_response, delivery.last_error) == (
                503,
                "HTTP 503 Service Unavailable",
            )
        services.delivery_attempt(delivery=delivery)  # the last: no retry after it
        delivery.refresh_from_db()
        assert (delivery.status, delivery.attempts) == (DeliveryStatus.FAILED, 3)
        # A message delivered again changes nothing.
        services.delivery_attempt(delivery=delivery)
    assert len(hook.received) == 3
    delivery.refresh_from_db()
    assert delivery.attempts == 3


def test_a_receiver_that_is_gone_is_a_failed_attempt(alice: Any) -> None:
    with receiver() as hook:
        url = hook.url
    services.webhook_set(user=alice, url=url)
    delivery = Delivery.objects.create(
        notification=Notification.objects.create(
            user=alice, kind=EventKind.TEST, key="x", subject="s", text="t"
        ),
        user=alice,
        channel=Channel.WEBHOOK,
        target=url,
    )
    with pytest.raises(services.DeliveryRetry, match=r"ConnectionRefusedError|URLError"):
        services.delivery_attempt(delivery=delivery)


@pytest.mark.parametrize(
    "url, why",
    [
        ("ftp://example.org/hook", "not an http:// or https:// URL"),
        ("file:///etc/passwd", "not an http:// or https:// URL"),
        ("http:///nohost", "names no host"),
        ("http://127.0.0.1:8000/hook", "resolves to 127.0.0.1, a private or local address"),
        ("http://10.1.2.3/hook", "resolves to 10.1.2.3, a private or local address"),
        ("http://169.254.169.254/latest", "a private or local address"),
        ("http://[::1]/hook", "resolves to ::1"),
        ("http://localhost/hook", "a private or local address"),
    ],
)
def test_urls_reaching_inside_are_refused(url: str, why: str, settings: Any) -> None:
    settings.ARENA_WEBHOOK_ALLOW_PRIVATE = False
    with pytest.raises(WebhookUrlError, match=re.escape(why)):
        url_check(url)


def test_a_private_address_is_refused_again_when_sending(alice: Any, settings: Any) -> None:
    """Set while allowed (or resolving elsewhere then): checked again at each attempt."""
    with receiver() as hook:
        services.webhook_set(user=alice, url=hook.url)
        alice.email = ""
        alice.save()
        (delivery,) = services.notify(
            user=alice, kind=EventKind.TEST, key="k", subject="s", text="t"
        )
        settings.ARENA_WEBHOOK_ALLOW_PRIVATE = False
        with pytest.raises(services.DeliveryRetry, match="private or local address"):
            services.delivery_attempt(delivery=delivery)
    assert hook.received == []


def test_an_attempt_connects_to_the_address_it_checked(
    alice: Any, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rebinding name server answers a public address to the check and a local one
    after it: the POST goes to the address checked, never to a second lookup's."""
    with receiver() as hook:
        services.webhook_set(user=alice, url=hook.url.replace("127.0.0.1", "hooks.example"))
        alice.email = ""
        alice.save()
        (delivery,) = services.notify(
            user=alice, kind=EventKind.TEST, key="k", subject="s", text="t"
        )
        settings.ARENA_WEBHOOK_ALLOW_PRIVATE = False
        lookups: list[str] = []

        def rebinding(host: str, port: int, *args: Any, **kwargs: Any) -> list[Any]:
            address = "93.184.216.34" if not lookups else "127.0.0.1"
            lookups.append(address)
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))]

        connected: list[tuple[str, int]] = []

        def refuse(target: tuple[str, int], *args: Any, **kwargs: Any) -> socket.socket:
            connected.append(target)
            raise ConnectionRefusedError("refused by the test")

        monkeypatch.setattr(socket, "getaddrinfo", rebinding)
        monkeypatch.setattr(socket, "create_connection", refuse)
        with pytest.raises(services.DeliveryRetry, match="refused by the test"):
            services.delivery_attempt(delivery=delivery)
    assert connected == [("93.184.216.34", int(hook.url.split(":")[2].split("/")[0]))]
    assert lookups == ["93.184.216.34"]
    assert hook.received == []


def test_the_secret_is_made_by_the_platform_and_can_be_replaced(alice: Any) -> None:
    endpoint = services.webhook_set(user=alice, url="http://127.0.0.1:9/a")
    assert len(endpoint.secret) == 64
    same = services.webhook_set(user=alice, url="http://127.0.0.1:9/b")
    assert (same.url, same.secret) == ("http://127.0.0.1:9/b", endpoint.secret)
    replaced = services.webhook_secret_regenerate(user=alice)
    assert replaced.secret != endpoint.secret and len(replaced.secret) == 64


def test_a_redirect_is_not_followed(alice: Any) -> None:
    """It could point anywhere, inside the platform's network too: a failed attempt."""
    with receiver([302], location="http://10.0.0.1/inside") as hook:
        services.webhook_set(user=alice, url=hook.url)
        alice.email = ""
        alice.save()
        (delivery,) = services.notify(
            user=alice, kind=EventKind.TEST, key="k", subject="s", text="t"
        )
        with pytest.raises(services.DeliveryRetry, match="HTTP 302 redirect not followed"):
            services.delivery_attempt(delivery=delivery)
    assert len(hook.received) == 1


def test_a_delivery_whose_message_was_lost_is_queued_again_by_the_sweep(alice: Any) -> None:
    alice.email = ""
    alice.save()
    with receiver() as hook:
        services.webhook_set(user=alice, url=hook.url)
        # Stored, its message never published (the broker was down at the commit).
        (delivery,) = services.notify(
            user=alice, kind=EventKind.TEST, key="k", subject="s", text="t"
        )
        assert deliveries_requeue_lost.delay().get() == 0  # young: its message may be coming
        Delivery.objects.filter(pk=delivery.pk).update(
            created_at=delivery.created_at - services.LOST_AFTER - timedelta(seconds=1)
        )
        assert deliveries_requeue_lost.delay().get() == 1
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == (DeliveryStatus.SENT, 1)
    assert len(hook.received) == 1
