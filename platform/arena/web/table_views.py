"""The pages of tables: a person sits down against bots (Play) and plays in the browser.

Signed-in players only, each seeing their own tables (staff see all). The
table page is the replay viewer's board, following the game through the
tables API (the person's view: other seats' secrets hidden), with the
decision asked as buttons; once the game is over it is the game's replay.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

import vegas_engine
from arena.errors import ArenaError
from arena.ladders.levels import level_bots
from arena.players.selectors import signed_in
from arena.tables.apis import TableOutput
from arena.tables.flows import table_create
from arena.tables.models import ACTIVE, Table, TableSeat
from arena.tables.selectors import (
    bot_rules_played,
    table_get,
    table_log_read,
    table_opponents,
    table_state,
    tables_of,
)
from arena.tables.services import table_cancel, table_check_worker

from . import presenters
from .table_forms import TableForm

#: Bots offered as opponents (the house's first, then by name).
OPPONENTS_OFFERED = 300
TABLES_LISTED = 20


def _players(table: Table, seats: list[TableSeat]) -> list[dict[str, Any]]:
    """Who sits where, for the viewer: the person as "you"."""
    return [
        {
            "seat": s.seat,
            "name": "You",
            "version": None,
            "owner": table.player.get_username(),
            "person": True,
        }
        if s.bot_version is None
        else presenters.seat_player(s.seat, s.bot_version)
        for s in seats
    ]


@login_required(login_url="web:login")
@require_http_methods(["GET", "POST"])
def play(request: HttpRequest) -> HttpResponse:
    user = signed_in(request)
    opponents = list(table_opponents(user=user)[:OPPONENTS_OFFERED])
    form = TableForm(
        request.POST or None,
        opponents=opponents,
        plays=bot_rules_played(bots=opponents),
        levels=level_bots(),
    )
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            try:
                table = table_create(player=user, **form.table_arguments())
            except ArenaError as error:
                form.add_error(None, error.message)
                status = error.http_status  # 503: every table of the platform is taken
            else:
                return redirect("web:table", table_id=table.pk)
    tables = tables_of(player_id=user.pk).prefetch_related("table_seats")[:TABLES_LISTED]
    context = {
        "form": form,
        "tables": [(table, _person_seat(table)) for table in tables],
        "decision_seconds": settings.ARENA_TABLE_DECISION_SECONDS,
    }
    return render(request, "web/play.html", context, status=status)


def _person_seat(table: Table) -> TableSeat | None:
    return next((s for s in table.table_seats.all() if s.bot_version_id is None), None)


@login_required(login_url="web:login")
@require_GET
def table_page(request: HttpRequest, table_id: int) -> HttpResponse:
    table = table_get(table_id=table_id, user=request.user)
    if table is None:
        raise Http404("No such table of yours.")
    if table_check_worker(table=table):  # its worker is gone: the page says so
        table.refresh_from_db()
    seats = list(table.table_seats.all())
    players = _players(table, seats)
    state = table_state(table=table)
    replay = None
    if table.status in ACTIVE:
        replay = presenters.live_document(
            table.game,
            players,
            state.events,
            url=reverse("table-detail", args=[table.pk]),
            playing=ACTIVE,
            every_ms=presenters.TABLE_POLL_MS,
        )
    elif (log := table_log_read(table=table, user=request.user)) is not None:
        replay = presenters.board_document(log, players)
    context = {
        "table": table,
        "title": vegas_engine.RULE_SYSTEMS[table.rules].title,
        "seats": sorted(seats, key=lambda s: (s.rank is None, s.rank or 0, s.seat)),
        "replay": replay,
        "live": table.status in ACTIVE,
        "state": TableOutput(state).data,
    }
    return render(request, "web/table.html", context)


@login_required(login_url="web:login")
@require_POST
def table_leave(request: HttpRequest, table_id: int) -> HttpResponse:
    table = table_get(table_id=table_id, user=request.user)
    if table is None or table.player_id != request.user.pk:
        raise Http404("No such table of yours.")
    try:
        table_cancel(table=table)
    except ArenaError as error:
        messages.error(request, error.message)
        return redirect("web:table", table_id=table.pk)
    messages.success(request, f"You left table #{table.pk}.")
    return redirect("web:play")
