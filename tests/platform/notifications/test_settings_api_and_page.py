"""An author's notification settings over the API (OpenAPI-described) and on their page."""

from __future__ import annotations

from typing import Any

import pytest
from django.core import mail
from django.test import Client

from arena.notifications.kinds import EventKind
from arena.notifications.models import Channel, Delivery, DeliveryStatus, WebhookEndpoint
from arena.notifications.selectors import preference_for
from tests.platform.api_support import client_for

from .conftest import documented_verify
from .receiver import receiver

pytestmark = pytest.mark.django_db


def test_the_api_sets_choices_and_a_webhook_whose_secret_is_shown_once(
    alice: Any, django_capture_on_commit_callbacks: Any
) -> None:
    api = client_for(alice)
    choices = api.get("/api/notifications/preferences/").json()
    assert [c["kind"] for c in choices] == [
        "version.preflight",
        "competition.phase",
        "league.round",
        "challenge.finished",
        "level.beat",
    ]
    assert all(c["email"] and c["webhook"] and c["description"] for c in choices)
    put = api.put(
        "/api/notifications/preferences/",
        {"choices": [{"kind": "league.round", "email": False, "webhook": True}]},
        format="json",
    )
    assert put.status_code == 200
    assert preference_for(user=alice, kind=EventKind.LEAGUE_ROUND).email is False
    refused = api.put(
        "/api/notifications/preferences/",
        {"choices": [{"kind": "test", "email": False, "webhook": False}]},
        format="json",
    )
    assert refused.status_code == 400

    assert api.get("/api/notifications/webhook/").status_code == 404
    with receiver() as hook:
        made = api.put("/api/notifications/webhook/", {"url": hook.url}, format="json")
        assert made.status_code == 201, made.content
        secret = made.json()["secret"]
        assert secret == WebhookEndpoint.objects.get(user=alice).secret
        shown = api.get("/api/notifications/webhook/").json()
        assert shown["url"] == hook.url and "secret" not in shown
        again = api.put("/api/notifications/webhook/", {"url": hook.url + "2"}, format="json")
        assert again.status_code == 200 and "secret" not in again.json()
        api.put("/api/notifications/webhook/", {"url": hook.url}, format="json")

        with django_capture_on_commit_callbacks(execute=True):
            tested = api.post("/api/notifications/test/")
        assert tested.status_code == 202
        assert sorted(d["channel"] for d in tested.json()) == ["email", "webhook"]
    assert len(mail.outbox) == 1 and len(hook.received) == 1
    got = hook.received[0]
    assert documented_verify()(secret, got.headers, got.body)
    log = api.get("/api/notifications/deliveries/").json()
    assert sorted((d["channel"], d["status"], d["kind"]) for d in log) == [
        ("email", "sent", "test"),
        ("webhook", "sent", "test"),
    ]

    renewed = api.post("/api/notifications/webhook/secret/").json()["secret"]
    assert renewed != secret and len(renewed) == 64
    assert api.delete("/api/notifications/webhook/").status_code == 204
    assert not WebhookEndpoint.objects.exists()


def test_the_api_refuses_a_webhook_into_the_platform_s_network(alice: Any, settings: Any) -> None:
    settings.ARENA_WEBHOOK_ALLOW_PRIVATE = False
    answer = client_for(alice).put(
        "/api/notifications/webhook/", {"url": "http://127.0.0.1:6379/"}, format="json"
    )
    assert answer.status_code == 400
    assert answer.json()["code"] == "webhook_url"
    assert "private or local address" in answer.json()["detail"]


def test_the_api_needs_a_login() -> None:
    assert client_for().get("/api/notifications/preferences/").status_code in (401, 403)


def test_the_openapi_schema_describes_the_endpoints(db: None) -> None:
    schema = client_for().get("/api/schema/?format=json").json()
    for path in ("preferences", "webhook", "webhook/secret", "test", "deliveries"):
        assert f"/api/notifications/{path}/" in schema["paths"]


def test_the_settings_page_saves_choices_sends_a_test_and_shows_the_log(
    alice: Any, django_capture_on_commit_callbacks: Any
) -> None:
    client = Client()
    client.force_login(alice)
    page = client.get("/notifications/")
    assert page.status_code == 200
    assert b'name="email:level.beat"' in page.content and b"Nothing sent yet." in page.content

    # Every kind but the pre-flight's e-mail (unchecked boxes are not sent).
    checked = {
        f"{channel}:{kind.value}": "on"
        for kind in EventKind.choosable()
        for channel in ("email", "webhook")
    }
    del checked["email:version.preflight"]
    client.post("/notifications/", {"action": "choices", **checked})
    assert preference_for(user=alice, kind=EventKind.PREFLIGHT).email is False
    assert preference_for(user=alice, kind=EventKind.PREFLIGHT).webhook is True

    with receiver() as hook:
        made = client.post("/notifications/", {"action": "webhook", "url": hook.url})
        secret = WebhookEndpoint.objects.get(user=alice).secret
        assert secret.encode() in made.content  # shown this once
        assert secret.encode() not in client.get("/notifications/").content
        with django_capture_on_commit_callbacks(execute=True):
            client.post("/notifications/", {"action": "test"})
    assert len(hook.received) == 1 and len(mail.outbox) == 1
    assert set(Delivery.objects.values_list("channel", "status")) == {
        (Channel.EMAIL, DeliveryStatus.SENT),
        (Channel.WEBHOOK, DeliveryStatus.SENT),
    }
    log = client.get("/notifications/")
    assert b'id="delivery-log"' in log.content and log.content.count(b"A test notification") == 2


def test_the_settings_page_needs_a_login(db: None) -> None:
    answer = Client().get("/notifications/")
    assert answer.status_code == 302 and "/login/" in answer["Location"]
