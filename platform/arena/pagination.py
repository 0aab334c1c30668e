"""Pagination helpers for the function-light, APIView-based APIs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, cast

from django.core.paginator import Page, Paginator
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


class ChallengePages(LimitOffset):
    """Pages of challenges sized by their matches: each carries up to
    ARENA_CHALLENGE_MAX_GAMES (10) with their seats, so 10 challenges hold up to 100
    matches and 20 up to 200, what a page of matches holds at most."""

    default_limit = 10
    max_limit = 20


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


class EndNearPaginator(Paginator):  # type: ignore[type-arg]
    """Numbered pages of an ordered queryset; a page nearer the end than the start is read
    from the end (the order reversed, a short OFFSET, the rows turned back), so the last
    page costs what the first does: a deep OFFSET sorted and skipped every row before it
    (the last page of a 10,000-bot ladder). ``count``: the rows' number when it is known
    (the count query reads all of them too)."""

    def __init__(self, object_list: QuerySet[Any], per_page: int, *, count: int | None = None):
        super().__init__(object_list, per_page)
        self.rows = object_list
        self._known_count = count

    @cached_property
    def count(self) -> int:
        return self.rows.count() if self._known_count is None else self._known_count

    def page(self, number: Any) -> Page:  # type: ignore[type-arg]
        number = self.validate_number(number)
        bottom = (number - 1) * self.per_page
        top = bottom + self.per_page
        if top + self.orphans >= self.count:
            top = self.count
        return Page(rows_between(self.rows, bottom, top, self.count), number, self)


def rows_between(rows: QuerySet[Any], bottom: int, top: int, count: int) -> list[Any]:
    """``rows[bottom:top]`` of ``count`` ordered rows; nearer the end than the start, read
    from the end (the order reversed, a short OFFSET, the rows turned back)."""
    if bottom <= count - top or not rows.ordered:
        return list(rows[bottom:top])
    from_end = list(rows.reverse()[count - top : count - bottom])
    from_end.reverse()
    return from_end


class EndNearLimitOffset(LimitOffset):
    """Limit/offset pages whose offsets past the middle are read from the end, as
    :class:`EndNearPaginator` reads pages; ``count``: the rows' number when it is known."""

    def __init__(self, *, count: int | None = None) -> None:
        self.known_count = count

    def paginate_queryset(
        self, queryset: QuerySet[Any] | Sequence[Any], request: Request, view: APIView | None = None
    ) -> list[Any] | None:
        if not isinstance(queryset, QuerySet):
            # DRF pages a list as well; its stubs for Django 5.2 name only a QuerySet.
            return super().paginate_queryset(cast("QuerySet[Any]", queryset), request, view)
        self.request = request
        self.limit = self.get_limit(request)
        if self.limit is None:
            return None
        self.count = self.get_count(queryset) if self.known_count is None else self.known_count
        self.offset = self.get_offset(request)
        if self.count > self.limit and self.template is not None:
            self.display_page_controls = True
        if self.count == 0 or self.offset > self.count:
            return []
        top = min(self.offset + self.limit, self.count)
        return rows_between(queryset, self.offset, top, self.count)
