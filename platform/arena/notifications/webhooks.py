"""Webhooks: the signature of a payload, the check of a URL, and one POST.

A webhook is a POST of JSON with these headers:

- ``X-Arena-Event``: the kind (``arena.notifications.kinds.EventKind``);
- ``X-Arena-Delivery``: the delivery's id (the same on every retry: deduplicate by it);
- ``X-Arena-Timestamp``: Unix seconds when this attempt was signed;
- ``X-Arena-Signature``: ``sha256=`` and the hex HMAC-SHA256, keyed with the
  endpoint's secret, of ``<timestamp>.<body>`` (docs/notifications.md shows the check).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import socket
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any, NoReturn
from urllib.parse import urlsplit

from django.conf import settings

from arena.errors import ArenaError

SIGNATURE_HEADER = "X-Arena-Signature"
TIMESTAMP_HEADER = "X-Arena-Timestamp"


class WebhookUrlError(ArenaError):
    code = "webhook_url"


def signature(*, secret: str, timestamp: int, body: bytes) -> str:
    """The ``X-Arena-Signature`` value of ``body`` signed at ``timestamp``."""
    signed = str(timestamp).encode() + b"." + body
    return "sha256=" + hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()


def signature_valid(*, secret: str, timestamp: int, body: bytes, header: str) -> bool:
    return hmac.compare_digest(signature(secret=secret, timestamp=timestamp, body=body), header)


def url_check(url: str) -> str:
    """``url`` if a webhook may be sent there, else WebhookUrlError saying why.

    Only http(s); and, unless ``ARENA_WEBHOOK_ALLOW_PRIVATE`` (DEBUG, tests), only a host
    whose every address is a public one: a webhook must not let an author make the
    platform's workers reach its own network (loopback, private ranges, link-local
    metadata services). Checked when the URL is set and again before each attempt
    (an address may change).
    """
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise WebhookUrlError(
            f"The webhook URL {url!r} is not an http:// or https:// URL; give one that is."
        )
    host = parts.hostname
    if not host:
        raise WebhookUrlError(
            f"The webhook URL {url!r} names no host; give e.g. https://host/path."
        )
    if settings.ARENA_WEBHOOK_ALLOW_PRIVATE:
        return url
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        infos = socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)
    except (OSError, ValueError) as error:
        raise WebhookUrlError(
            f"The webhook host {host!r} could not be resolved ({error}); check its name."
        ) from error
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]).split("%")[0])
        if not address.is_global:
            raise WebhookUrlError(
                f"The webhook host {host!r} resolves to {address}, a private or local "
                "address; give a URL on the public internet."
            )
    return url


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect is an answer, not a place to follow: it could point anywhere (inside)."""

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: Any,
        code: int,
        msg: str,
        headers: Any,
        newurl: str,
    ) -> NoReturn:
        raise urllib.error.HTTPError(req.full_url, code, "redirect not followed", headers, fp)


_opener = urllib.request.build_opener(_NoRedirects)


@dataclass(frozen=True)
class Answer:
    ok: bool
    status: int | None
    error: str


def post(*, url: str, body: bytes, headers: dict[str, str]) -> Answer:
    """POST ``body`` to ``url`` within ``ARENA_WEBHOOK_TIMEOUT_SECONDS``; any 2xx is a success."""
    try:
        url_check(url)
    except WebhookUrlError as error:
        return Answer(ok=False, status=None, error=str(error))
    request = urllib.request.Request(
        url,
        data=body,
        method="POST",
        headers={"Content-Type": "application/json", "User-Agent": "LasVegasArena", **headers},
    )
    try:
        with _opener.open(request, timeout=settings.ARENA_WEBHOOK_TIMEOUT_SECONDS) as response:
            status = int(response.status)
    except urllib.error.HTTPError as error:
        return Answer(ok=False, status=error.code, error=f"HTTP {error.code} {error.reason}")
    except (OSError, ValueError) as error:  # refused, timed out, TLS, a malformed answer
        return Answer(ok=False, status=None, error=f"{type(error).__name__}: {error}"[:500])
    if 200 <= status < 300:
        return Answer(ok=True, status=status, error="")
    return Answer(ok=False, status=status, error=f"HTTP {status}")
