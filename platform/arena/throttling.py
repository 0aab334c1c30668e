"""Limits on guessing passwords, signing up and uploading, with messages that say when to retry.

Passwords: django-axes counts failed logins by username and address on every
way in (web form, browsable API, admin, token endpoint) and locks that pair
out for ARENA_LOGIN_COOLOFF_MINUTES after ARENA_LOGIN_FAILURE_LIMIT failures;
a right password is refused too while locked. Requests: DRF's rate throttles
(Django's cache) limit token requests and sign-ups per address and uploads
per account (and per team for a team's bots, :class:`TeamUploadThrottle`), on the
API through ``throttle_scope`` and on the web pages through :func:`throttle_wait`.

Every one of them counts the address :func:`client_address` finds: the peer's,
or behind ARENA_TRUSTED_PROXIES proxies the one the outermost proxy saw. A
header a client writes itself never counts, or a fresh ``X-Forwarded-For``
per request would make each a new client.
"""

from __future__ import annotations

import ipaddress
import logging
import math
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from axes.helpers import get_cool_off
from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle, ScopedRateThrottle, SimpleRateThrottle
from rest_framework.views import APIView

log = logging.getLogger(__name__)


def login_username(request: HttpRequest | Request, credentials: Mapping[str, Any] | None) -> str:
    """The username a login attempt counts against (django-axes' lockouts): its folded
    form, as logging in finds the account, so "DORA" and "dora" share one count of
    failures rather than each getting its own."""
    if credentials and credentials.get("username") is not None:
        typed = credentials["username"]
    else:
        typed = getattr(request, "data", request.POST).get("username")
    return AbstractBaseUser.normalize_username(str(typed or "")).casefold()


def client_address(request: HttpRequest | Request) -> str:
    """The client's address, as every limit counts it (and django-axes records it).

    With ARENA_TRUSTED_PROXIES = 0, REMOTE_ADDR: ``X-Forwarded-For`` is the
    client's to write, so it is ignored. With n proxies in front, each appends
    the address it was reached from, so the n-th entry from the right is the
    one the outermost proxy saw; entries left of it are the client's own and
    never read. A chosen entry that is no IP address (a proxy set up wrong) is
    refused: REMOTE_ADDR (the proxy) counts instead, shared by all such requests.
    """
    remote = str(request.META.get("REMOTE_ADDR") or "")
    proxies: int = settings.ARENA_TRUSTED_PROXIES
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR")
    if proxies == 0 or not forwarded:
        return remote
    entries = [entry.strip() for entry in str(forwarded).split(",")]
    # Fewer entries than proxies: the request came in through the inner ones only,
    # and the leftmost entry is the address the first of them saw.
    chosen = entries[-min(proxies, len(entries))]
    try:
        return str(ipaddress.ip_address(chosen))
    except ValueError:
        log.warning(
            "X-Forwarded-For entry %r (%d from the right, ARENA_TRUSTED_PROXIES) is no IP "
            "address: counting the request by its peer %s",
            chosen[:60],
            min(proxies, len(entries)),
            remote,
        )
        return remote


def retry_message(seconds: float) -> str:
    minutes = math.ceil(seconds / 60)
    if seconds < 90:
        return f"try again in {math.ceil(seconds)} seconds"
    return f"try again in {minutes} minutes"


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None, credentials: dict[str, Any] | None
) -> HttpResponse:
    """AXES_LOCKOUT_CALLABLE: 429 saying when to retry; JSON under /api/."""
    cool_off = get_cool_off(request) or timedelta(minutes=15)
    seconds = cool_off.total_seconds()
    detail = f"Too many failed logins for this account from your address: {retry_message(seconds)}."
    response: HttpResponse
    if request.path.startswith("/api/"):
        response = JsonResponse({"code": "login_locked", "detail": detail}, status=429)
    else:
        response = render(request, "web/locked.html", {"detail": detail}, status=429)
    response["Retry-After"] = str(math.ceil(seconds))
    return response


class _FailOpen(SimpleRateThrottle):
    """A cache that cannot be reached lets requests through: uploads keep working
    while Redis restarts (the lockout of password guessing is in the database).
    Counted by :func:`client_address`."""

    def get_ident(self, request: Request) -> str:
        return client_address(request)

    def allow_request(self, request: Any, view: Any) -> bool:
        try:
            return super().allow_request(request, view)
        except Exception as error:  # the cache backend's own errors (redis, memcached, ...)
            log.warning("rate limit %s not checked, cache unavailable: %s", self.scope, error)
            return True


class LoginThrottle(_FailOpen, ScopedRateThrottle):
    """Token requests per client address (the view's ``throttle_scope``)."""


class _Throttle(_FailOpen):
    """Keyed by the account when logged in, else by the client's address."""

    def get_cache_key(self, request: Request, view: APIView | None) -> str:
        # The pages pass a plain HttpRequest (throttle_wait): it has the same user and META.
        user = getattr(request, "user", None)
        ident = user.pk if user is not None and user.is_authenticated else self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}


class SignupThrottle(_Throttle):
    scope = "signup"


class UploadThrottle(_Throttle):
    scope = "upload"


class EmailVerifyThrottle(_Throttle):
    """Verification e-mails asked for (ARENA_RATE_EMAIL_VERIFY): an account cannot make
    the platform mail an address over and over."""

    scope = "email_verify"


class TeamUploadThrottle(_FailOpen):
    """Uploads to a team's bots, per team (ARENA_RATE_TEAM_UPLOAD): its members share it,
    on top of each one's own limit."""

    scope = "upload_team"

    def __init__(self, team_id: int) -> None:
        super().__init__()
        self.team_id = team_id

    def get_cache_key(self, request: Request, view: APIView | None) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.team_id}


class UploadsThrottled(APIView):
    """An API view whose POST is an upload: limited per account (ARENA_RATE_UPLOAD)."""

    def get_throttles(self) -> list[BaseThrottle]:
        if self.request.method == "POST":
            return [UploadThrottle()]
        return super().get_throttles()


def throttle_wait(throttle: SimpleRateThrottle, request: HttpRequest) -> float | None:
    """For a Django view: None if ``request`` may go on, else the seconds to wait."""
    if throttle.allow_request(request, None):  # type: ignore[arg-type]
        return None
    return throttle.wait() or 1.0
