"""In Chromium: an author's notification settings, on a desktop and a phone: a choice
saved, a webhook set (its secret shown once), a test sent and the delivery log."""

from __future__ import annotations

from typing import Any

import pytest
from django.core import mail

from arena.notifications.kinds import EventKind
from arena.notifications.selectors import preference_for
from tests.platform.browser import PHONE, overflows_horizontally
from tests.platform.notifications.conftest import documented_verify
from tests.platform.notifications.receiver import receiver

pytestmark = pytest.mark.slow

pytest_plugins = ("tests.platform.browser",)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "phone"])
def test_an_author_sets_up_notifications_and_sends_a_test(
    page: Any, screenshot: Any, log_in: Any, alice: Any, settings: Any, viewport: Any
) -> None:
    settings.ARENA_WEBHOOK_ALLOW_PRIVATE = True  # the receiver is on loopback
    size = "phone" if viewport else "desktop"
    log_in("alice", "correct horse battery staple")
    if viewport:
        page.goto("/notifications/")
    else:
        page.click("nav.site-nav >> text=Notifications")
    page.wait_for_url("**/notifications/")
    assert page.is_checked("input[name='email:version.preflight']")
    page.uncheck("input[name='email:version.preflight']")
    page.click("#notification-choices button[type=submit]")
    page.wait_for_selector("text=Your notification choices are saved.")
    assert not page.is_checked("input[name='email:version.preflight']")
    assert preference_for(user=alice, kind=EventKind.PREFLIGHT).email is False

    with receiver() as hook:
        page.fill("#id_url", hook.url)
        page.click("#notification-webhook button:has-text('Set webhook')")
        secret = page.inner_text("#webhook-secret code").strip()
        assert len(secret) == 64
        screenshot(f"notifications-secret-{size}")
        page.click("#notification-test button[type=submit]")
        page.wait_for_selector("text=Test sent (email, webhook)")
        assert "#webhook-secret" not in page.content()  # shown that once only
    log = page.inner_text("#delivery-log")
    assert log.count("A test notification") == 2 and log.count("Sent") == 2
    assert len(hook.received) == 1 and len(mail.outbox) == 1
    got = hook.received[0]
    assert documented_verify()(secret, got.headers, got.body)
    assert not overflows_horizontally(page)
    screenshot(f"notifications-{size}")
