"""HTTP API of matches: one match, and a ladder's latest results."""

from __future__ import annotations

from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.ladders.selectors import ladder_get
from arena.pagination import LatestFirstCursor, paginated_response

from .models import Match, Participant
from .selectors import ladder_recent_matches, match_get


class ParticipantOutput(serializers.Serializer[Participant]):
    seat = serializers.IntegerField()
    bot_id = serializers.IntegerField(source="bot_version.bot.id")
    bot = serializers.CharField(source="bot_version.bot.name")
    version = serializers.IntegerField(source="bot_version.number")
    money = serializers.IntegerField(allow_null=True)
    rank = serializers.IntegerField(allow_null=True)
    forfeit = serializers.CharField()
    rating_before = serializers.FloatField(allow_null=True)
    rating_after = serializers.FloatField(allow_null=True)


class MatchOutput(serializers.Serializer[Match]):
    id = serializers.IntegerField()
    ladder = serializers.CharField(source="ladder.slug")
    seed = serializers.IntegerField()
    status = serializers.CharField()
    attempts = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    rated = serializers.SerializerMethodField()
    participants = ParticipantOutput(many=True)

    def get_rated(self, match: Match) -> bool:
        return match.rated_at is not None


class MatchDetailApi(APIView):
    @extend_schema(responses=MatchOutput)
    def get(self, request: Request, match_id: int) -> Response:
        match = match_get(match_id=match_id)
        if match is None:
            raise Http404
        return Response(MatchOutput(match).data)


class LadderMatchesApi(APIView):
    @extend_schema(responses=MatchOutput(many=True))
    def get(self, request: Request, slug: str) -> Response:
        ladder = ladder_get(slug=slug)
        if ladder is None:
            raise Http404
        return paginated_response(
            pagination_class=LatestFirstCursor,
            serializer_class=MatchOutput,
            queryset=ladder_recent_matches(ladder=ladder).select_related("ladder"),
            request=request,
            view=self,
        )
