"""HTTP API of ladders: the list, one ladder, its leaderboard, its matches and logs."""

from __future__ import annotations

from typing import Any

from django.http import Http404, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import permissions, serializers, status
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.bots.apis import (
    IsOwnerOrReadOnly,
    visible_bot,
)
from arena.bots.fields import bot_credit_fields
from arena.bots.models import Bot, BotVersion
from arena.bots.selectors import (
    bot_active_version,
    bot_get_visible,
    bot_version_get,
    bot_versions,
    may_read_internals,
    team_name,
)
from arena.matches.apis import JSONLinesRenderer, MatchOutput, log_lines
from arena.matches.models import MatchStatus
from arena.matches.selectors import ladder_logs, match_list
from arena.pagination import (
    ChallengePages,
    EndNearLimitOffset,
    LatestFirstCursor,
    LimitOffset,
    paginated_response,
)
from arena.players.selectors import signed_in

from .elo import PROVISIONAL_DEVIATION, tied_with_above
from .flows import (
    challenge_create,
    entries_set,
    ladder_create,
    version_challenge_create,
)
from .levels import levels_list
from .models import DEFAULT_SERIES_GAMES, Challenge, Entry, Ladder, Rating, Season, StandingRow
from .selectors import (
    VersionVerdict,
    bot_entries,
    bot_ratings,
    bot_season_placings,
    bot_verdicts,
    challenge_get,
    ladder_current_season,
    ladder_get,
    ladder_leaderboard,
    ladder_leaderboard_count,
    ladder_list,
    ladder_past_seasons,
    player_challenges,
    season_get,
    standing_rows,
    version_qualifications,
)
from .services import season_close
from .services.challenges import ChallengeError
from .services.entries import ladders_from_slugs
from .verdicts import VerdictKind


class LadderOutput(serializers.Serializer[Ladder]):
    class Meta:
        ref_name = "Ladder"

    slug = serializers.SlugField()
    name = serializers.CharField()
    rules = serializers.CharField(help_text="Rule system id of the engine.")
    seats = serializers.IntegerField()
    options = serializers.JSONField(help_text="Every option of the rule system, resolved.")
    time_per_decision_ms = serializers.IntegerField()
    time_bank_ms = serializers.IntegerField()
    memory_mb = serializers.IntegerField()
    duplicate_deals = serializers.BooleanField(
        help_text="Each deal's seed is played once per seat rotation by the same bots; "
        "ratings change once per deal, on the bots' money over its games."
    )
    series_games = serializers.IntegerField(
        help_text="Games a worker plays in a row with the same bots, one process per bot, "
        "seats rotating; each game is a match of its own, rated on its own. On a duplicate "
        "ladder, whole deals (series_games // seats, at least one)."
    )
    is_open = serializers.BooleanField(help_text="Closed ladders get no new matches.")
    created_at = serializers.DateTimeField()


def _ladder_or_404(slug: str) -> Ladder:
    ladder = ladder_get(slug=slug)
    if ladder is None:
        raise Http404
    return ladder


class StaffOrReadOnly(permissions.BasePermission):
    message = "only staff may create ladders: ask an administrator."

    def has_permission(self, request: Request, view: APIView) -> bool:
        if request.method in permissions.SAFE_METHODS:
            return True
        return bool(request.user.is_authenticated and request.user.is_staff)


class LadderListApi(APIView):
    pagination_class = LimitOffset
    permission_classes = (StaffOrReadOnly,)

    class InputSerializer(serializers.Serializer[None]):
        class Meta:
            ref_name = "LadderCreateInput"

        slug = serializers.SlugField(max_length=64)
        name = serializers.CharField(max_length=100)
        rules = serializers.CharField(help_text="Rule system id: python -m vegas_engine rules.")
        seats = serializers.IntegerField()
        options = serializers.DictField(
            child=serializers.JSONField(),
            required=False,
            help_text="Options left out take their defaults.",
        )
        time_per_decision_ms = serializers.IntegerField(default=1000)
        time_bank_ms = serializers.IntegerField(default=10_000)
        memory_mb = serializers.IntegerField(default=256)
        # A default, not just required=False: a form post that leaves a boolean out
        # would otherwise mean False, not "by the seats".
        duplicate_deals = serializers.BooleanField(
            default=None,
            allow_null=True,
            help_text="Play duplicate deals. Left out or null: yes on 2 seats (close bots are "
            "told apart in about 3x fewer games), no on more.",
        )
        series_games = serializers.IntegerField(
            default=DEFAULT_SERIES_GAMES,
            help_text="Games a worker plays in a row with the same bots (1-64): each bot "
            "starts once per series, not once per game.",
        )

    @extend_schema(responses=LadderOutput(many=True))
    def get(self, request: Request) -> Response:
        """Ladders with their game and limits, by game."""
        return paginated_response(
            pagination_class=self.pagination_class,
            serializer_class=LadderOutput,
            queryset=ladder_list(),
            request=request,
            view=self,
        )

    @extend_schema(request=InputSerializer, responses={201: LadderOutput})
    def post(self, request: Request) -> Response:
        """Create a ladder (staff): the engine checks its game; house bots enter it at once."""
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        # duplicate_deals left out: ladder_create decides by the seats.
        ladder = ladder_create(**serializer.validated_data)
        return Response(LadderOutput(ladder).data, status=status.HTTP_201_CREATED)


class LadderDetailApi(APIView):
    @extend_schema(responses=LadderOutput)
    def get(self, request: Request, slug: str) -> Response:
        return Response(LadderOutput(_ladder_or_404(slug)).data)


class LeaderboardApi(APIView):
    pagination_class = EndNearLimitOffset  # the schema's pages; get() gives it the count

    class OutputSerializer(serializers.Serializer[Rating]):
        class Meta:
            ref_name = "LeaderboardEntry"

        bot_id, bot, owner, team = bot_credit_fields("bot")
        version = serializers.IntegerField(source="bot_version.number")
        rating = serializers.FloatField()
        deviation = serializers.FloatField(
            help_text="The rating's standard error by the rating model, in Elo points (the "
            '"± 45" shown): it shrinks as the version plays.'
        )
        display = serializers.CharField(
            help_text='Rounded with its deviation, "?" while provisional: "1623 ± 45", '
            '"1500? ± 246".'
        )
        provisional = serializers.BooleanField(
            source="is_provisional",
            help_text=f"Its deviation is over {PROVISIONAL_DEVIATION:.0f} Elo: still settling.",
        )
        tied = serializers.SerializerMethodField(
            help_text="Tied with the rating above it in the standings: their difference is "
            "within the noise (under one standard error of the difference)."
        )
        rated_matches = serializers.IntegerField()

        def get_tied(self, rating: Rating) -> bool:
            return bool(self.context["tied"].get(rating.pk, False))

    @extend_schema(responses=OutputSerializer(many=True))
    def get(self, request: Request, slug: str) -> Response:
        """The standings: the playing version of each public bot, best first."""
        ladder = _ladder_or_404(slug)
        # As the ladder page: counted every few seconds, far pages read from the end.
        paginator = EndNearLimitOffset(count=ladder_leaderboard_count(ladder=ladder))
        rows = paginator.paginate_queryset(ladder_leaderboard(ladder=ladder), request, view=self)
        rows = rows or []
        above = None
        offset = paginator.offset or 0
        if rows and offset > 0:  # the row above the page's first
            before = ladder_leaderboard(ladder=ladder)[offset - 1 : offset]
            above = next(((r.rating, r.deviation) for r in before), None)
        ties = tied_with_above([(r.rating, r.deviation) for r in rows], above)
        context = {"tied": {row.pk: tie for row, tie in zip(rows, ties, strict=True)}}
        return paginator.get_paginated_response(
            self.OutputSerializer(rows, many=True, context=context).data  # type: ignore[arg-type]  # many=True takes a list
        )


class LadderMatchesApi(APIView):
    pagination_class = LatestFirstCursor

    @extend_schema(responses=MatchOutput(many=True))
    def get(self, request: Request, slug: str) -> Response:
        """The ladder's finished matches, latest first (cursor pages)."""
        ladder = ladder_get(slug=slug)
        if ladder is None:
            raise Http404
        return paginated_response(
            pagination_class=self.pagination_class,
            serializer_class=MatchOutput,
            queryset=match_list(
                user=request.user, ladder_id=ladder.pk, status=MatchStatus.FINISHED
            ),
            request=request,
            view=self,
        )


class LadderLogsApi(APIView):
    # Errors (404, 400) answer as JSON Lines too, or as JSON when asked for.
    renderer_classes = (JSONLinesRenderer, JSONRenderer)

    class FilterSerializer(serializers.Serializer[None]):
        finished_after = serializers.DateTimeField(
            required=False, help_text="Finished at or after (ISO 8601): resume a download."
        )
        finished_before = serializers.DateTimeField(
            required=False, help_text="Finished before (ISO 8601)."
        )

    @extend_schema(
        parameters=[FilterSerializer],
        responses={
            (200, "application/jsonl"): OpenApiResponse(
                OpenApiTypes.STR,
                description='One line per finished match, oldest first: {"match": <Match>, '
                '"log": <game log>}; other players\' stderr, notes, traces and bot seeds '
                "left out, as in a match's log.",
            )
        },
    )
    def get(self, request: Request, slug: str) -> StreamingHttpResponse:
        """Every finished match of the ladder with its log, streamed as JSON Lines."""
        ladder = ladder_get(slug=slug)
        if ladder is None:
            raise Http404
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        records = ladder_logs(ladder_id=ladder.pk, user=request.user, **filters.validated_data)
        response = StreamingHttpResponse(log_lines(records), content_type="application/jsonl")
        # Proxies (nginx) would otherwise buffer the whole stream.
        response["X-Accel-Buffering"] = "no"
        return response


# --------------------------------------------------------------------------- seasons


class SeasonOutput(serializers.Serializer[Season]):
    class Meta:
        ref_name = "Season"

    number = serializers.IntegerField()
    name = serializers.CharField()
    began = serializers.CharField(
        help_text="first (the ladder's first season), carried (ratings carried over from the "
        "season before) or reset (every rating started afresh)."
    )
    started_at = serializers.DateTimeField()
    ended_at = serializers.DateTimeField(
        allow_null=True, help_text="Null for the season running now."
    )


class StandingRowOutput(serializers.Serializer[StandingRow]):
    class Meta:
        ref_name = "StandingRow"

    position = serializers.IntegerField(help_text="Order in the table, from 1.")
    rank = serializers.IntegerField(
        allow_null=True, help_text="The place; null for a provisional rating, listed unranked."
    )
    bot_id = serializers.IntegerField(allow_null=True, help_text="Null if the bot was deleted.")
    bot = serializers.CharField(source="bot_name", help_text="Its name at the close.")
    owner = serializers.CharField(source="owner_username", help_text="At the close.")
    team = serializers.CharField(
        source="team_name",
        allow_null=True,
        help_text="The team owning the bot at the close, or null: its owner's alone.",
    )
    version = serializers.IntegerField(source="version_number", allow_null=True)
    rating = serializers.FloatField(allow_null=True)
    deviation = serializers.FloatField(
        allow_null=True,
        help_text="The rating's standard error at the close (Elo points); null in tables "
        "archived before deviations were kept.",
    )
    display = serializers.CharField(
        help_text='Rounded with its deviation, "?" while provisional: "1623 ± 45".'
    )
    games = serializers.IntegerField(help_text="Rated games (a duplicate deal counts once).")
    provisional = serializers.BooleanField()


class SeasonTableOutput(SeasonOutput):
    class Meta:
        ref_name = "SeasonTable"

    ladder = serializers.CharField(source="ladder.slug")
    standings = serializers.SerializerMethodField(
        help_text="The final table as archived at the close: later matches never change it."
    )

    @extend_schema_field(StandingRowOutput(many=True))
    def get_standings(self, season: Season) -> list[dict[str, Any]]:
        assert season.standings is not None  # a closed season's
        rows = standing_rows(standings=season.standings)
        return list(StandingRowOutput(rows, many=True).data)  # type: ignore[arg-type]  # many=True takes a queryset


class SeasonListApi(APIView):
    # Staff only closes: the service says so to anyone else (403).
    permission_classes = (permissions.IsAuthenticatedOrReadOnly,)

    class InputSerializer(serializers.Serializer[None]):
        class Meta:
            ref_name = "SeasonCloseInput"

        season = serializers.IntegerField(
            help_text="The number of the season you close (the running one's, as you read "
            "it): if another close got there first, yours is refused (409)."
        )
        next_start = serializers.CharField(
            help_text='"carry": the next season keeps every rating; "reset": every rating '
            "starts afresh (1500, provisional)."
        )
        name = serializers.CharField(
            max_length=100,
            required=False,
            allow_blank=True,
            default="",
            help_text='The new season\'s name; left out or empty: "Season N".',
        )

    @extend_schema(responses=SeasonOutput(many=True))
    def get(self, request: Request, slug: str) -> Response:
        """The ladder's seasons, latest first: the running one, then the closed ones (their
        final tables at /api/ladders/<slug>/seasons/<number>/)."""
        ladder = _ladder_or_404(slug)
        seasons = [ladder_current_season(ladder=ladder), *ladder_past_seasons(ladder=ladder)]
        return Response(SeasonOutput(seasons, many=True).data)  # type: ignore[arg-type]  # many=True takes a list

    @extend_schema(request=InputSerializer, responses={201: SeasonOutput})
    def post(self, request: Request, slug: str) -> Response:
        """Close the running season (staff): its standings are archived for good and the
        next season opens, its ratings carried over or reset."""
        ladder = _ladder_or_404(slug)
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        following = season_close(
            ladder=ladder,
            next_start=data["next_start"],
            by=signed_in(request),
            season=data["season"],
            name=data["name"],
        )
        return Response(SeasonOutput(following).data, status=status.HTTP_201_CREATED)


class SeasonDetailApi(APIView):
    @extend_schema(responses=SeasonTableOutput)
    def get(self, request: Request, slug: str, number: int) -> Response:
        """A closed season with its final table, as archived."""
        season = season_get(ladder=_ladder_or_404(slug), number=number)
        if season is None:
            raise Http404
        return Response(SeasonTableOutput(season).data)


class BotPlacingOutput(serializers.Serializer[StandingRow]):
    class Meta:
        ref_name = "BotSeasonPlacing"

    ladder = serializers.CharField(source="standings.season.ladder.slug")
    season = serializers.IntegerField(source="standings.season.number")
    season_name = serializers.CharField(source="standings.season.name")
    ended_at = serializers.DateTimeField(source="standings.season.ended_at")
    rank = serializers.IntegerField(allow_null=True, help_text="Null: provisional, unranked.")
    version = serializers.IntegerField(source="version_number", allow_null=True)
    rating = serializers.FloatField(allow_null=True)
    deviation = serializers.FloatField(allow_null=True, help_text="Its standard error (Elo).")
    games = serializers.IntegerField()


class BotPlacingsApi(APIView):
    @extend_schema(responses=BotPlacingOutput(many=True))
    def get(self, request: Request, bot_id: int) -> Response:
        """The bot's places in the final tables of closed ladder seasons, latest first."""
        bot = visible_bot(self, request, bot_id)
        return Response(BotPlacingOutput(bot_season_placings(bot=bot), many=True).data)  # type: ignore[arg-type]  # many=True takes a queryset


# --------------------------------------------------------------------------- entries


class BotEntriesApi(APIView):
    permission_classes = (permissions.IsAuthenticatedOrReadOnly, IsOwnerOrReadOnly)

    class InputSerializer(serializers.Serializer[None]):
        class Meta:
            ref_name = "BotEntriesInput"

        ladders = serializers.ListField(
            child=serializers.SlugField(), allow_empty=False, help_text="Slugs of the ladders."
        )

    class OutputSerializer(serializers.Serializer[Entry]):
        class Meta:
            ref_name = "BotEntry"

        ladder = serializers.CharField(source="ladder.slug")
        rules = serializers.CharField(source="ladder.rules")
        seats = serializers.IntegerField(source="ladder.seats")
        entered_at = serializers.DateTimeField(source="created_at")
        preflight = serializers.SerializerMethodField(
            help_text="The playing version's pre-flight there: pending, passed or failed "
            "(null without a playing version); its owner also sees the seed and report."
        )

        @extend_schema_field(serializers.JSONField(allow_null=True))
        def get_preflight(self, entry: Entry) -> dict[str, Any] | None:
            qualification = self.context["qualifications"].get(entry.ladder_id)
            if qualification is None:
                return None
            shown: dict[str, Any] = {"status": qualification.status}
            if self.context["internals"]:
                shown |= {"seed": qualification.seed, "report": qualification.report}
            return shown

    def _answer(self, request: Request, bot: Bot) -> Response:
        version = bot_active_version(bot=bot)
        context = {
            "qualifications": {} if version is None else version_qualifications(version=version),
            "internals": may_read_internals(request.user, bot),
        }
        entries = bot_entries(bot=bot)
        return Response(self.OutputSerializer(entries, many=True, context=context).data)  # type: ignore[arg-type]  # many=True takes a queryset

    @extend_schema(responses=OutputSerializer(many=True))
    def get(self, request: Request, bot_id: int) -> Response:
        """The ladders the bot entered, with its playing version's pre-flight on each."""
        return self._answer(request, visible_bot(self, request, bot_id))

    @extend_schema(request=InputSerializer, responses=OutputSerializer(many=True))
    def put(self, request: Request, bot_id: int) -> Response:
        """Enter your bot on exactly these ladders (its versions' pre-flights there are queued)."""
        bot = visible_bot(self, request, bot_id)
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        entries_set(bot=bot, ladders=ladders_from_slugs(serializer.validated_data["ladders"]))
        return self._answer(request, bot)


class VerdictOutput(serializers.Serializer[VersionVerdict]):
    class Meta:
        ref_name = "VersionVerdict"

    ladder = serializers.CharField(source="ladder.slug")
    version = serializers.IntegerField(source="version.number")
    parent_version = serializers.IntegerField(
        source="parent.number", help_text="The number of the version it replaced."
    )
    kind = serializers.ChoiceField(
        choices=[kind.value for kind in VerdictKind],
        source="verdict.kind.value",
        help_text="better or worse: by at least one standard error; level: within one; "
        "too_few: either version has under 10 games (or deals) there.",
    )
    summary = serializers.CharField(
        source="verdict.summary",
        help_text='As the bot page says it: "+35 ± 20 Elo, 96% likely better".',
    )
    difference = serializers.FloatField(
        source="verdict.difference", help_text="Version's strength less its parent's, in Elo."
    )
    error = serializers.FloatField(
        source="verdict.error", help_text="One standard error of the difference, in Elo."
    )
    chance_better = serializers.FloatField(
        source="verdict.chance_better", help_text="The chance the version is the stronger."
    )
    version_elo = serializers.FloatField(source="verdict.version")
    parent_elo = serializers.FloatField(source="verdict.parent")
    version_games = serializers.IntegerField(
        source="verdict.version_units",
        help_text="Its rated games (or duplicate deals) there and its challenge ones against "
        "the parent.",
    )
    parent_games = serializers.IntegerField(source="verdict.parent_units")
    challengeable = serializers.BooleanField(
        help_text="Both passed the ladder's pre-flight: the owner may challenge one with the other."
    )


class BotVerdictsApi(APIView):
    permission_classes = (permissions.IsAuthenticatedOrReadOnly,)

    @extend_schema(responses=VerdictOutput(many=True))
    def get(self, request: Request, bot_id: int) -> Response:
        """Each version of the bot against its parent, on each ladder where either is rated or
        they met in a challenge: how much stronger (± one standard error, Elo) and the
        chance it is better, by the ladder's rating model. Newest version first."""
        bot = visible_bot(self, request, bot_id)
        verdicts = bot_verdicts(
            versions=list(bot_versions(bot=bot)), ratings=list(bot_ratings(bot=bot))
        )
        return Response(VerdictOutput(verdicts, many=True).data)  # type: ignore[arg-type]  # many=True takes a list


# --------------------------------------------------------------------------- challenges


class ChallengeVersionOutput(serializers.Serializer[BotVersion]):
    class Meta:
        ref_name = "ChallengeVersion"

    bot_id, bot, owner, team = bot_credit_fields("bot")
    number = serializers.IntegerField()


class ChallengeOutput(serializers.Serializer[Challenge]):
    class Meta:
        ref_name = "Challenge"

    id = serializers.IntegerField()
    ladder = serializers.CharField(source="ladder.slug")
    bot_id, bot, owner, team = bot_credit_fields("bot_version.bot")
    version = serializers.IntegerField(source="bot_version.number")
    games = serializers.IntegerField()
    chosen = serializers.SerializerMethodField(help_text="Ids of the opponents you chose.")
    opponent_versions = serializers.SerializerMethodField(
        help_text="The versions you chose to meet as they are (e.g. your version's parent)."
    )
    matches = MatchOutput(many=True, help_text="Unrated; each with its status and seats.")
    created_at = serializers.DateTimeField()

    def get_chosen(self, challenge: Challenge) -> list[int]:
        return [bot.pk for bot in challenge.chosen.all()]

    @extend_schema_field(ChallengeVersionOutput(many=True))
    def get_opponent_versions(self, challenge: Challenge) -> list[dict[str, Any]]:
        versions = challenge.opponent_versions.all()
        return list(ChallengeVersionOutput(versions, many=True).data)  # type: ignore[arg-type]  # many=True takes a queryset


class ChallengeListApi(APIView):
    pagination_class = ChallengePages
    permission_classes = (permissions.IsAuthenticated,)

    class InputSerializer(serializers.Serializer[None]):
        class Meta:
            ref_name = "ChallengeInput"

        bot = serializers.IntegerField(help_text="Id of your bot (public or private).")
        ladder = serializers.SlugField(help_text="The ladder whose game is played.")
        opponents = serializers.ListField(
            child=serializers.IntegerField(),
            required=False,
            default=list,
            help_text="Ids of bots to meet; random players of the ladder fill the other seats.",
        )
        games = serializers.IntegerField(
            required=False,
            help_text="Matches to play: 1 by default; in a version challenge, the ladder's "
            "series within the maximum, in whole duplicate deals where the ladder deals them.",
        )
        version = serializers.IntegerField(
            required=False,
            help_text="A version challenge: the number of your bot's version that plays "
            "(default: its playing version), against opponent_version.",
        )
        opponent_version = serializers.IntegerField(
            required=False,
            help_text="A version challenge: the number of another version of your bot to meet "
            "as it is, even retired (default: the nearest earlier version that passed the "
            "ladder's pre-flight, usually the parent). Not with opponents.",
        )

    @extend_schema(responses=ChallengeOutput(many=True))
    def get(self, request: Request) -> Response:
        """Your challenges, newest first, with their matches."""
        return paginated_response(
            pagination_class=self.pagination_class,
            serializer_class=ChallengeOutput,
            queryset=player_challenges(user=signed_in(request)),
            request=request,
            view=self,
        )

    @extend_schema(request=InputSerializer, responses={201: ChallengeOutput})
    def post(self, request: Request) -> Response:
        """Ask for unrated matches of your bot on a ladder's game (limited per hour)."""
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        bot = bot_get_visible(bot_id=data["bot"], user=request.user)
        if bot is None:
            raise Http404
        ladder = _ladder_or_404(data["ladder"])
        if "version" in data or "opponent_version" in data:
            challenge = self._version_challenge(request, bot, ladder, data)
        else:
            challenge = self._bot_challenge(request, bot, ladder, data)
        found = challenge_get(user=signed_in(request), challenge_id=challenge.pk)
        return Response(ChallengeOutput(found).data, status=status.HTTP_201_CREATED)

    @staticmethod
    def _bot_challenge(request: Request, bot: Bot, ladder: Ladder, data: Any) -> Challenge:
        opponents = []
        for bot_id in data["opponents"]:
            opponent = bot_get_visible(bot_id=bot_id, user=request.user)
            if opponent is None:
                raise ChallengeError(f"no bot {bot_id}: choose among the bots you can see.")
            opponents.append(opponent)
        return challenge_create(
            user=signed_in(request),
            bot=bot,
            ladder=ladder,
            opponents=opponents,
            games=data.get("games", 1),
        )

    @staticmethod
    def _version_challenge(request: Request, bot: Bot, ladder: Ladder, data: Any) -> Challenge:
        if data["opponents"]:
            raise ChallengeError(
                "a version challenge meets a version of your bot: send opponent_version or "
                "opponents (bots), not both."
            )

        def numbered(number: int) -> BotVersion:
            version = bot_version_get(bot=bot, number=number)
            if version is None:
                raise ChallengeError(f"{bot.name} has no version {number}.")
            return version

        if "version" in data:
            version: BotVersion | None = numbered(data["version"])
        else:
            version = bot_active_version(bot=bot)
        if version is None:
            raise ChallengeError(
                f"{bot.name} has no playing version: name the version to play (version)."
            )
        opponent = numbered(data["opponent_version"]) if "opponent_version" in data else None
        return version_challenge_create(
            user=signed_in(request),
            version=version,
            ladder=ladder,
            opponent=opponent,
            games=data.get("games"),
        )


class ChallengeDetailApi(APIView):
    permission_classes = (permissions.IsAuthenticated,)

    @extend_schema(responses=ChallengeOutput)
    def get(self, request: Request, challenge_id: int) -> Response:
        """One of your challenges: its matches' results (logs at /api/matches/<id>/log/)."""
        challenge = challenge_get(user=signed_in(request), challenge_id=challenge_id)
        if challenge is None:
            raise Http404
        return Response(ChallengeOutput(challenge).data)


class LevelOutput(serializers.Serializer[None]):
    number = serializers.IntegerField(help_text="1 is the weakest.")
    title = serializers.CharField()
    description = serializers.CharField()
    name = serializers.CharField(help_text="The house bot's name.")
    bot = serializers.IntegerField(
        allow_null=True,
        help_text="The house bot's id: pass it among a challenge's opponents. Null until "
        "the house bots are loaded.",
    )
    owner = serializers.CharField(
        allow_null=True, help_text="The house account's username; null until loaded."
    )
    team = serializers.CharField(
        allow_null=True, help_text="The team owning the house bot, or null (as for any bot)."
    )


class LevelListApi(APIView):
    @extend_schema(responses=LevelOutput(many=True))
    def get(self, request: Request) -> Response:
        """The levels, weakest first: the house bots to climb (docs/ladders.md, Levels)."""
        rows = [
            {
                "number": row.level.number,
                "title": row.level.title,
                "description": row.level.description,
                "name": row.level.bot,
                "bot": row.bot.pk if row.bot else None,
                "owner": row.bot.owner.username if row.bot else None,
                "team": team_name(row.bot) if row.bot else None,
            }
            for row in levels_list()
        ]
        return Response(rows)
