"""HTTP API of ladders: the list and each ladder's leaderboard."""

from __future__ import annotations

from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.pagination import LimitOffset, paginated_response

from .models import Ladder, Rating
from .selectors import ladder_get, ladder_leaderboard, ladder_list


class LadderListApi(APIView):
    class OutputSerializer(serializers.Serializer[Ladder]):
        class Meta:
            ref_name = "Ladder"

        slug = serializers.SlugField()
        name = serializers.CharField()
        rules = serializers.CharField()
        seats = serializers.IntegerField()
        options = serializers.JSONField()
        time_per_decision_ms = serializers.IntegerField()
        time_bank_ms = serializers.IntegerField()
        memory_mb = serializers.IntegerField()
        is_open = serializers.BooleanField()

    @extend_schema(responses=OutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        return Response(self.OutputSerializer(ladder_list(), many=True).data)


class LeaderboardApi(APIView):
    class OutputSerializer(serializers.Serializer[Rating]):
        class Meta:
            ref_name = "LeaderboardEntry"

        bot_id = serializers.IntegerField(source="bot.id")
        bot = serializers.CharField(source="bot.name")
        owner = serializers.CharField(source="bot.owner.username")
        version = serializers.IntegerField(source="bot_version.number")
        rating = serializers.FloatField()
        display = serializers.CharField(help_text='Rounded, with "?" while provisional.')
        provisional = serializers.BooleanField(source="is_provisional")
        rated_matches = serializers.IntegerField()

    @extend_schema(responses=OutputSerializer(many=True))
    def get(self, request: Request, slug: str) -> Response:
        ladder = ladder_get(slug=slug)
        if ladder is None:
            raise Http404
        return paginated_response(
            pagination_class=LimitOffset,
            serializer_class=self.OutputSerializer,
            queryset=ladder_leaderboard(ladder=ladder),
            request=request,
            view=self,
        )
