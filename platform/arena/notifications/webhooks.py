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
import http.client
import ipaddress
import socket
import ssl
from dataclasses import dataclass
from typing import Any
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
    """``url`` if a webhook may be sent there, else WebhookUrlError saying why
    (:func:`url_address`)."""
    url_address(url)
    return url


def url_address(url: str) -> str | None:
    """The address a webhook to ``url`` connects to, or WebhookUrlError saying why none may.

    Only http(s); and, unless ``ARENA_WEBHOOK_ALLOW_PRIVATE`` (DEBUG, tests), only a host
    whose every address is a public one: a webhook must not let an author make the
    platform's workers reach its own network (loopback, private ranges, link-local
    metadata services). Checked when the URL is set and again before each attempt
    (an address may change); the attempt then connects to the address checked, not
    to a second lookup that a rebinding name server could answer differently. None
    where private addresses are allowed: the connection resolves the name itself.
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
    try:
        port = parts.port or _default_port(parts.scheme)
    except ValueError as error:
        raise WebhookUrlError(f"The webhook URL {url!r} has a bad port ({error}).") from error
    if settings.ARENA_WEBHOOK_ALLOW_PRIVATE:
        return None
    try:
        infos = socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)
    except (OSError, ValueError) as error:
        raise WebhookUrlError(
            f"The webhook host {host!r} could not be resolved ({error}); check its name."
        ) from error
    addresses = [str(info[4][0]).split("%")[0] for info in infos]
    for address in addresses:
        if not ipaddress.ip_address(address).is_global:
            raise WebhookUrlError(
                f"The webhook host {host!r} resolves to {address}, a private or local "
                "address; give a URL on the public internet."
            )
    if not addresses:
        raise WebhookUrlError(f"The webhook host {host!r} has no address; check its name.")
    return addresses[0]


def _default_port(scheme: str) -> int:
    return 443 if scheme == "https" else 80


def _connection(url: str, address: str | None, timeout: float) -> http.client.HTTPConnection:
    """A connection to ``url``'s host, made to ``address`` when one was checked; HTTPS
    still verifies the certificate of the host named in the URL (SNI and hostname)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or _default_port(parts.scheme)
    connection: http.client.HTTPConnection
    if parts.scheme == "https":
        connection = http.client.HTTPSConnection(
            host, port, timeout=timeout, context=ssl.create_default_context()
        )
    else:
        connection = http.client.HTTPConnection(host, port, timeout=timeout)
    if address is not None:

        def connect_to_checked(
            target: tuple[str, int], timeout: float | None = None, source: Any = None
        ) -> socket.socket:
            return socket.create_connection((address, target[1]), timeout, source)

        # http.client opens its socket through this attribute, for plain and TLS alike.
        connection._create_connection = connect_to_checked  # type: ignore[attr-defined]
    return connection


@dataclass(frozen=True)
class Answer:
    ok: bool
    status: int | None
    error: str


def post(*, url: str, body: bytes, headers: dict[str, str]) -> Answer:
    """POST ``body`` to ``url`` within ``ARENA_WEBHOOK_TIMEOUT_SECONDS``; any 2xx is a success.

    A redirect is an answer, not a place to follow (it could point inside): http.client
    follows none, so a 3xx is a failed attempt like any other status.
    """
    try:
        address = url_address(url)
    except WebhookUrlError as error:
        return Answer(ok=False, status=None, error=str(error))
    parts = urlsplit(url)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    connection = _connection(url, address, settings.ARENA_WEBHOOK_TIMEOUT_SECONDS)
    try:
        connection.request(
            "POST",
            target,
            body=body,
            headers={
                "Content-Type": "application/json",
                "User-Agent": "LasVegasArena",
                **headers,
            },
        )
        response = connection.getresponse()
        status, reason = int(response.status), str(response.reason)
    except (OSError, ValueError, http.client.HTTPException) as error:
        # refused, timed out, TLS, a malformed answer
        return Answer(ok=False, status=None, error=f"{type(error).__name__}: {error}"[:500])
    finally:
        connection.close()
    if 200 <= status < 300:
        return Answer(ok=True, status=status, error="")
    if 300 <= status < 400:
        return Answer(ok=False, status=status, error=f"HTTP {status} redirect not followed")
    return Answer(ok=False, status=status, error=f"HTTP {status} {reason}")
