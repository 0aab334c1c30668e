"""In Chromium: an author with an unverified address is told nothing is e-mailed, asks
for a link on the notification settings and follows it; the page then says verified."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core import mail

from arena.players.selectors import email_verified
from tests.platform.browser import PHONE, overflows_horizontally
from tests.platform.factories import UserFactory

pytestmark = pytest.mark.slow

pytest_plugins = ("tests.platform.browser",)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "phone"])
def test_an_author_verifies_their_address(
    page: Any, screenshot: Any, log_in: Any, live_server: Any, settings: Any, viewport: Any
) -> None:
    settings.ARENA_SITE_URL = live_server.url
    size = "phone" if viewport else "desktop"
    dora = UserFactory(username="dora", verified_email="", email_verified_at=None)
    log_in("dora", "correct horse battery staple")
    page.goto("/notifications/")
    assert "dora@example.org is not verified: nothing is e-mailed to it" in page.inner_text(
        "#email-verification"
    )
    screenshot(f"email-unverified-{size}")
    page.click("#email-verification button:has-text('Verify this address')")
    page.wait_for_selector("text=A verification link is on its way to dora@example.org")
    (message,) = mail.outbox
    link = re.search(r"http://\S+/account/verify-email/[^/\s]+/", message.body)
    assert link is not None, message.body

    page.goto(link.group(0))
    page.wait_for_selector("#verify-form")
    dora.refresh_from_db()
    assert not email_verified(dora)  # opening the link is not enough
    page.click("#verify-form button")
    page.wait_for_selector("#verified")
    screenshot(f"email-verified-{size}")
    dora.refresh_from_db()
    assert email_verified(dora)
    page.goto("/notifications/")
    assert "dora@example.org is verified" in page.inner_text("#email-verification")
    assert not overflows_horizontally(page)
