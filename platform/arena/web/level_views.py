"""The Levels page: the house bots from weakest to strongest, with their live ratings and code."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from arena.ladders.levels import BEATEN_MIN_GAMES, level_code, level_get, levels_list


@require_GET
def levels_page(request: HttpRequest) -> HttpResponse:
    rows = levels_list()
    context = {
        "rows": rows,
        "ladders": [ladder for ladder, _ in rows[0].ratings] if rows else [],
        "beaten_min_games": BEATEN_MIN_GAMES,
    }
    return render(request, "web/levels.html", context)


@require_GET
def level_code_view(request: HttpRequest, number: int) -> HttpResponse:
    """A level's house bot as plain text: every house bot is public code."""
    level = level_get(number=number)
    if level is None:
        raise Http404("No such level.")
    response = HttpResponse(level_code(level=level), content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'inline; filename="{level.filename}"'
    return response
