"""HTTP API of matches: lists with filters, one match, its log; the JSON Lines pieces.

A private bot is hidden from other players, and so is every match it plays
(matches_visible). What a log keeps private to a seat (its stderr, its bot's notes
and trace, its bot seed) is shown to the owner of that seat's bot and to staff only
(match_log_read), and so are the seat's decisions (match_study).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from datetime import datetime
from typing import Any

from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound, PermissionDenied, ValidationError
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.bots.fields import bot_credit_fields
from arena.pagination import NewestFirstCursor, id_window, paginated_response

from .models import AttemptFault, AttemptOutcome, Match, MatchAttempt, MatchStatus, Participant
from .selectors import (
    match_attempts_read,
    match_get_visible,
    match_list,
    match_live_read,
    match_log_read,
)
from .study import match_study, match_study_seats

# Lists of matches are pages of 50 matches of up to 6 seats (and a challenge's matches
# more): the outputs below write their fields directly, as DRF's fields would, instead
# of through DRF's per-field machinery, which cost more than the queries.
# test_api_matches checks both ways give the same document.
_TIME = serializers.DateTimeField()


def _time(value: datetime | None) -> str | None:
    return None if value is None else _TIME.to_representation(value)


class ParticipantOutput(serializers.Serializer[Participant]):
    seat = serializers.IntegerField()
    bot_id, bot, owner, team = bot_credit_fields("bot_version.bot")
    version = serializers.IntegerField(source="bot_version.number")
    money = serializers.IntegerField(allow_null=True)
    rank = serializers.IntegerField(allow_null=True)
    forfeit = serializers.CharField()
    rating_before = serializers.FloatField(allow_null=True)
    rating_after = serializers.FloatField(allow_null=True)

    def to_representation(self, instance: Participant) -> dict[str, Any]:
        return seat_output(instance)


def seat_output(seat: Participant) -> dict[str, Any]:
    """A seat as :class:`ParticipantOutput` writes it."""
    version = seat.bot_version
    bot = version.bot
    return {
        "seat": seat.seat,
        "bot_id": bot.pk,
        "bot": bot.name,
        "owner": bot.owner.username,
        "team": None if bot.team is None else bot.team.name,
        "version": version.number,
        "money": seat.money,
        "rank": seat.rank,
        "forfeit": seat.forfeit,
        "rating_before": seat.rating_before,
        "rating_after": seat.rating_after,
    }


class MatchOutput(serializers.Serializer[Match]):
    id = serializers.IntegerField()
    ladder = serializers.CharField(source="ladder.slug")
    seed = serializers.IntegerField(
        source="public_seed",
        allow_null=True,
        help_text="Null until the match finished: it fixes every roll still to come.",
    )
    status = serializers.CharField()
    attempts = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    rated = serializers.BooleanField(help_text="Whether it counts on the ladder's Elo.")
    rated_at = serializers.DateTimeField(
        allow_null=True, help_text="When its rating changes were applied."
    )
    deal = serializers.IntegerField(
        source="deal_id",
        allow_null=True,
        help_text="Id of the first match of this game's duplicate deal (rated together, on "
        "money totals); null when not a deal.",
    )
    deal_game = serializers.IntegerField(
        allow_null=True, help_text="This game's number in its deal, from 1; null when not a deal."
    )
    series = serializers.IntegerField(
        source="series_id",
        allow_null=True,
        help_text="Id of the first match of this game's series (the games of the same bots "
        "one worker run plays, one process per bot); null when played alone.",
    )
    series_game = serializers.IntegerField(
        allow_null=True,
        help_text="This game's place in its series' play order, from 1; null when played alone.",
    )
    has_log = serializers.SerializerMethodField(
        help_text="Whether the log can be read now: false until it is stored, and while "
        "another game dealt by the same seed (a duplicate deal's) is still to play."
    )
    participants = ParticipantOutput(many=True)

    def get_has_log(self, match: Match) -> bool:
        return bool(match.log) and not match.sealed

    def to_representation(self, instance: Match) -> dict[str, Any]:
        match = instance
        return {
            "id": match.pk,
            "ladder": match.ladder.slug,
            "seed": match.public_seed,
            "status": match.status,
            "attempts": match.attempts,
            "created_at": _time(match.created_at),
            "started_at": _time(match.started_at),
            "finished_at": _time(match.finished_at),
            "rated": match.rated,
            "rated_at": _time(match.rated_at),
            "deal": match.deal_id,
            "deal_game": match.deal_game,
            "series": match.series_id,
            "series_game": match.series_game,
            "has_log": self.get_has_log(match),
            "participants": [seat_output(seat) for seat in match.participants.all()],
        }


class MatchAttemptOutput(serializers.Serializer[MatchAttempt]):
    number = serializers.IntegerField(help_text="From 1.")
    runner = serializers.CharField(help_text="The worker: host:pid-namespace:pid:start-time.")
    started_at = serializers.DateTimeField()
    ended_at = serializers.DateTimeField(allow_null=True)
    outcome = serializers.ChoiceField(choices=AttemptOutcome.choices)
    fault = serializers.ChoiceField(
        choices=AttemptFault.choices,
        allow_blank=True,
        help_text="What a failed attempt failed on (blank unless failed).",
    )
    error = serializers.CharField(help_text="Why it failed.")


class MatchDetailOutput(MatchOutput):
    attempt_history = MatchAttemptOutput(
        many=True,
        required=False,
        help_text="Staff only: every attempt at playing it, with why each failed.",
    )


class MatchListApi(APIView):
    pagination_class = NewestFirstCursor

    class FilterSerializer(serializers.Serializer[None]):
        ladder = serializers.SlugField(required=False, help_text="Ladder slug.")
        bot = serializers.IntegerField(required=False, help_text="Bot id: matches it played.")
        status = serializers.ChoiceField(choices=MatchStatus.choices, required=False)
        created_after = serializers.DateTimeField(
            required=False, help_text="Created at or after (ISO 8601)."
        )
        created_before = serializers.DateTimeField(
            required=False, help_text="Created before (ISO 8601)."
        )

    @extend_schema(parameters=[FilterSerializer], responses=MatchOutput(many=True))
    def get(self, request: Request) -> Response:
        """Matches you may see, newest first (cursor pages)."""
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        data = filters.validated_data
        matches = match_list(
            user=request.user,
            ladder_slug=data.get("ladder"),
            bot_id=data.get("bot"),
            status=data.get("status"),
            created_after=data.get("created_after"),
            created_before=data.get("created_before"),
            window=id_window(request),
        )
        return paginated_response(
            pagination_class=self.pagination_class,
            serializer_class=MatchOutput,
            queryset=matches,
            request=request,
            view=self,
        )


class MatchDetailApi(APIView):
    @extend_schema(responses=MatchDetailOutput)
    def get(self, request: Request, match_id: int) -> Response:
        """One match; staff also get its attempts (``attempt_history``)."""
        match = match_get_visible(match_id=match_id, user=request.user)
        if match is None:
            raise Http404
        data = dict(MatchOutput(match).data)
        attempts = match_attempts_read(match=match, user=request.user)
        if attempts is not None:
            # many=True takes a list
            data["attempt_history"] = MatchAttemptOutput(attempts, many=True).data  # type: ignore[arg-type]
        return Response(data)


class MatchLogApi(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter(
                "download",
                OpenApiTypes.BOOL,
                description="Any value: served as a file to save, match-<id>.json.",
            ),
            OpenApiParameter(
                "form",
                OpenApiTypes.STR,
                enum=["events", "moves"],
                description="events (the default): every event; moves: the log as stored, "
                "its moves only (a fraction of the size; vegas_engine.log.expand makes the "
                "events from it).",
            ),
        ],
        responses=OpenApiResponse(
            OpenApiTypes.OBJECT,
            description="The game log (docs/game-log.md) with the referee's section; for "
            "seats whose bot is not yours, stderr is emptied and the trace (notes, stderr per "
            "decision) and bot seed left out.",
        ),
    )
    def get(self, request: Request, match_id: int) -> Response:
        """The match's game log as JSON (finished matches only); ``?download=1`` saves it."""
        form = request.query_params.get("form", "events")
        if form not in ("events", "moves"):
            raise ValidationError(
                {"form": f"{form!r} is not a log form: use events (the default) or moves."}
            )
        match = match_get_visible(match_id=match_id, user=request.user)
        if match is not None and match.status == MatchStatus.FINISHED and match.sealed:
            raise NotFound(
                f"The log of match {match.pk} is sealed until the other games dealt by its "
                "seed (its duplicate deal) are played: it shows the dice they will roll."
            )
        log = (
            None
            if match is None
            else match_log_read(match=match, user=request.user, moves=form == "moves")
        )
        if log is None:
            raise Http404
        response = Response(log)
        if "download" in request.query_params:
            response["Content-Disposition"] = f'attachment; filename="match-{match_id}.json"'
        return response


class StudiedFaultOutput(serializers.Serializer[dict[str, str]]):
    kind = serializers.CharField(help_text="The referee's fault kind, e.g. timeout.")
    message = serializers.CharField()


class StudiedDecisionOutput(serializers.Serializer[dict[str, Any]]):
    move = serializers.IntegerField(help_text="Index of the move in the log's moves form.")
    event = serializers.IntegerField(
        help_text="Index of its decision event in the log's events form (the replay's)."
    )
    seat = serializers.IntegerField()
    request = serializers.IntegerField(
        allow_null=True, help_text="The request's id; null when the log does not say."
    )
    observation = serializers.DictField(
        help_text="The observation the bot was sent, exactly (docs/observation.md)."
    )
    legal_actions = serializers.ListField(child=serializers.CharField())
    action = serializers.CharField(help_text="The action played.")
    ms = serializers.FloatField(
        allow_null=True, help_text="How long the bot took; null: no answer, or not recorded."
    )
    note = serializers.CharField(allow_null=True, help_text="The note the bot sent with it.")
    stderr = serializers.CharField(
        allow_null=True, help_text="What the bot wrote to stderr while deciding."
    )
    truncated = serializers.BooleanField(help_text="Whether the note or stderr were cut.")
    fallback = serializers.BooleanField(
        help_text="Whether the referee's random policy played it: the bot had faulted."
    )
    fault = StudiedFaultOutput(
        allow_null=True, help_text="The seat's fault at this decision, else null."
    )


class StudiedSeatOutput(serializers.Serializer[dict[str, Any]]):
    seat = serializers.IntegerField()
    bot = serializers.CharField()
    version = serializers.IntegerField()
    decision_ms = serializers.IntegerField(help_text="The time limit of one decision.")
    bot_seed = serializers.IntegerField(
        allow_null=True, help_text="The seed the bot was given; null when the log does not say."
    )
    decisions = StudiedDecisionOutput(many=True)


class MatchDecisionsOutput(serializers.Serializer[dict[str, Any]]):
    match = serializers.IntegerField()
    seats = StudiedSeatOutput(many=True)


class MatchDecisionsApi(APIView):
    class FilterSerializer(serializers.Serializer[None]):
        seat = serializers.IntegerField(
            required=False, min_value=0, help_text="Only this seat (one of yours)."
        )

    @extend_schema(
        parameters=[FilterSerializer],
        responses={
            200: MatchDecisionsOutput,
            403: OpenApiResponse(description="None of the seats asked for is yours to study."),
            404: OpenApiResponse(
                description="No such match, or no log to read yet (not finished, or sealed)."
            ),
        },
    )
    def get(self, request: Request, match_id: int) -> Response:
        """Each decision of your bots' seats in a finished match (staff: every seat): the
        observation the bot was sent, its legal actions, the action played, the time it
        took, its note and stderr. Other users are refused (403)."""
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        seat = filters.validated_data.get("seat")
        match = match_get_visible(match_id=match_id, user=request.user)
        if match is None:
            raise Http404
        if seat is not None and seat >= match.seats:
            raise ValidationError(
                {"seat": f"match {match.pk} has seats 0-{match.seats - 1}: ask for one of those."}
            )
        allowed = match_study_seats(match=match, user=request.user)
        if not allowed or (seat is not None and seat not in allowed):
            rule = "Only the owner of a seat's bot, and staff, may study its decisions"
            if not request.user.is_authenticated:
                raise PermissionDenied(f"{rule}: log in, or send your API token.")
            mine = f"seat {seat} is not yours" if seat is not None else "none of its seats is yours"
            raise PermissionDenied(f"{rule}: {mine}.")
        if match.status == MatchStatus.FINISHED and match.sealed:
            raise NotFound(
                f"The decisions of match {match.pk} are sealed until the other games dealt by "
                "its seed (its duplicate deal) are played: they show the dice they will roll."
            )
        studied = match_study(
            match=match, user=request.user, seats=None if seat is None else [seat]
        )
        if studied is None:
            raise NotFound(f"Match {match.pk} has no log to study yet: it is {match.status}.")
        # Written directly (the output classes document it): observations are large.
        return Response({"match": match.pk, "seats": [seat.to_json() for seat in studied]})


class LiveEventsOutput(serializers.Serializer[dict[str, Any]]):
    match = serializers.IntegerField()
    status = serializers.CharField(help_text="queued, running, finished, ...")
    live = serializers.BooleanField(
        help_text="Whether events of the game being played are shown: false before the "
        "worker published any, once it finished (read its log), and while its log would "
        "be sealed (a duplicate deal's other games are still to play)."
    )
    attempt = serializers.IntegerField(
        allow_null=True,
        help_text="The attempt being played: when it changes, the game started again "
        "from its first event.",
    )
    since = serializers.IntegerField(help_text="Index of the first event returned.")
    total = serializers.IntegerField(help_text="Events published so far.")
    events = serializers.ListField(
        child=serializers.DictField(), help_text="Events as in the game log (docs/game-log.md)."
    )


class MatchEventsApi(APIView):
    class FilterSerializer(serializers.Serializer[None]):
        since = serializers.IntegerField(
            required=False, min_value=0, default=0, help_text="The first event wanted."
        )

    @extend_schema(parameters=[FilterSerializer], responses=LiveEventsOutput)
    def get(self, request: Request, match_id: int) -> Response:
        """The events of a running match so far, from ``since`` on: poll it to follow the
        game; once ``status`` is finished, read its log."""
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        since = filters.validated_data["since"]
        match = match_get_visible(match_id=match_id, user=request.user)
        if match is None:
            raise Http404
        live = match_live_read(match=match, since=since)
        data = {
            "match": match.pk,
            "status": match.status,
            "live": live is not None,
            "attempt": None if live is None else live.attempt,
            "since": since if live is None else live.since,
            "total": 0 if live is None else live.total,
            "events": [] if live is None else live.events,
        }
        return Response(LiveEventsOutput(data).data)


class JSONLinesRenderer(BaseRenderer):
    """One JSON document per line. Streams are written by the view; errors are one line."""

    media_type = "application/jsonl"
    format = "jsonl"
    charset = None

    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> bytes:
        return json_line(data)


def json_line(data: Any) -> bytes:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


def log_lines(records: Iterator[tuple[Match, dict[str, Any]]]) -> Iterator[bytes]:
    for match, log in records:
        yield json_line({"match": MatchOutput(match).data, "log": log})
