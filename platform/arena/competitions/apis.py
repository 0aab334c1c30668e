"""HTTP API of competitions: create, read, enter and withdraw, cancel, renew the
invitation link, advance now (staff).

Anyone reads a competition (invitation-only ones too: entering needs the link's
token); its organiser and staff also see the token. Writes need a signed-in player.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.bots.fields import bot_credit_fields
from arena.bots.models import Bot
from arena.bots.selectors import bot_get_visible
from arena.leagues.models import LeagueFormat
from arena.pagination import LimitOffset, paginated_response
from arena.players.selectors import signed_in

from .flows import competition_enter
from .models import (
    Access,
    Competition,
    CompetitionEntry,
    CompetitionLadder,
    CompetitionPlacing,
    Phase,
)
from .selectors import (
    competition_entries,
    competition_get,
    competition_ladders,
    competition_placings,
    competitions_list,
    next_step,
)
from .services import (
    CompetitionEntryError,
    LadderSettings,
    competition_advance,
    competition_cancel,
    competition_create,
    competition_invitation_renew,
    competition_withdraw,
    may_manage,
)


class LadderOutput(serializers.Serializer[CompetitionLadder]):
    class Meta:
        ref_name = "CompetitionLadder"

    ladder = serializers.CharField(source="ladder.slug", help_text="See /api/ladders/<slug>/.")
    rules = serializers.CharField(source="ladder.rules")
    seats = serializers.IntegerField(source="ladder.seats")
    options = serializers.DictField(source="ladder.options")
    league = serializers.CharField(
        source="league.slug",
        allow_null=True,
        default=None,
        help_text="The final event, from the freeze: see /api/leagues/<slug>/.",
    )
    note = serializers.CharField(help_text="Why it has no final event, if so.")


class EntryOutput(serializers.Serializer[CompetitionEntry]):
    class Meta:
        ref_name = "CompetitionEntry"

    bot_id, bot, owner, team = bot_credit_fields("bot")
    rules = serializers.CharField(source="ladder.ladder.rules")
    status = serializers.CharField()
    frozen_version = serializers.IntegerField(
        source="frozen_version.number",
        allow_null=True,
        default=None,
        help_text="Fixed at the submission freeze: the version its final event plays.",
    )
    note = serializers.CharField()
    created_at = serializers.DateTimeField()


class PlacingOutput(serializers.Serializer[CompetitionPlacing]):
    class Meta:
        ref_name = "CompetitionPlacing"

    rules = serializers.CharField(source="ladder.ladder.rules")
    rank = serializers.IntegerField()
    bot_id = serializers.IntegerField(allow_null=True)
    bot = serializers.CharField(source="bot_name", help_text="As it was named at the end.")
    owner = serializers.CharField(source="owner_username")
    team = serializers.CharField(
        source="team_name",
        allow_null=True,
        help_text="The team owning the bot at the end, or null: its owner's alone.",
    )
    version = serializers.IntegerField(source="version_number", allow_null=True)
    points = serializers.FloatField()
    money = serializers.IntegerField()
    games = serializers.IntegerField()
    wins = serializers.IntegerField()


class NextOutput(serializers.Serializer[Any]):
    what = serializers.CharField()
    at = serializers.DateTimeField()


class CompetitionOutput(serializers.Serializer[Competition]):
    class Meta:
        ref_name = "Competition"

    slug = serializers.SlugField()
    title = serializers.CharField()
    description = serializers.CharField(help_text="Markdown.")
    organiser = serializers.CharField(source="organiser.username")
    access = serializers.ChoiceField(choices=Access.choices)
    phase = serializers.ChoiceField(choices=Phase.choices)
    entry_opens_at = serializers.DateTimeField()
    entry_closes_at = serializers.DateTimeField()
    freeze_at = serializers.DateTimeField()
    final_starts_at = serializers.DateTimeField()
    final_format = serializers.ChoiceField(choices=LeagueFormat.choices)
    games_per_table = serializers.IntegerField()
    duplicate = serializers.BooleanField()
    advance = serializers.IntegerField(allow_null=True)
    rounds = serializers.IntegerField(allow_null=True)
    round_interval = serializers.DurationField()
    note = serializers.CharField()
    archived_at = serializers.DateTimeField(allow_null=True)


class CompetitionDetailOutput(CompetitionOutput):
    class Meta:
        ref_name = "CompetitionDetail"

    next = NextOutput(allow_null=True, help_text="The calendar's next step, for a countdown.")
    invitation_token = serializers.CharField(
        allow_null=True, help_text="Shown to the organiser and staff only."
    )
    ladders = LadderOutput(many=True)
    entries = EntryOutput(many=True)
    placings = PlacingOutput(many=True, help_text="Archived final standings, rank by rank.")


def _detail(request: Request, competition: Competition) -> dict[str, Any]:
    step = next_step(competition=competition)
    manager = may_manage(request.user, competition)
    data = {
        **CompetitionOutput(competition).data,
        "next": {"what": step.what, "at": step.at} if step else None,
        "invitation_token": competition.invitation_token if manager else None,
        "ladders": LadderOutput(competition_ladders(competition=competition), many=True).data,  # type: ignore[arg-type]  # many=True takes a list
        "entries": EntryOutput(competition_entries(competition=competition), many=True).data,  # type: ignore[arg-type]  # many=True takes a queryset
        "placings": PlacingOutput(competition_placings(competition=competition), many=True).data,  # type: ignore[arg-type]
    }
    if data["next"] is not None:
        data["next"] = NextOutput(data["next"]).data
    return data


def _competition_or_404(slug: str) -> Competition:
    competition = competition_get(slug=slug)
    if competition is None:
        raise Http404
    return competition


def _bot_or_error(request: Request, bot_id: int) -> Bot:
    bot = bot_get_visible(bot_id=bot_id, user=request.user)
    if bot is None:
        raise CompetitionEntryError(f"no bot with id {bot_id} that you can see.")
    return bot


class LadderInput(serializers.Serializer[None]):
    class Meta:
        ref_name = "CompetitionLadderInput"

    rules = serializers.CharField(help_text="Rule system id of the engine, e.g. classic.")
    seats = serializers.IntegerField(min_value=2)
    options = serializers.DictField(required=False, default=dict)
    time_per_decision_ms = serializers.IntegerField(default=1000)
    time_bank_ms = serializers.IntegerField(default=10_000)
    memory_mb = serializers.IntegerField(default=256)
    duplicate_deals = serializers.BooleanField(
        required=False, allow_null=True, default=None, help_text="Default: yes on two seats."
    )


class CompetitionListApi(APIView):
    class InputSerializer(serializers.Serializer[None]):
        class Meta:
            ref_name = "CompetitionCreateInput"

        slug = serializers.SlugField(max_length=48)
        title = serializers.CharField(max_length=100)
        description = serializers.CharField(required=False, default="", allow_blank=True)
        ladders = LadderInput(many=True, help_text="One per rule system, each its own ladder.")
        entry_opens_at = serializers.DateTimeField()
        entry_closes_at = serializers.DateTimeField()
        freeze_at = serializers.DateTimeField()
        final_starts_at = serializers.DateTimeField()
        final_format = serializers.ChoiceField(choices=LeagueFormat.choices)
        games_per_table = serializers.IntegerField(required=False, help_text="Default: seats.")
        duplicate = serializers.BooleanField(
            required=False, allow_null=True, default=None, help_text="Default: the ladder's."
        )
        advance = serializers.IntegerField(required=False, help_text="Knockout: top k go through.")
        rounds = serializers.IntegerField(required=False, help_text="Swiss rounds.")
        round_interval = serializers.DurationField(required=False, help_text='e.g. "01:00:00".')
        access = serializers.ChoiceField(choices=Access.choices, default=Access.PUBLIC)

    @extend_schema(responses=CompetitionOutput(many=True))
    def get(self, request: Request) -> Response:
        """Every competition, newest first."""
        return paginated_response(
            pagination_class=LimitOffset,
            serializer_class=CompetitionOutput,
            queryset=competitions_list(),
            request=request,
            view=self,
        )

    @extend_schema(request=InputSerializer, responses={201: CompetitionDetailOutput})
    def post(self, request: Request) -> Response:
        """Create a competition (staff, or anyone signed in when the platform allows)."""
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data: dict[str, Any] = dict(serializer.validated_data)
        ladders = [LadderSettings(**ladder) for ladder in data.pop("ladders")]
        competition = competition_create(organiser=signed_in(request), ladders=ladders, **data)
        return Response(_detail(request, competition), status=status.HTTP_201_CREATED)


class CompetitionDetailApi(APIView):
    @extend_schema(responses=CompetitionDetailOutput)
    def get(self, request: Request, slug: str) -> Response:
        """A competition with its ladders, entrants, next step and archived placings."""
        return Response(_detail(request, _competition_or_404(slug)))


class CompetitionEntriesApi(APIView):
    class InputSerializer(serializers.Serializer[None]):
        class Meta:
            ref_name = "CompetitionEnterInput"

        bot = serializers.IntegerField(help_text="Your bot's id.")
        token = serializers.CharField(
            required=False, allow_blank=True, help_text="The invitation link's token, if needed."
        )
        rules = serializers.CharField(
            required=False,
            help_text="The rule system it enters in: needed only when the competition has "
            "several and the bot is not rated in just one of them.",
        )

    @extend_schema(request=InputSerializer, responses={201: EntryOutput})
    def post(self, request: Request, slug: str) -> Response:
        """Enter your bot while entry is open; it joins the ladder of its rule system."""
        competition = _competition_or_404(slug)
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        bot = _bot_or_error(request, serializer.validated_data["bot"])
        entry = competition_enter(
            competition=competition,
            bot=bot,
            by=signed_in(request),
            token=serializer.validated_data.get("token") or None,
            rules=serializer.validated_data.get("rules"),
        )
        entry = competition_entries(competition=competition).get(pk=entry.pk)
        return Response(EntryOutput(entry).data, status=status.HTTP_201_CREATED)


class CompetitionEntryDetailApi(APIView):
    @extend_schema(request=None, responses={204: None})
    def delete(self, request: Request, slug: str, bot_id: int) -> Response:
        """Withdraw a bot before the freeze (its owner, the organiser or staff)."""
        competition = _competition_or_404(slug)
        entry = competition.entries.select_related("bot").filter(bot_id=bot_id).first()
        if entry is None:
            raise CompetitionEntryError(
                f"no bot with id {bot_id} is entered in {competition}: "
                f"see GET /api/competitions/{competition.slug}/."
            )
        competition_withdraw(competition=competition, bot=entry.bot, by=signed_in(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class CompetitionCancelApi(APIView):
    class InputSerializer(serializers.Serializer[None]):
        class Meta:
            ref_name = "CompetitionCancelInput"

        reason = serializers.CharField(required=False, default="", allow_blank=True, max_length=500)

    @extend_schema(request=InputSerializer, responses=CompetitionDetailOutput)
    def post(self, request: Request, slug: str) -> Response:
        """Stop for good (organiser or staff): final events cancelled, results kept."""
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        competition = competition_cancel(
            competition=_competition_or_404(slug),
            by=signed_in(request),
            reason=serializer.validated_data["reason"],
        )
        return Response(_detail(request, competition))


class CompetitionInvitationApi(APIView):
    @extend_schema(request=None, responses=CompetitionDetailOutput)
    def post(self, request: Request, slug: str) -> Response:
        """A new invitation token (organiser or staff): the old link stops working."""
        competition = competition_invitation_renew(
            competition=_competition_or_404(slug), by=signed_in(request)
        )
        return Response(_detail(request, competition))


class CompetitionAdvanceApi(APIView):
    @extend_schema(request=None, responses=CompetitionDetailOutput)
    def post(self, request: Request, slug: str) -> Response:
        """Staff: move through every phase due now rather than at the next sweep."""
        if not signed_in(request).is_staff:
            raise PermissionDenied("only staff advance a competition by hand.")
        competition = competition_advance(competition=_competition_or_404(slug))
        return Response(_detail(request, competition))
