"""HTTP API of leagues: create and manage them, entrants, rounds, fixtures, standings, the bundle.

Who may do what: anyone reads public leagues; a private league exists for
its organiser, the owners of entered bots and staff (others get 404). The
organiser and staff change entrants, pause, resume and cancel (others 403);
an invited bot's owner accepts or declines; a bot's owner withdraws it
before or after the start (so do the organiser and staff).
"""

from __future__ import annotations

from typing import Any

from django.http import Http404, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.bots.fields import bot_credit_fields
from arena.bots.models import Bot
from arena.bots.selectors import bot_get_visible, team_name
from arena.ladders.selectors import ladder_get
from arena.pagination import LimitOffset, paginated_response
from arena.players.selectors import signed_in

from .flows import league_resume
from .models import (
    League,
    LeagueEntry,
    LeagueFixture,
    LeagueFormat,
    LeagueRound,
    LeagueStanding,
    LeagueStatus,
    LeagueVisibility,
)
from .selectors import (
    league_bundle,
    league_can_manage,
    league_entries,
    league_entry_can_respond,
    league_entry_can_withdraw,
    league_entry_get,
    league_fixtures,
    league_get_visible,
    league_list,
    league_rounds,
    league_standings,
)
from .services import (
    DEFAULT_MAX_TABLES,
    LeagueConfigError,
    LeagueEntryError,
    league_cancel,
    league_create,
    league_entry_add,
    league_entry_remove,
    league_entry_respond,
    league_pause,
)


class LeagueOutput(serializers.Serializer[League]):
    class Meta:
        ref_name = "League"

    slug = serializers.SlugField()
    name = serializers.CharField()
    organiser = serializers.CharField(source="organiser.username")
    ladder = serializers.CharField(source="ladder.slug")
    rules = serializers.CharField(source="ladder.rules")
    seats = serializers.IntegerField(source="ladder.seats")
    visibility = serializers.CharField()
    format = serializers.CharField()
    status = serializers.CharField()
    games_per_table = serializers.IntegerField()
    duplicate = serializers.BooleanField()
    rated = serializers.BooleanField(help_text="League games also count on the ladder's Elo.")
    points_per_rank = serializers.ListField(child=serializers.FloatField())
    advance = serializers.IntegerField(allow_null=True)
    rounds_requested = serializers.IntegerField(allow_null=True)
    start_at = serializers.DateTimeField()
    round_interval = serializers.DurationField()
    started_at = serializers.DateTimeField(allow_null=True)
    paused_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    winner = serializers.CharField(source="winner.bot.name", allow_null=True, default=None)
    winner_owner = serializers.CharField(
        source="winner.bot.owner.username",
        allow_null=True,
        default=None,
        help_text="The username of the winner's owner.",
    )
    winner_team = serializers.CharField(
        source="winner.bot.team.name",
        allow_null=True,
        default=None,
        help_text="The team owning the winner, or null: its owner's alone.",
    )
    note = serializers.CharField()
    standings_updated_at = serializers.DateTimeField(allow_null=True)


class EntryOutput(serializers.Serializer[LeagueEntry]):
    class Meta:
        ref_name = "LeagueEntry"

    seed = serializers.IntegerField()
    bot_id, bot, owner, team = bot_credit_fields("bot")
    status = serializers.CharField()
    version = serializers.IntegerField(
        source="bot_version.number",
        allow_null=True,
        default=None,
        help_text="Frozen at the start: the version that plays every league game.",
    )
    reason = serializers.CharField()

    def to_representation(self, instance: LeagueEntry) -> dict[str, Any]:
        # Written directly, as DRF's fields would (a big Swiss lists 512 entrants):
        # test_leagues_api checks both ways give the same document.
        bot = instance.bot
        return {
            "seed": instance.seed,
            "bot_id": bot.pk,
            "bot": bot.name,
            "owner": bot.owner.username,
            "team": team_name(bot),
            "status": instance.status,
            "version": instance.bot_version.number if instance.bot_version else None,
            "reason": instance.reason,
        }


def _league_or_404(request: Request, slug: str) -> League:
    league = league_get_visible(slug=slug, user=request.user)
    if league is None:
        raise Http404
    return league


def _managed_league(request: Request, slug: str) -> League:
    league = _league_or_404(request, slug)
    if not league_can_manage(league=league, user=request.user):
        raise PermissionDenied("only the league's organiser (or staff) may change it.")
    return league


def _bot_or_error(request: Request, bot_id: int) -> Bot:
    bot = bot_get_visible(bot_id=bot_id, user=request.user)
    if bot is None:
        raise LeagueEntryError(f"no bot with id {bot_id} that you can see.")
    return bot


class LeagueListApi(APIView):
    class FilterSerializer(serializers.Serializer[None]):
        status = serializers.ChoiceField(choices=LeagueStatus.choices, required=False)

    class InputSerializer(serializers.Serializer[None]):
        class Meta:
            ref_name = "LeagueCreateInput"  # distinct names keep the OpenAPI schema right

        name = serializers.CharField(max_length=100)
        slug = serializers.SlugField(max_length=64)
        ladder = serializers.SlugField(help_text="The ladder whose game and limits are played.")
        format = serializers.ChoiceField(choices=LeagueFormat.choices)
        visibility = serializers.ChoiceField(
            choices=LeagueVisibility.choices,
            default=LeagueVisibility.PRIVATE,
            help_text="Public leagues are organised by staff.",
        )
        start_at = serializers.DateTimeField()
        round_interval = serializers.DurationField(help_text='e.g. "1 00:00:00" (a day).')
        bots = serializers.ListField(
            child=serializers.IntegerField(), help_text="Bot ids in seeding order."
        )
        games_per_table = serializers.IntegerField(default=1)
        duplicate = serializers.BooleanField(default=False)
        rated = serializers.BooleanField(
            default=True,
            help_text="League games also count on the ladder's Elo (the league's own "
            "standings rating counts them either way).",
        )
        points_per_rank = serializers.ListField(
            child=serializers.FloatField(), required=False, help_text="Default: N-1 ... 0."
        )
        advance = serializers.IntegerField(required=False, help_text="Knockout: top k go through.")
        rounds = serializers.IntegerField(required=False)
        max_tables = serializers.IntegerField(default=DEFAULT_MAX_TABLES)

    @extend_schema(parameters=[FilterSerializer], responses=LeagueOutput(many=True))
    def get(self, request: Request) -> Response:
        """Leagues you may see, latest start first."""
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        return paginated_response(
            pagination_class=LimitOffset,
            serializer_class=LeagueOutput,
            queryset=league_list(user=request.user, status=filters.validated_data.get("status")),
            request=request,
            view=self,
        )

    @extend_schema(request=InputSerializer, responses={201: LeagueOutput})
    def post(self, request: Request) -> Response:
        """Create a league; it starts by itself at ``start_at``."""
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data: dict[str, Any] = dict(serializer.validated_data)
        ladder = ladder_get(slug=data.pop("ladder"))
        if ladder is None:
            raise LeagueConfigError("no ladder with that slug: see GET /api/ladders/.")
        bots = [_bot_or_error(request, bot_id) for bot_id in data.pop("bots")]
        league = league_create(organiser=signed_in(request), ladder=ladder, bots=bots, **data)
        league = _league_or_404(request, league.slug)
        return Response(LeagueOutput(league).data, status=status.HTTP_201_CREATED)


class LeagueDetailApi(APIView):
    @extend_schema(responses=LeagueOutput)
    def get(self, request: Request, slug: str) -> Response:
        return Response(LeagueOutput(_league_or_404(request, slug)).data)


class LeaguePauseApi(APIView):
    @extend_schema(request=None, responses=LeagueOutput)
    def post(self, request: Request, slug: str) -> Response:
        """No round starts until resumed; games already queued still play."""
        league = league_pause(league=_managed_league(request, slug))
        return Response(LeagueOutput(_league_or_404(request, league.slug)).data)


class LeagueResumeApi(APIView):
    @extend_schema(request=None, responses=LeagueOutput)
    def post(self, request: Request, slug: str) -> Response:
        """Back on the calendar; missed rounds move to the next slots."""
        league = league_resume(league=_managed_league(request, slug))
        return Response(LeagueOutput(_league_or_404(request, league.slug)).data)


class LeagueCancelApi(APIView):
    class InputSerializer(serializers.Serializer[None]):
        class Meta:
            ref_name = "LeagueCancelInput"  # distinct names keep the OpenAPI schema right

        reason = serializers.CharField(required=False, default="", allow_blank=True, max_length=500)

    @extend_schema(request=InputSerializer, responses=LeagueOutput)
    def post(self, request: Request, slug: str) -> Response:
        """Stop for good: queued games are cancelled, results so far and logs are kept."""
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        league = league_cancel(
            league=_managed_league(request, slug), reason=serializer.validated_data["reason"]
        )
        return Response(LeagueOutput(_league_or_404(request, league.slug)).data)


class LeagueEntriesApi(APIView):
    class InputSerializer(serializers.Serializer[None]):
        class Meta:
            ref_name = "LeagueEntryAddInput"  # distinct names keep the OpenAPI schema right

        bot = serializers.IntegerField(help_text="Bot id.")

    @extend_schema(responses=EntryOutput(many=True))
    def get(self, request: Request, slug: str) -> Response:
        """Entrants in seeding order, with their frozen versions once started."""
        league = _league_or_404(request, slug)
        return Response(EntryOutput(league_entries(league=league), many=True).data)  # type: ignore[arg-type]  # many=True takes a queryset

    @extend_schema(request=InputSerializer, responses={201: EntryOutput})
    def post(self, request: Request, slug: str) -> Response:
        """Enter a bot before the start (other players' bots are invited)."""
        league = _managed_league(request, slug)
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        bot = _bot_or_error(request, serializer.validated_data["bot"])
        entry = league_entry_add(league=league, bot=bot, by=signed_in(request))
        return Response(EntryOutput(entry).data, status=status.HTTP_201_CREATED)


class LeagueEntryDetailApi(APIView):
    @extend_schema(request=None, responses={204: None})
    def delete(self, request: Request, slug: str, bot_id: int) -> Response:
        """Withdraw a bot: by its owner, the organiser or staff.

        Before the start it plays nothing. Once started it forfeits its games not
        queued yet (walkovers); games queued or running still play and its results
        so far stay in the standings.
        """
        league = _league_or_404(request, slug)
        entry = league_entry_get(league=league, bot_id=bot_id)
        if entry is None:
            if not league_can_manage(league=league, user=request.user):
                raise PermissionDenied("only the bot's owner, the organiser or staff withdraw it.")
            raise LeagueEntryError(
                f"no bot with id {bot_id} is entered in {league}: "
                f"see GET /api/leagues/{league.slug}/entries/."
            )
        if not league_entry_can_withdraw(entry=entry, user=request.user):
            raise PermissionDenied("only the bot's owner, the organiser or staff withdraw it.")
        league_entry_remove(league=league, bot=entry.bot, by=signed_in(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class LeagueEntryRespondApi(APIView):
    class InputSerializer(serializers.Serializer[None]):
        class Meta:
            ref_name = "LeagueEntryRespondInput"  # distinct names keep the OpenAPI schema right

        accept = serializers.BooleanField()

    @extend_schema(request=InputSerializer, responses=EntryOutput)
    def post(self, request: Request, slug: str, bot_id: int) -> Response:
        """The bot's owner accepts or declines the invitation."""
        league = _league_or_404(request, slug)
        entry = league_entry_get(league=league, bot_id=bot_id)
        if entry is None:
            raise Http404
        if not league_entry_can_respond(entry=entry, user=request.user):
            raise PermissionDenied("only the bot's owner answers its invitation.")
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        entry = league_entry_respond(entry=entry, accept=serializer.validated_data["accept"])
        return Response(EntryOutput(league_entries(league=league).get(pk=entry.pk)).data)


class LeagueRoundsApi(APIView):
    class OutputSerializer(serializers.Serializer[LeagueRound]):
        class Meta:
            ref_name = "LeagueRound"

        number = serializers.IntegerField()
        scheduled_at = serializers.DateTimeField()
        status = serializers.CharField()
        started_at = serializers.DateTimeField(allow_null=True)
        finished_at = serializers.DateTimeField(allow_null=True)

    @extend_schema(responses=OutputSerializer(many=True))
    def get(self, request: Request, slug: str) -> Response:
        """The calendar: every round with its time and status (after the start)."""
        league = _league_or_404(request, slug)
        return Response(self.OutputSerializer(league_rounds(league=league), many=True).data)  # type: ignore[arg-type]  # many=True takes a queryset


def _flag(value: object) -> bool | None:
    """A boolean as DRF's BooleanField writes one (SQLite gives 0 and 1)."""
    return None if value is None else bool(value)


class FixtureOutput(serializers.Serializer[LeagueFixture]):
    class Meta:
        ref_name = "LeagueFixture"

    class GameOutput(serializers.Serializer[Any]):
        class Meta:
            ref_name = "LeagueGame"

        class SeatOutput(serializers.Serializer[Any]):
            class Meta:
                ref_name = "LeagueGameSeat"

            seat = serializers.IntegerField()
            bot_id, bot, owner, team = bot_credit_fields("entry.bot")
            money = serializers.IntegerField(source="result_money", allow_null=True)
            rank = serializers.IntegerField(source="result_rank", allow_null=True)
            forfeit = serializers.BooleanField(source="result_forfeit")

        number = serializers.IntegerField()
        deal = serializers.IntegerField()
        status = serializers.CharField()
        match = serializers.IntegerField(source="match_id", allow_null=True)
        match_status = serializers.CharField(source="match.status", allow_null=True, default=None)
        seats = SeatOutput(many=True)

    round = serializers.IntegerField(source="round.number")
    scheduled_at = serializers.DateTimeField(source="round.scheduled_at")
    table = serializers.IntegerField()
    advance = serializers.IntegerField(allow_null=True)
    games = GameOutput(many=True)

    def to_representation(self, instance: LeagueFixture) -> dict[str, Any]:
        # Written directly, as DRF's fields would (a page is 50 tables of several games
        # and seats): test_leagues_api checks both ways give the same document.
        return {
            "round": instance.round.number,
            "scheduled_at": self.fields["scheduled_at"].to_representation(
                instance.round.scheduled_at
            ),
            "table": instance.table,
            "advance": instance.advance,
            "games": [
                {
                    "number": game.number,
                    "deal": game.deal,
                    "status": game.status,
                    "match": game.match_id,
                    "match_status": game.match.status if game.match else None,
                    "seats": [
                        {
                            "seat": seat.seat,
                            "bot_id": seat.entry.bot_id,
                            "bot": seat.entry.bot.name,
                            "owner": seat.entry.bot.owner.username,
                            "team": team_name(seat.entry.bot),
                            # Annotated by selectors.seats_with_results.
                            "money": seat.result_money,  # type: ignore[attr-defined]
                            "rank": seat.result_rank,  # type: ignore[attr-defined]
                            "forfeit": _flag(seat.result_forfeit),  # type: ignore[attr-defined]
                        }
                        for seat in game.seats.all()
                    ],
                }
                for game in instance.games.all()
            ],
        }


class LeagueFixturesApi(APIView):
    class FilterSerializer(serializers.Serializer[None]):
        round = serializers.IntegerField(required=False, help_text="Only this round.")

    @extend_schema(parameters=[FilterSerializer], responses=FixtureOutput(many=True))
    def get(self, request: Request, slug: str) -> Response:
        """Tables in calendar order with their games, seats and live results."""
        league = _league_or_404(request, slug)
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        return paginated_response(
            pagination_class=LimitOffset,
            serializer_class=FixtureOutput,
            queryset=league_fixtures(
                league=league, round_number=filters.validated_data.get("round")
            ),
            request=request,
            view=self,
        )


class LeagueStandingsApi(APIView):
    class OutputSerializer(serializers.Serializer[LeagueStanding]):
        class Meta:
            ref_name = "LeagueStanding"

        position = serializers.IntegerField()
        bot_id, bot, owner, team = bot_credit_fields("entry.bot")
        version = serializers.IntegerField(source="entry.bot_version.number", allow_null=True)
        status = serializers.CharField(source="entry.status")
        points = serializers.FloatField()
        money = serializers.IntegerField(help_text="First tie-break.")
        games = serializers.IntegerField()
        results = serializers.IntegerField(help_text="Scored units: games, or duplicate deals.")
        wins = serializers.IntegerField()
        forfeits = serializers.IntegerField()
        byes = serializers.IntegerField()
        rating = serializers.FloatField(help_text="Elo over this league's games only.")

    @extend_schema(responses=OutputSerializer(many=True))
    def get(self, request: Request, slug: str) -> Response:
        """The table: points, then money, head-to-head, league rating (knockout: round reached)."""
        league = _league_or_404(request, slug)
        return paginated_response(
            pagination_class=LimitOffset,
            serializer_class=self.OutputSerializer,
            queryset=league_standings(league=league),
            request=request,
            view=self,
        )


class LeagueBundleApi(APIView):
    @extend_schema(
        responses={
            (200, "application/zip"): OpenApiResponse(
                OpenApiTypes.BINARY,
                description="league.json (settings, entrants with versions, standings), "
                "fixtures.json and logs/round-*/table-*/game-*.json; other players' stderr, "
                "notes, traces and bot seeds left out.",
            )
        }
    )
    def get(self, request: Request, slug: str) -> StreamingHttpResponse:
        """Every log of the league in one zip archive, streamed."""
        league = _league_or_404(request, slug)
        response = StreamingHttpResponse(
            league_bundle(league=league, user=request.user), content_type="application/zip"
        )
        response["Content-Disposition"] = f'attachment; filename="league-{league.slug}.zip"'
        # Proxies (nginx) would otherwise buffer the whole stream.
        response["X-Accel-Buffering"] = "no"
        return response
