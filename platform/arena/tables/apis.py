"""HTTP API of tables: sit down against bots, follow the game, answer, read the log.

Signed-in players only; a table is its player's (and staff's): anybody else
gets 404. The page at /play/<id>/ uses the same endpoints.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import permissions, serializers, status
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.bots.selectors import bot_get_visible
from arena.players.selectors import signed_in

from .flows import table_create
from .models import Table, TableSeat
from .selectors import (
    Answered,
    Decision,
    TableState,
    table_get,
    table_log_read,
    table_state,
    tables_of,
)
from .services import TableError, table_act, table_cancel, table_check_worker

#: A person's tables listed, newest first.
TABLES_LISTED = 50


class TableSeatOutput(serializers.Serializer[TableSeat]):
    seat = serializers.IntegerField()
    person = serializers.BooleanField(source="is_person", help_text="Your seat.")
    name = serializers.SerializerMethodField(help_text="Your username, or the bot's name.")
    bot_id = serializers.IntegerField(source="bot_version.bot_id", default=None)
    version = serializers.IntegerField(source="bot_version.number", default=None)
    owner = serializers.CharField(source="bot_version.bot.owner.username", default=None)
    team = serializers.CharField(
        source="bot_version.bot.team.name",
        default=None,
        help_text="The team owning the bot, or null: its owner's alone (and your seat).",
    )
    money = serializers.IntegerField(allow_null=True)
    rank = serializers.IntegerField(allow_null=True)
    forfeit = serializers.CharField(help_text="Why the seat forfeited (e.g. timeout); blank.")

    def get_name(self, seat: TableSeat) -> str:
        if seat.bot_version is None:
            return str(seat.table.player.get_username())
        return str(seat.bot_version.bot.name)


class DecisionOutput(serializers.Serializer[Decision]):
    request = serializers.IntegerField(
        source="request_id", help_text="Send it back with your answer."
    )
    decision = serializers.CharField(help_text="place, kick, chip, select... (docs/actions.md)")
    legal_actions = serializers.ListField(child=serializers.CharField())
    deadline = serializers.DateTimeField(source="deadline_at")
    seconds_left = serializers.SerializerMethodField(
        help_text="Until the deadline; past it you forfeit and a random policy plays on."
    )
    observation = serializers.DictField(help_text="What your seat sees (docs/observation.md).")

    def get_seconds_left(self, decision: Decision) -> float:
        return max(0.0, round((decision.deadline_at - timezone.now()).total_seconds(), 1))


class AnsweredOutput(serializers.Serializer[Answered]):
    request = serializers.IntegerField(source="request_id")
    action = serializers.CharField(help_text="Your answer, as you posted it.")


class BoardOutput(serializers.Serializer[Any]):
    attempt = serializers.IntegerField()
    since = serializers.IntegerField(help_text="Index of the first event returned.")
    total = serializers.IntegerField(help_text="Events so far.")
    events = serializers.ListField(
        child=serializers.DictField(),
        help_text="The game log's events as your seat may know them: other seats' "
        "decisions left out, their card-game hands and discards as '?' cards.",
    )


class TableOutput(serializers.Serializer[TableState]):
    id = serializers.IntegerField(source="table.pk")
    status = serializers.CharField(source="table.status")
    rules = serializers.CharField(source="table.rules")
    seats = serializers.IntegerField(source="table.seats")
    options = serializers.DictField(source="table.options")
    seat = serializers.IntegerField(source="table.seat", help_text="Your seat.")
    decision_seconds = serializers.IntegerField(
        source="table.decision_seconds", help_text="Your time per decision."
    )
    seed = serializers.IntegerField(
        source="table.public_seed", allow_null=True, help_text="Null until the game is over."
    )
    created_at = serializers.DateTimeField(source="table.created_at")
    started_at = serializers.DateTimeField(source="table.started_at", allow_null=True)
    finished_at = serializers.DateTimeField(source="table.finished_at", allow_null=True)
    error = serializers.CharField(source="table.error", help_text="Why it failed (ours).")
    players = TableSeatOutput(source="table.table_seats.all", many=True)
    decision = DecisionOutput(allow_null=True, help_text="What you are asked now, if anything.")
    answered = AnsweredOutput(
        allow_null=True,
        help_text="Your answer to the decision asked, until the game asks the next one "
        "(request ids only grow in a game).",
    )
    board = BoardOutput(
        source="events", allow_null=True, help_text="While it is played: the events so far."
    )
    has_log = serializers.SerializerMethodField(help_text="The log at /api/tables/<id>/log/.")

    def get_has_log(self, state: TableState) -> bool:
        return bool(state.table.log)


def _table_or_404(request: Request, table_id: int) -> Table:
    table = table_get(table_id=table_id, user=request.user)
    if table is None:
        raise Http404
    return table


def _table_checked_or_404(request: Request, table_id: int) -> Table:
    """The table, failed first if its worker is gone: the page learns it at its next poll."""
    table = _table_or_404(request, table_id)
    if table_check_worker(table=table):
        table.refresh_from_db()
    return table


def _since(request: Request) -> int:
    try:
        return max(0, int(request.query_params.get("since", 0)))
    except ValueError:
        raise serializers.ValidationError({"since": "an event index: 0, 1, 2..."}) from None


class TableListApi(APIView):
    permission_classes = (permissions.IsAuthenticated,)

    class InputSerializer(serializers.Serializer[None]):
        class Meta:
            ref_name = "TableInput"

        rules = serializers.CharField(help_text="classic, boulevard, cardgame, royale, sixdice.")
        seats = serializers.IntegerField(help_text="Seats in all, yours included.")
        seat = serializers.IntegerField(default=0, help_text="Your seat, from 0 (0 starts).")
        opponents = serializers.ListField(
            child=serializers.IntegerField(),
            help_text="Ids of the bots in the other seats, in order (one bot may sit twice).",
        )
        options = serializers.DictField(
            required=False, default=dict, help_text="The rule system's options (engine names)."
        )

    @extend_schema(responses=TableOutput(many=True))
    def get(self, request: Request) -> Response:
        """Your latest tables, newest first."""
        tables = tables_of(player_id=signed_in(request).pk)[:TABLES_LISTED]
        states = [
            table_state(table=t)
            for t in tables.prefetch_related(
                "table_seats__bot_version__bot__owner", "table_seats__bot_version__bot__team"
            )
        ]
        return Response(TableOutput(states, many=True).data)  # type: ignore[arg-type]  # many=True takes a list

    @extend_schema(request=InputSerializer, responses={201: TableOutput})
    def post(self, request: Request) -> Response:
        """Sit down at a new unrated game against bots; it starts when a worker is free."""
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        opponents = []
        for bot_id in data["opponents"]:
            bot = bot_get_visible(bot_id=bot_id, user=request.user)
            if bot is None:
                raise TableError(f"no bot {bot_id}: choose among the bots you can see.")
            opponents.append(bot)
        table = table_create(
            player=signed_in(request),
            rules=data["rules"],
            seats=data["seats"],
            seat=data["seat"],
            opponents=opponents,
            options=data["options"],
        )
        state = table_state(table=_table_or_404(request, table.pk))
        return Response(TableOutput(state).data, status=status.HTTP_201_CREATED)


class TableDetailApi(APIView):
    permission_classes = (permissions.IsAuthenticated,)

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "since", OpenApiTypes.INT, description="The first event of the board wanted."
            )
        ],
        responses=TableOutput,
    )
    def get(self, request: Request, table_id: int) -> Response:
        """Your table: seats, status, the decision you are asked, and while it is played the
        board's events from ``?since=N`` on (poll it about once a second)."""
        state = table_state(table=_table_checked_or_404(request, table_id), since=_since(request))
        return Response(TableOutput(state).data)


class TableActApi(APIView):
    permission_classes = (permissions.IsAuthenticated,)

    class InputSerializer(serializers.Serializer[None]):
        class Meta:
            ref_name = "TableActInput"

        request = serializers.IntegerField(help_text="The decision's request id.")
        action = serializers.CharField(
            max_length=200, help_text="One of its legal actions, verbatim."
        )

    @extend_schema(request=InputSerializer, responses=TableOutput)
    def post(self, request: Request, table_id: int) -> Response:
        """Answer the decision you are asked: 400 ``table_action`` says why an answer is
        refused (not legal, too late, already answered); 409 ``table_stopped``, that the
        game stopped on our side (its worker gone): start a new table."""
        table = _table_or_404(request, table_id)
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        table_act(
            table=table,
            player=signed_in(request),
            request_id=data["request"],
            action=data["action"],
        )
        return Response(TableOutput(table_state(table=_table_or_404(request, table_id))).data)


class TableLeaveApi(APIView):
    permission_classes = (permissions.IsAuthenticated,)

    @extend_schema(request=None, responses=TableOutput)
    def post(self, request: Request, table_id: int) -> Response:
        """Leave a table no worker has taken yet (a game being played ends when you stop
        answering: you forfeit after the time-out)."""
        table = _table_or_404(request, table_id)
        if table.player_id != signed_in(request).pk:
            raise PermissionDenied("only the table's player leaves it.")
        table = table_cancel(table=table)
        return Response(TableOutput(table_state(table=_table_or_404(request, table.pk))).data)


class TableLogApi(APIView):
    permission_classes = (permissions.IsAuthenticated,)

    @extend_schema(
        responses=OpenApiResponse(
            OpenApiTypes.OBJECT,
            description="The game log (docs/game-log.md) with the referee's section; what is "
            "private to the seat of a bot that is not yours (stderr, notes and trace, bot seed) "
            "left out.",
        ),
    )
    def get(self, request: Request, table_id: int) -> Response:
        """The finished game's log; ``?download=1`` saves it as table-<id>.json."""
        log = table_log_read(table=_table_or_404(request, table_id), user=request.user)
        if log is None:
            raise NotFound(f"table {table_id} has no log: its game is not over.")
        response = Response(log)
        if "download" in request.query_params:
            response["Content-Disposition"] = f'attachment; filename="table-{table_id}.json"'
        return response
