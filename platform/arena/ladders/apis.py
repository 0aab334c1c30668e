"""HTTP API of ladders: the list, one ladder, and its leaderboard (open to everyone)."""

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
    is_open = serializers.BooleanField(help_text="Closed ladders get no new matches.")
    created_at = serializers.DateTimeField()


def _ladder_or_404(slug: str) -> Ladder:
    ladder = ladder_get(slug=slug)
    if ladder is None:
        raise Http404
    return ladder


class LadderListApi(APIView):
    pagination_class = LimitOffset

    @extend_schema(responses=LadderOutput(many=True))
    def get(self, request: Request) -> Response:
        """Ladders with their game and limits, by name."""
        return paginated_response(
            pagination_class=self.pagination_class,
            serializer_class=LadderOutput,
            queryset=ladder_list(),
            request=request,
            view=self,
        )


class LadderDetailApi(APIView):
    @extend_schema(responses=LadderOutput)
    def get(self, request: Request, slug: str) -> Response:
        return Response(LadderOutput(_ladder_or_404(slug)).data)


class LeaderboardApi(APIView):
    pagination_class = LimitOffset

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
        """The standings: the playing version of each public bot, best first."""
        return paginated_response(
            pagination_class=self.pagination_class,
            serializer_class=self.OutputSerializer,
            queryset=ladder_leaderboard(ladder=_ladder_or_404(slug)),
            request=request,
            view=self,
        )
