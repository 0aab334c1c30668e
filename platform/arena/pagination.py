"""Pagination helpers for the function-light, APIView-based APIs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet
from rest_framework.exceptions import NotFound
from rest_framework.pagination import BasePagination, CursorPagination, LimitOffsetPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import Serializer
from rest_framework.views import APIView


class LimitOffset(LimitOffsetPagination):
    default_limit = 50
    max_limit = 200


class LatestFirstCursor(CursorPagination):
    """Keyset pages for large tables (matches): no COUNT(*), no deep OFFSET."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200
    ordering = ("-finished_at", "-id")


class NewestFirstCursor(CursorPagination):
    """Keyset pages by id, newest first (ids grow with creation time)."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200
    ordering = ("-id",)


@dataclass(frozen=True)
class IdWindow:
    """The ids a :class:`NewestFirstCursor` page can hold: below ``position`` (above it for
    a reversed cursor, the previous page), the first ``limit`` of them in that direction.

    For a selector that must bound an inner query itself: the page's rows are a
    range of an index the cursor's filter on the outer query cannot reach.
    """

    position: int | None
    reverse: bool
    limit: int


def id_window(request: Request) -> IdWindow:
    """The :class:`IdWindow` of the :class:`NewestFirstCursor` page ``request`` asks for."""
    paginator = NewestFirstCursor()
    cursor = paginator.decode_cursor(request)
    size = paginator.get_page_size(request) or NewestFirstCursor.page_size
    if cursor is None:
        return IdWindow(position=None, reverse=False, limit=size + 1)
    try:
        position = None if cursor.position is None else int(cursor.position)
    except ValueError:
        raise NotFound(paginator.invalid_cursor_message) from None
    # The page skips ``offset`` rows at its position and reads one more to know if another
    # page follows.
    return IdWindow(position=position, reverse=cursor.reverse, limit=cursor.offset + size + 1)


def paginated_response(
    *,
    pagination_class: type[BasePagination],
    serializer_class: type[Serializer[Any]],
    queryset: QuerySet[Any],
    request: Request,
    view: APIView,
) -> Response:
    paginator = pagination_class()
    page = paginator.paginate_queryset(queryset, request, view=view)
    data = serializer_class(page, many=True).data
    return paginator.get_paginated_response(data)
