"""API plumbing shared by the apps: domain errors become HTTP 400."""

from __future__ import annotations

from typing import Any

from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from .errors import ArenaError


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, ArenaError):
        return Response(
            {"code": exc.code, "detail": exc.message}, status=status.HTTP_400_BAD_REQUEST
        )
    return drf_exception_handler(exc, context)
