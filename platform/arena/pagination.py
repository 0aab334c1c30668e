"""Pagination helpers for the function-light, APIView-based APIs."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
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
