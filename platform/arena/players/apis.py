"""HTTP API of players: API tokens for scripts; your account and its e-mail verification;
teams (docs/teams.md)."""

from __future__ import annotations

from django.http import Http404
from django.urls import reverse
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import permissions, serializers, status
from rest_framework.authtoken.models import Token
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.pagination import LimitOffset, paginated_response
from arena.throttling import EmailVerifyThrottle, LoginThrottle

from .flows import email_verification_request
from .models import Team, TeamMembership, TeamRole, User
from .selectors import (
    email_verified,
    player_get,
    signed_in,
    team_get,
    team_list,
    team_may_administer,
    team_members,
    team_role,
    user_teams,
)
from .services import (
    auth_token_obtain,
    auth_token_revoke,
    team_create,
    team_invite_expires_at,
    team_invite_regenerate,
    team_join,
    team_leave,
    team_member_remove,
    team_member_set_role,
)


class AuthTokenApi(APIView):
    """Exchange your username and password for a token; send it as
    ``Authorization: Token <token>``."""

    # No session here: a token request needs no CSRF token and sets no cookie.
    authentication_classes = ()
    permission_classes = (permissions.AllowAny,)
    parser_classes = (JSONParser, FormParser, MultiPartParser)
    # Per address; failures per username and address also lock out (django-axes).
    throttle_classes = (LoginThrottle,)
    throttle_scope = "login"

    class InputSerializer(serializers.Serializer[None]):
        class Meta:
            ref_name = "AuthTokenInput"

        username = serializers.CharField()
        password = serializers.CharField(style={"input_type": "password"}, trim_whitespace=False)

    class OutputSerializer(serializers.Serializer[Token]):
        class Meta:
            ref_name = "AuthToken"

        token = serializers.CharField(source="key")
        username = serializers.CharField(source="user.username")

    @extend_schema(request=InputSerializer, responses={200: OutputSerializer})
    def post(self, request: Request) -> Response:
        """Your API token (the same one until you revoke it)."""
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        token = auth_token_obtain(request=request._request, **serializer.validated_data)
        return Response(self.OutputSerializer(token).data)


class AuthTokenRevokeApi(APIView):
    permission_classes = (permissions.IsAuthenticated,)

    @extend_schema(request=None, responses={204: None})
    def post(self, request: Request) -> Response:
        """Revoke your API token; the next token request makes a new one."""
        auth_token_revoke(user=signed_in(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


# --------------------------------------------------------------------------- account


class AccountOutput(serializers.Serializer[User]):
    class Meta:
        ref_name = "Account"

    username = serializers.CharField()
    email = serializers.CharField(help_text="Where notifications are e-mailed; empty: none.")
    email_verified = serializers.SerializerMethodField(
        help_text="Whether a verification link proved the address yours: only a verified "
        "address is e-mailed."
    )
    email_verified_at = serializers.SerializerMethodField()

    def get_email_verified(self, user: User) -> bool:
        return email_verified(user)

    @extend_schema_field(serializers.DateTimeField(allow_null=True))
    def get_email_verified_at(self, user: User) -> str | None:
        if not email_verified(user) or user.email_verified_at is None:
            return None
        return serializers.DateTimeField().to_representation(user.email_verified_at)


class AccountApi(APIView):
    permission_classes = (permissions.IsAuthenticated,)

    @extend_schema(responses=AccountOutput)
    def get(self, request: Request) -> Response:
        """Your account: username, e-mail address and whether it is verified."""
        return Response(AccountOutput(signed_in(request)).data)


class EmailVerificationApi(APIView):
    permission_classes = (permissions.IsAuthenticated,)
    throttle_classes = (EmailVerifyThrottle,)

    @extend_schema(request=None, responses={202: AccountOutput})
    def post(self, request: Request) -> Response:
        """E-mail a verification link to your address (limited per hour); following it
        verifies the address."""
        user = signed_in(request)
        email_verification_request(user=user)
        return Response(AccountOutput(user).data, status=status.HTTP_202_ACCEPTED)


# --------------------------------------------------------------------------- teams


def _team(team_id: int) -> Team:
    team = team_get(team_id=team_id)
    if team is None:
        raise Http404
    return team


def invite_url(request: Request, team: Team) -> str:
    """The team's invitation link: its join page, which needs a login."""
    return request.build_absolute_uri(reverse("web:team-join", args=[team.invite_token]))


class MemberOutput(serializers.ModelSerializer[TeamMembership]):
    username = serializers.CharField(source="user.username")

    class Meta:
        model = TeamMembership
        ref_name = "TeamMember"
        fields = ("username", "role", "joined_at")


class TeamOutput(serializers.Serializer[Team]):
    class Meta:
        ref_name = "Team"

    id = serializers.IntegerField()
    name = serializers.CharField()
    description = serializers.CharField()
    created_at = serializers.DateTimeField()


class TeamDetailOutput(TeamOutput):
    class Meta:
        ref_name = "TeamDetail"

    members = serializers.SerializerMethodField()
    your_role = serializers.SerializerMethodField(help_text="Yours in the team; null if none.")
    invite_url = serializers.SerializerMethodField(
        help_text="The invitation link; null unless you are an owner of the team."
    )
    invite_expires_at = serializers.SerializerMethodField(
        help_text="When the link stops working; null unless you are an owner of the team."
    )

    @extend_schema_field(MemberOutput(many=True))
    def get_members(self, team: Team) -> list[dict[str, object]]:
        return list(MemberOutput(team_members(team=team), many=True).data)

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_your_role(self, team: Team) -> str | None:
        return team_role(team=team, user=self.context["request"].user)

    @extend_schema_field(serializers.URLField(allow_null=True))
    def get_invite_url(self, team: Team) -> str | None:
        request = self.context["request"]
        if not team_may_administer(team=team, user=request.user):
            return None
        return invite_url(request, team)

    @extend_schema_field(serializers.DateTimeField(allow_null=True))
    def get_invite_expires_at(self, team: Team) -> str | None:
        if not team_may_administer(team=team, user=self.context["request"].user):
            return None
        return serializers.DateTimeField().to_representation(team_invite_expires_at(team))


def team_detail(request: Request, team: Team, code: int = status.HTTP_200_OK) -> Response:
    return Response(TeamDetailOutput(team, context={"request": request}).data, status=code)


class TeamListApi(APIView):
    pagination_class = LimitOffset
    permission_classes = (permissions.IsAuthenticatedOrReadOnly,)
    parser_classes = (JSONParser, FormParser, MultiPartParser)

    class FilterSerializer(serializers.Serializer[None]):
        mine = serializers.BooleanField(
            required=False, default=False, help_text="Only the teams you are a member of."
        )

    class InputSerializer(serializers.Serializer[None]):
        class Meta:
            ref_name = "TeamCreateInput"

        name = serializers.CharField(max_length=40)
        description = serializers.CharField(max_length=2000, required=False, allow_blank=True)

    @extend_schema(parameters=[FilterSerializer], responses=TeamOutput(many=True))
    def get(self, request: Request) -> Response:
        """Teams, by name (their names are public: they show on their bots)."""
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        mine = filters.validated_data["mine"] and request.user.is_authenticated
        teams = user_teams(user=signed_in(request)) if mine else team_list()
        return paginated_response(
            pagination_class=self.pagination_class,
            serializer_class=TeamOutput,
            queryset=teams,
            request=request,
            view=self,
        )

    @extend_schema(request=InputSerializer, responses={201: TeamDetailOutput})
    def post(self, request: Request) -> Response:
        """Create a team; you are its first owner. Its bots are shown as the team's."""
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        team = team_create(user=signed_in(request), **serializer.validated_data)
        return team_detail(request, team, status.HTTP_201_CREATED)


class TeamDetailApi(APIView):
    permission_classes = (permissions.AllowAny,)

    @extend_schema(responses=TeamDetailOutput)
    def get(self, request: Request, team_id: int) -> Response:
        """A team and its members (its bots: ``GET /api/bots/?team=<id>``); its owners also
        get the invitation link."""
        return team_detail(request, _team(team_id))


class TeamInviteApi(APIView):
    permission_classes = (permissions.IsAuthenticated,)

    @extend_schema(request=None, responses=TeamDetailOutput)
    def post(self, request: Request, team_id: int) -> Response:
        """A new invitation link (team owners): the links handed out before stop working."""
        team = team_invite_regenerate(team=_team(team_id), by=signed_in(request))
        return team_detail(request, team)


class TeamJoinApi(APIView):
    permission_classes = (permissions.IsAuthenticated,)
    parser_classes = (JSONParser, FormParser, MultiPartParser)

    class InputSerializer(serializers.Serializer[None]):
        class Meta:
            ref_name = "TeamJoinInput"

        token = serializers.CharField(help_text="The last part of the invitation link.")

    @extend_schema(request=InputSerializer, responses=TeamDetailOutput)
    def post(self, request: Request) -> Response:
        """Join the team of an invitation link, as a member."""
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        membership = team_join(user=signed_in(request), **serializer.validated_data)
        return team_detail(request, membership.team)


class TeamLeaveApi(APIView):
    permission_classes = (permissions.IsAuthenticated,)

    @extend_schema(request=None, responses={204: None})
    def post(self, request: Request, team_id: int) -> Response:
        """Leave a team (its last owner hands it over first); its bots stay the team's."""
        team_leave(team=_team(team_id), user=signed_in(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class TeamMemberApi(APIView):
    permission_classes = (permissions.IsAuthenticated,)
    parser_classes = (JSONParser, FormParser, MultiPartParser)

    class InputSerializer(serializers.Serializer[None]):
        class Meta:
            ref_name = "TeamMemberInput"

        role = serializers.ChoiceField(choices=TeamRole.choices)

    def _member(self, team: Team, username: str) -> User:
        user = player_get(username=username)
        if user is None:
            raise Http404
        return user

    @extend_schema(request=InputSerializer, responses=MemberOutput)
    def patch(self, request: Request, team_id: int, username: str) -> Response:
        """Change a member's role (team owners): make them an owner to hand the team over."""
        team = _team(team_id)
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        membership = team_member_set_role(
            team=team,
            user=self._member(team, username),
            role=TeamRole(serializer.validated_data["role"]),
            by=signed_in(request),
        )
        return Response(MemberOutput(membership).data)

    @extend_schema(request=None, responses={204: None})
    def delete(self, request: Request, team_id: int, username: str) -> Response:
        """Take a member out of the team (team owners)."""
        team = _team(team_id)
        team_member_remove(team=team, user=self._member(team, username), by=signed_in(request))
        return Response(status=status.HTTP_204_NO_CONTENT)
