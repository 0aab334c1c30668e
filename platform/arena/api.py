"""API plumbing shared by the apps: domain errors become HTTP 400 (or their own status),
outages JSON 503.

Clients of /api/ always get JSON: a database or broker that cannot be reached
answers 503 ``{"code": "unavailable", ...}`` with Retry-After, from DRF's
views (``exception_handler``) and from anything else under /api/ that would
otherwise be Django's HTML error page (``server_error``, the handler500).
"""

from __future__ import annotations

import logging
import sys
from typing import Any

from django.db import InterfaceError as DatabaseInterfaceError
from django.db import OperationalError as DatabaseOperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template import loader
from django.views import defaults
from kombu.exceptions import OperationalError as BrokerOperationalError
from rest_framework import status
from rest_framework.exceptions import Throttled
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from .errors import ArenaError

log = logging.getLogger(__name__)

#: Errors that mean a service we depend on is unreachable, not that the request is wrong.
OUTAGES = (DatabaseOperationalError, DatabaseInterfaceError, BrokerOperationalError)
#: Seconds a client should wait before trying again during an outage.
RETRY_AFTER_SECONDS = 30
UNAVAILABLE = {
    "code": "unavailable",
    "detail": "The service is briefly unavailable (its database or task queue cannot be "
    f"reached). Nothing was changed unless you were told so; try again in "
    f"{RETRY_AFTER_SECONDS} seconds.",
}
SERVER_ERROR = {"code": "server_error", "detail": "An unexpected error occurred on our side."}


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, ArenaError):
        return Response({"code": exc.code, "detail": exc.message}, status=exc.http_status)
    if isinstance(exc, OUTAGES):
        log.error("API request failed on an outage: %s: %s", type(exc).__name__, exc)
        return Response(
            UNAVAILABLE,
            status=status.HTTP_503_SERVICE_UNAVAILABLE,
            headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
        )
    response = drf_exception_handler(exc, context)
    if isinstance(exc, Throttled) and response is not None:
        # DRF's detail already says when: "Expected available in 52 seconds."
        response.data = {"code": "throttled", "detail": f"Too many requests. {exc.detail}"}
    return response


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/") or request.path == "/healthz"


NOT_FOUND = {"code": "not_found", "detail": "No such resource: /api/ lists the API's parts."}


def page_not_found(
    request: HttpRequest, exception: Exception, template_name: str = "404.html"
) -> HttpResponse:
    """handler404: JSON under /api/, the site's own page elsewhere."""
    if _is_api(request):
        return JsonResponse(NOT_FOUND, status=404)
    return defaults.page_not_found(request, exception, template_name)


def server_error(request: HttpRequest, template_name: str = "500.html") -> HttpResponse:
    """handler500: JSON under /api/ (503 for an outage), the site's own page elsewhere.

    Django calls it while handling the exception, so ``sys.exc_info`` names it.
    """
    error = sys.exc_info()[1]
    if isinstance(error, OUTAGES):
        if _is_api(request):
            response: HttpResponse = JsonResponse(UNAVAILABLE, status=503)
        else:
            # No context processors (no database): the page needs nothing but the template.
            response = HttpResponse(loader.render_to_string("503.html"), status=503)
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response
    if _is_api(request):
        return JsonResponse(SERVER_ERROR, status=500)
    return defaults.server_error(request, template_name)
