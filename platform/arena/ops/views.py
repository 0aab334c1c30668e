"""GET /metrics (Prometheus) and GET /readyz (readiness) for operators and compose.

GET /healthz (arena.urls) stays the liveness check: the process answers and
reaches its database. /readyz adds the broker and the storage: a web process
missing either cannot take an upload or queue a match.
"""

from __future__ import annotations

import hmac
import ipaddress

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from arena.throttling import client_address

from .checks import check_broker, check_database, check_storage
from .metrics import registry


def _metrics_refusal(request: HttpRequest) -> str | None:
    """Why ``request`` may not read the metrics, or None when it may."""
    token: str = settings.ARENA_METRICS_TOKEN
    allowed: list[str] = settings.ARENA_METRICS_ALLOWED_IPS
    if not token and not allowed:
        return (
            "metrics are off: set ARENA_METRICS_TOKEN (then send 'Authorization: Bearer "
            "<token>') or ARENA_METRICS_ALLOWED_IPS (docs/deploy.md, Monitoring)"
        )
    if token:
        scheme, _, sent = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() == "bearer" and hmac.compare_digest(sent.strip(), token):
            return None
    if allowed:
        try:
            address = ipaddress.ip_address(client_address(request))
        except ValueError:
            address = None
        if address is not None and any(
            address in ipaddress.ip_network(network, strict=False) for network in allowed
        ):
            return None
    if token:
        return "send 'Authorization: Bearer <ARENA_METRICS_TOKEN>' to read the metrics"
    return "this address is not in ARENA_METRICS_ALLOWED_IPS"


@never_cache
@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    refusal = _metrics_refusal(request)
    if refusal is not None:
        return HttpResponse(f"403 Forbidden: {refusal}\n", status=403, content_type="text/plain")
    return HttpResponse(generate_latest(registry()), content_type=CONTENT_TYPE_LATEST)


@never_cache
@require_GET
def readyz(request: HttpRequest) -> JsonResponse:
    """200 when the database, the broker and the storage answer; else 503 naming each
    that failed and why (no secret: no URL, no password)."""
    checks = [check_database(), check_broker(), check_storage()]
    failed = [check.name for check in checks if not check.ok]
    body = {
        "status": "ok" if not failed else "unavailable",
        "failed": failed,
        "checks": {check.name: {"ok": check.ok, "detail": check.detail} for check in checks},
    }
    return JsonResponse(body, status=503 if failed else 200)
