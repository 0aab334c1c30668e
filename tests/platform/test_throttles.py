"""Rate limits: password guessing locked out on every way in, sign-ups and uploads limited.

Each refusal is a 429 that says when to try again (and a Retry-After header).
The cache the limits count in is cleared before each test (conftest). Each
counts the client's address: ``X-Forwarded-For`` only as written by the
trusted proxies (ARENA_TRUSTED_PROXIES), never a client's own entries.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, RequestFactory
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from arena.throttling import client_address

from .api_support import client_for

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"  # the factories' password


@pytest.fixture
def rates(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Set a rate: DRF's throttles read the dict bound when they were imported."""

    def set_rate(scope: str, rate: str) -> None:
        monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, scope, rate)

    return set_rate


def token(password: str, address: str = "203.0.113.7") -> Any:
    return APIClient(REMOTE_ADDR=address).post(
        "/api/auth/token/", {"username": "alice", "password": password}, format="json"
    )


def test_30_wrong_passwords_lock_the_token_endpoint_even_for_the_right_one(
    alice: Any, rates: Any
) -> None:
    rates("login", "1000/min")  # the lockout alone
    answers = [token(f"guess {n}").status_code for n in range(30)]

    # The 5th failure (ARENA_LOGIN_FAILURE_LIMIT) locks the username from this address.
    assert answers[:4] == [400] * 4
    assert set(answers[4:]) == {429}
    right = token(PASSWORD)
    assert right.status_code == 429
    assert right.json()["code"] == "login_locked"
    assert "try again in 15 minutes" in right.json()["detail"]
    assert right["Retry-After"] == "900"
    # Another address is not locked out of alice's account.
    assert token(PASSWORD, address="198.51.100.9").status_code == 200


def test_30_wrong_passwords_lock_the_login_form(alice: Any) -> None:
    browser = Client(REMOTE_ADDR="203.0.113.7")
    for n in range(30):
        browser.post("/login/", {"username": "alice", "password": f"guess {n}"})

    right = browser.post("/login/", {"username": "alice", "password": PASSWORD})

    assert right.status_code == 429
    assert b"try again in 15 minutes" in right.content
    assert right["Retry-After"] == "900"
    assert "_auth_user_id" not in browser.session
    # The browsable API's login form counts against the same lockout.
    api_login = browser.post("/api/auth/login/", {"username": "alice", "password": PASSWORD})
    assert api_login.status_code == 429


def test_every_spelling_of_a_username_shares_one_count_of_failures(alice: Any) -> None:
    """A login finds the account in any case, so the lockout counts its failures
    together: guessing as "ALICE", "Alice", "alicE"... earns no fresh tries."""
    browser = Client(REMOTE_ADDR="203.0.113.7")
    for n, spelling in enumerate(["alice", "ALICE", "Alice", "aLice", "alicE"]):
        browser.post("/login/", {"username": spelling, "password": f"guess {n}"})

    right = browser.post("/login/", {"username": "ALiCE", "password": PASSWORD})

    assert right.status_code == 429
    assert "_auth_user_id" not in browser.session


def test_a_few_typos_then_the_right_password_log_in(alice: Any) -> None:
    browser = Client(REMOTE_ADDR="203.0.113.7")
    for n in range(4):
        assert (
            browser.post("/login/", {"username": "alice", "password": f"typo {n}"}).status_code
            == 200
        )
    assert browser.post("/login/", {"username": "alice", "password": PASSWORD}).status_code == 302


def test_token_requests_are_rate_limited_per_address(alice: Any, rates: Any) -> None:
    rates("login", "3/min")
    assert [token(PASSWORD).status_code for _ in range(3)] == [200] * 3

    refused = token(PASSWORD)

    assert refused.status_code == 429
    assert refused.json()["code"] == "throttled"
    assert "Expected available in" in refused.json()["detail"]
    assert int(refused["Retry-After"]) > 0
    assert token(PASSWORD, address="198.51.100.9").status_code == 200


def test_uploads_are_rate_limited_per_account(alice: Any, bob: Any, rates: Any) -> None:
    rates("upload", "2/hour")

    def upload(user: Any) -> Any:
        file = SimpleUploadedFile("shark.txt", b"not a bot")  # refused: still an upload
        return client_for(user).post(
            "/api/bots/", {"name": "shark", "file": file}, format="multipart"
        )

    assert [upload(alice).status_code for _ in range(2)] == [400, 400]
    refused = upload(alice)
    assert refused.status_code == 429 and refused.json()["code"] == "throttled"
    assert int(refused["Retry-After"]) > 0
    assert upload(bob).status_code == 400  # bob's own count
    # Reading is not uploading.
    assert client_for(alice).get("/api/bots/").status_code == 200


def test_the_upload_page_is_rate_limited_too(alice: Any, rates: Any) -> None:
    rates("upload", "1/hour")
    browser = Client()
    browser.force_login(alice)

    def upload() -> Any:
        file = SimpleUploadedFile("shark.txt", b"not a bot")
        return browser.post("/upload/", {"name": "shark", "file": file, "visibility": "public"})

    assert upload().status_code == 200  # the form with the file's error
    refused = upload()
    assert refused.status_code == 429
    assert b"Too many uploads from you: try again in" in refused.content


def test_sign_ups_are_rate_limited_per_address(rates: Any) -> None:
    rates("signup", "2/hour")
    browser = Client(REMOTE_ADDR="203.0.113.7")

    def signup(name: str) -> Any:
        passphrase = "a long passphrase 42"
        form = {"username": name, "password1": passphrase, "password2": passphrase}
        return Client(REMOTE_ADDR="203.0.113.7").post("/signup/", form)

    assert [signup(name).status_code for name in ("dora", "eve")] == [302, 302]
    refused = signup("mallory")
    assert refused.status_code == 429
    assert b"Too many sign-ups from you: try again in" in refused.content
    assert browser.get("/signup/").status_code == 200


def test_limits_let_requests_through_while_the_cache_is_down(
    alice: Any, rates: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Uploads and tokens keep working while Redis (the cache) restarts."""

    class DownCache:
        def get(self, *args: Any, **kwargs: Any) -> Any:
            raise ConnectionError("Error 111 connecting to redis:6379. Connection refused.")

        set = get

    rates("upload", "1/hour")
    rates("login", "1/min")
    monkeypatch.setattr(SimpleRateThrottle, "cache", DownCache())

    assert [token(PASSWORD).status_code for _ in range(3)] == [200] * 3
    for _ in range(3):
        file = SimpleUploadedFile("shark.txt", b"not a bot")
        response = client_for(alice).post(
            "/api/bots/", {"name": "shark", "file": file}, format="multipart"
        )
        assert response.status_code == 400  # checked, not throttled


# --------------------------------------------------------------------------- behind proxies

PROXY = "10.0.0.2"


def sign_up(name: str, *, peer: str = "203.0.113.7", forwarded: str | None = None) -> Any:
    """A sign-up from ``peer`` (the connection's address), with ``X-Forwarded-For`` if given."""
    passphrase = "a long passphrase 42"
    form = {"username": name, "password1": passphrase, "password2": passphrase}
    headers: dict[str, Any] = {} if forwarded is None else {"HTTP_X_FORWARDED_FOR": forwarded}
    return Client(REMOTE_ADDR=peer, **headers).post("/signup/", form)


def test_a_fresh_x_forwarded_for_per_sign_up_is_still_one_client(rates: Any) -> None:
    rates("signup", "7/hour")

    answers = [sign_up(f"user{n}", forwarded=f"192.0.2.{n}").status_code for n in range(12)]

    # No proxy is trusted by default: the header is the client's own, and ignored.
    assert answers == [302] * 7 + [429] * 5


def test_a_fresh_x_forwarded_for_gets_no_fresh_token_or_password_guesses(
    alice: Any, rates: Any
) -> None:
    def token_from(forwarded: str, password: str) -> Any:
        return APIClient(REMOTE_ADDR="203.0.113.7", HTTP_X_FORWARDED_FOR=forwarded).post(
            "/api/auth/token/", {"username": "alice", "password": password}, format="json"
        )

    rates("login", "3/min")
    assert [token_from(f"192.0.2.{n}", PASSWORD).status_code for n in range(4)] == [200] * 3 + [429]
    rates("login", "1000/min")  # the lockout alone
    guesses = [token_from(f"198.51.100.{n}", f"guess {n}").status_code for n in range(8)]
    assert guesses[:4] == [400] * 4 and set(guesses[4:]) == {429}


def test_behind_one_proxy_each_client_counts_on_its_own_and_spoofing_does_not_help(
    rates: Any, settings: Any
) -> None:
    settings.ARENA_TRUSTED_PROXIES = 1
    rates("signup", "2/hour")

    # Every request comes from the proxy, which appends the address it was reached from.
    assert sign_up("dora", peer=PROXY, forwarded="203.0.113.7").status_code == 302
    assert sign_up("eve", peer=PROXY, forwarded="203.0.113.7").status_code == 302
    # The same client writing entries of its own: the proxy's is still the last one.
    spoofed = [
        sign_up(f"mallory{n}", peer=PROXY, forwarded=f"192.0.2.{n}, 203.0.113.7").status_code
        for n in range(5)
    ]
    assert spoofed == [429] * 5
    # Another client behind the same proxy has a count of its own.
    assert sign_up("frank", peer=PROXY, forwarded="198.51.100.9").status_code == 302


def test_behind_one_proxy_the_lockout_follows_the_client(alice: Any, settings: Any) -> None:
    settings.ARENA_TRUSTED_PROXIES = 1

    def token_via_proxy(forwarded: str, password: str) -> Any:
        return APIClient(REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR=forwarded).post(
            "/api/auth/token/", {"username": "alice", "password": password}, format="json"
        )

    for n in range(5):
        token_via_proxy(f"192.0.2.{n}, 203.0.113.7", f"guess {n}")

    assert token_via_proxy("203.0.113.7", PASSWORD).status_code == 429
    # alice herself, behind the same proxy, is not locked out by the guesser.
    assert token_via_proxy("198.51.100.9", PASSWORD).status_code == 200


@pytest.mark.parametrize(
    ("proxies", "forwarded", "address"),
    [
        (0, None, "10.0.0.2"),
        (0, "192.0.2.1", "10.0.0.2"),  # no proxy trusted: the header is ignored
        (1, None, "10.0.0.2"),  # no header: the connection's address
        (1, "192.0.2.1", "192.0.2.1"),
        (1, "198.51.100.1, 192.0.2.1", "192.0.2.1"),  # the client's own entry is never read
        (2, "198.51.100.1, 192.0.2.1, 10.0.0.1", "192.0.2.1"),
        (2, "192.0.2.1", "192.0.2.1"),  # in through the inner proxy only: what it saw
        (1, " 2001:DB8::1 ", "2001:db8::1"),
        # No IP address where the proxy writes one: refused, the proxy's address counts.
        (1, "192.0.2.1, not-an-address", "10.0.0.2"),
        (1, "192.0.2.1,", "10.0.0.2"),
        (1, "192.0.2.1:4711", "10.0.0.2"),
    ],
)
def test_the_client_address_is_taken_from_the_trusted_proxies_only(
    settings: Any, proxies: int, forwarded: str | None, address: str
) -> None:
    settings.ARENA_TRUSTED_PROXIES = proxies
    headers: dict[str, Any] = {} if forwarded is None else {"HTTP_X_FORWARDED_FOR": forwarded}
    request = RequestFactory(REMOTE_ADDR="10.0.0.2", **headers).get("/")

    assert client_address(request) == address
