"""E-mail verification: a signed, expiring link sent on sign-up and on request; following
it (a button, not the GET) verifies the address; a changed address is unverified."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone

from arena.players.models import User
from arena.players.selectors import email_verified
from arena.players.services import (
    EmailVerificationError,
    email_set,
    email_verification_url,
    email_verify,
)

pytestmark = pytest.mark.django_db

LINK = re.compile(r"http://testserver(/account/verify-email/[^/\s]+/)")


@pytest.fixture(autouse=True)
def _site(settings: Any) -> None:
    settings.ARENA_SITE_URL = "http://testserver"


def link_in(message: Any) -> str:
    found = LINK.search(message.body)
    assert found is not None, message.body
    return found.group(1)


def test_sign_up_sends_a_link_whose_button_verifies_the_address(
    django_capture_on_commit_callbacks: Any,
) -> None:
    client = Client()
    with django_capture_on_commit_callbacks(execute=True):
        made = client.post(
            "/signup/",
            {
                "username": "dora",
                "email": "dora@example.org",
                "password1": "a long enough passphrase",
                "password2": "a long enough passphrase",
            },
        )
    assert made.status_code == 302
    dora = User.objects.get(username="dora")
    assert not email_verified(dora)
    assert client.get("/api/auth/me/").json()["email_verified"] is False
    (message,) = mail.outbox
    assert message.to == ["dora@example.org"]
    assert message.subject == "[Las Vegas Arena] Verify your e-mail address"
    link = link_in(message)

    anonymous = Client(enforce_csrf_checks=True)
    # Opening the link (a person, a mail scanner) verifies nothing: it shows a button.
    page = anonymous.get(link)
    assert page.status_code == 200 and b'id="verify-form"' in page.content
    dora.refresh_from_db()
    assert not email_verified(dora)
    # The button's POST carries the page's CSRF token; no login needed.
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page.content)
    assert token is not None
    done = anonymous.post(link, {"csrfmiddlewaretoken": token.group(1).decode()})
    assert done.status_code == 200 and b'id="verified"' in done.content
    dora.refresh_from_db()
    assert email_verified(dora) and dora.verified_email == "dora@example.org"
    me = client.get("/api/auth/me/").json()
    assert me["email"] == "dora@example.org" and me["email_verified"] is True
    assert me["email_verified_at"] is not None


def test_a_sign_up_without_an_address_sends_nothing(
    django_capture_on_commit_callbacks: Any,
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        Client().post(
            "/signup/",
            {"username": "eve", "password1": "a long passphrase", "password2": "a long passphrase"},
        )
    assert User.objects.filter(username="eve").exists() and mail.outbox == []


def test_an_expired_or_altered_link_is_refused_saying_why(alice: Any, settings: Any) -> None:
    email_set(user=alice, email="alice@elsewhere.example")
    settings.ARENA_EMAIL_VERIFY_HOURS = 48
    made = timezone.now()
    token = email_verification_url(user=alice, now=made).rstrip("/").rsplit("/", 1)[1]
    with pytest.raises(EmailVerificationError, match=r"expired \(links work for 48 hours\)"):
        email_verify(token=token, now=made + timedelta(hours=48, seconds=1))
    altered = token[:-2] + ("A" if token[-2] != "A" else "B") + token[-1]
    with pytest.raises(EmailVerificationError, match=r"not valid \(altered or cut short\)"):
        email_verify(token=altered, now=made)
    alice.refresh_from_db()
    assert not email_verified(alice)
    # Within its lifetime it works.
    assert email_verified(email_verify(token=token, now=made + timedelta(hours=47)))

    # The page says so too, with a 400.
    page = Client().post(f"/account/verify-email/{altered}/")
    assert page.status_code == 400 and b'id="verify-refused"' in page.content
    assert b"altered or cut short" in page.content and b"ask for a new link" in page.content


def test_changing_the_address_unverifies_it_and_old_links_stop_working(alice: Any) -> None:
    assert email_verified(alice)  # the personas are verified
    old = email_verification_url(user=alice).rstrip("/").rsplit("/", 1)[1]
    email_set(user=alice, email="alice@example.org")  # the same address: stays verified
    assert email_verified(alice)
    email_set(user=alice, email="alice@new.example")
    alice.refresh_from_db()
    assert not email_verified(alice) and alice.email_verified_at is None
    with pytest.raises(EmailVerificationError, match="which your account no longer uses"):
        email_verify(token=old)
    # Even a field changed behind the services' back (the admin) unverifies.
    bob = User.objects.create(username="bob2", email="b@example.org", verified_email="b@x.org")
    bob.email_verified_at = timezone.now()
    assert not email_verified(bob)


def test_the_settings_page_offers_verification_throttled(
    alice: Any, django_capture_on_commit_callbacks: Any
) -> None:
    client = Client()
    client.force_login(alice)
    assert b"is verified" in client.get("/notifications/").content
    with django_capture_on_commit_callbacks(execute=True):
        saved = client.post(
            "/notifications/", {"action": "email", "email": "alice@new.example"}, follow=True
        )
    page = saved.content.decode()
    assert "alice@new.example is not verified: nothing is e-mailed to it" in page
    assert "Verify this address" in page and "A verification link is on its way" in page
    assert [m.to for m in mail.outbox] == [["alice@new.example"]]
    for _ in range(4):  # ARENA_RATE_EMAIL_VERIFY: 5 an hour, the change's own included
        with django_capture_on_commit_callbacks(execute=True):
            client.post("/notifications/", {"action": "verify-email"})
    assert len(mail.outbox) == 5
    with django_capture_on_commit_callbacks(execute=True):
        refused = client.post("/notifications/", {"action": "verify-email"}, follow=True)
    assert "Too many verification e-mails asked for: try again in" in refused.content.decode()
    assert len(mail.outbox) == 5

    # The newest link verifies; the page then says so.
    done = Client().post(link_in(mail.outbox[-1]))
    assert done.status_code == 200
    assert b"alice@new.example is verified" in client.get("/notifications/").content


def test_the_api_asks_for_a_link(bob: Any, django_capture_on_commit_callbacks: Any) -> None:
    client = Client()
    client.force_login(bob)
    refused = client.post("/api/auth/email/verification/")
    assert refused.status_code == 400
    assert "bob@example.org is verified already" in refused.json()["detail"]
    email_set(user=bob, email="bob@new.example")
    with django_capture_on_commit_callbacks(execute=True):
        asked = client.post("/api/auth/email/verification/")
    assert asked.status_code == 202, asked.content
    assert asked.json()["email_verified"] is False
    (message,) = mail.outbox
    assert message.to == ["bob@new.example"]
    email_set(user=bob, email="")
    none = client.post("/api/auth/email/verification/")
    assert none.status_code == 400 and "has no e-mail address" in none.json()["detail"]
