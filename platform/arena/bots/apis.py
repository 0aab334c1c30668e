"""HTTP API of bots: thin views that parse input, call a service or selector, shape output.

An upload (``POST /api/bots/``, ``POST /api/bots/<id>/versions/``) is read here and
handed to the ``submit`` its view is given by the URL map (``arena/urls.py``): the
ladders' flow, which stores the code and enters the bot on ladders. This app is below
the ladders and cannot call them itself. A bot's entries and verdicts are the
ladders' own views, under /api/bots/ too.

Who may do what: anyone reads public bots; a private bot exists only for those
who manage it (``selectors.may_manage_bot``: its owner, its team's members,
staff; others get 404); only they change a bot (uploads, visibility, retiring
versions), everyone else gets 403 (401 without login).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from django.core.exceptions import ImproperlyConfigured
from django.core.files.uploadedfile import UploadedFile
from django.http import Http404
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import permissions, serializers, status
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.pagination import LimitOffset, paginated_response
from arena.players.models import Team, User
from arena.players.selectors import signed_in, team_get, team_role
from arena.throttling import TeamUploadThrottle, UploadsThrottled

from .models import Bot, BotVersion, Runtime, Visibility
from .selectors import (
    bot_get_visible,
    bot_list_visible,
    bot_version_get,
    bot_versions,
    may_manage_bot,
    may_read_internals,
)
from .services import (
    bot_team_set,
    bot_update,
    bot_version_retire,
    upload_limits,
)
from .uploads import check_upload_size


class BotSubmit(Protocol):
    """What ``POST /api/bots/`` does with an upload it has read: the new version.

    ``ladders``: the slugs the bot enters from now on; None keeps its entries (a new bot
    enters every open ladder).
    """

    def __call__(
        self,
        *,
        owner: User,
        name: str,
        filename: str,
        content: bytes,
        visibility: Visibility,
        ladders: Sequence[str] | None,
        runtime: str | None,
        team: Team | None,
    ) -> BotVersion: ...


class VersionSubmit(Protocol):
    """What ``POST /api/bots/<id>/versions/`` does with an upload it has read."""

    def __call__(
        self,
        *,
        bot: Bot,
        filename: str,
        content: bytes,
        ladders: Sequence[str] | None,
        runtime: str | None,
    ) -> BotVersion: ...


LADDERS_HELP = (
    "Slugs of the ladders the bot enters from now on (repeat the field, or separate them "
    "with commas); left out: a new bot enters every open ladder, an existing one keeps its "
    "entries."
)
FILE_HELP = (
    "One source file (.py, .js, .c, .cpp, .java, .rs, .go: the runtime from its suffix), or a "
    ".zip with the runtime's main file (main.py, main.js, main.c, main.cpp, main.java, main.rs, "
    "main.go) at its top."
)
RUNTIME_HELP = "The language, when the file's name does not tell it (default: from the file)."


def chosen_ladders(data: dict[str, Any]) -> list[str] | None:
    """The ladder slugs named in an upload's ``ladders`` field (None when it is left out)."""
    if "ladders" not in data:
        return None
    return [slug.strip() for value in data["ladders"] for slug in value.split(",") if slug.strip()]


def read_upload(upload: UploadedFile) -> bytes:
    # Refuse a huge file before reading it into memory.
    check_upload_size(upload.name or "", upload.size or 0, upload_limits())
    content: bytes = upload.read()
    return content


class IsOwnerOrReadOnly(permissions.BasePermission):
    """Reads for whoever sees the bot; changes for those who manage it
    (``selectors.may_manage_bot``: its owner, its team's members, staff)."""

    message = "only the bot's owner or its team's members may change it."

    def has_object_permission(self, request: Request, view: APIView, obj: Any) -> bool:
        if request.method in permissions.SAFE_METHODS:
            return True
        return may_manage_bot(request.user, obj)


def check_team_upload_rate(view: APIView, request: Request, team_id: int | None) -> None:
    """An upload to a team's bot also counts against the team's rate (all its members)."""
    if team_id is None:
        return
    throttle = TeamUploadThrottle(team_id)
    if not throttle.allow_request(request, view):
        view.throttled(request, throttle.wait() or 1.0)


def member_team(request: Request, team_id: int | None) -> Team | None:
    """The team an upload names, which must be one of the uploader's."""
    if team_id is None:
        return None
    team = team_get(team_id=team_id)
    if team is None or team_role(team=team, user=request.user) is None:
        raise serializers.ValidationError(
            {"team": [f"you are in no team {team_id}: name one of yours (GET /api/teams/?mine=1)."]}
        )
    return team


class TeamField(serializers.Serializer[Team]):
    class Meta:
        ref_name = "BotTeam"

    id = serializers.IntegerField()
    name = serializers.CharField()


def visible_bot(view: APIView, request: Request, bot_id: int) -> Bot:
    """The bot if the user may see it (else 404), checked against the view's permissions."""
    bot = bot_get_visible(bot_id=bot_id, user=request.user)
    if bot is None:
        raise Http404
    view.check_object_permissions(request, bot)
    return bot


class VersionOutput(serializers.ModelSerializer[BotVersion]):
    bot_id = serializers.IntegerField()

    class Meta:
        model = BotVersion
        ref_name = "BotVersion"
        fields: tuple[str, ...] = (
            "id",
            "bot_id",
            "number",
            "status",
            "status_changed_at",
            "runtime",
            "code_format",
            "code_sha256",
            "code_size",
            "created_at",
        )


class BotListApi(UploadsThrottled, APIView):
    pagination_class = LimitOffset
    permission_classes = (permissions.IsAuthenticatedOrReadOnly,)
    parser_classes = (MultiPartParser, FormParser)
    #: Given by the URL map: the ladders' flow (see the module's docstring).
    submit: BotSubmit | None = None

    class InputSerializer(serializers.Serializer[None]):
        class Meta:
            ref_name = "BotUploadInput"

        name = serializers.CharField(max_length=40)
        visibility = serializers.ChoiceField(choices=Visibility.choices, default=Visibility.PUBLIC)
        file = serializers.FileField(help_text=FILE_HELP)
        runtime = serializers.ChoiceField(
            choices=Runtime.choices, required=False, help_text=RUNTIME_HELP
        )
        ladders = serializers.ListField(
            child=serializers.CharField(), required=False, help_text=LADDERS_HELP
        )
        team = serializers.IntegerField(
            required=False,
            help_text="The id of one of your teams: the upload is the team's bot of that "
            "name (created as the team's on its first upload).",
        )

    class FilterSerializer(serializers.Serializer[None]):
        owner = serializers.CharField(required=False, help_text="Username of the owner.")
        team = serializers.IntegerField(required=False, help_text="Id of the team.")

    class OutputSerializer(serializers.Serializer[Bot]):
        class Meta:
            ref_name = "BotListItem"

        id = serializers.IntegerField()
        name = serializers.CharField()
        owner = serializers.CharField(source="owner.username")
        team = TeamField(allow_null=True, help_text="The team that owns the bot, if any.")
        visibility = serializers.CharField()
        created_at = serializers.DateTimeField()

    @extend_schema(parameters=[FilterSerializer], responses=OutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        """Bots you may see: public ones and your own, by name."""
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        return paginated_response(
            pagination_class=self.pagination_class,
            serializer_class=self.OutputSerializer,
            queryset=bot_list_visible(user=request.user, **filters.validated_data).select_related(
                "team"
            ),
            request=request,
            view=self,
        )

    @extend_schema(request=InputSerializer, responses={201: VersionOutput})
    def post(self, request: Request) -> Response:
        """Upload code for one of your bots and enter it on ladders: the bot is created on its
        first upload, each later upload under the same name is its next version. The version
        plays a pre-flight game of each ladder it enters, and plays where it passed."""
        if self.submit is None:
            raise ImproperlyConfigured("arena/urls.py gives BotListApi its submit")
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        upload = data["file"]
        team = member_team(request, data.get("team"))
        check_team_upload_rate(self, request, None if team is None else team.pk)
        version = self.submit(
            owner=signed_in(request),
            name=data["name"],
            filename=upload.name,
            content=read_upload(upload),
            visibility=data["visibility"],
            ladders=chosen_ladders(data),
            runtime=data.get("runtime"),
            team=team,
        )
        return Response(VersionOutput(version).data, status=status.HTTP_201_CREATED)


class BotDetailApi(APIView):
    permission_classes = (permissions.IsAuthenticatedOrReadOnly, IsOwnerOrReadOnly)
    parser_classes = (JSONParser, MultiPartParser, FormParser)

    class InputSerializer(serializers.Serializer[None]):
        class Meta:
            ref_name = "BotUpdateInput"

        visibility = serializers.ChoiceField(choices=Visibility.choices, required=False)
        description = serializers.CharField(max_length=2000, required=False, allow_blank=True)
        team = serializers.IntegerField(
            required=False,
            allow_null=True,
            help_text="Move the bot into one of your teams (its owner), or out of its team "
            "with null (an owner of the team).",
        )

    class OutputSerializer(serializers.Serializer[Bot]):
        class Meta:
            ref_name = "BotDetail"

        id = serializers.IntegerField()
        name = serializers.CharField()
        owner = serializers.CharField(source="owner.username")
        team = TeamField(allow_null=True, help_text="The team that owns the bot, if any.")
        visibility = serializers.CharField()
        description = serializers.CharField()
        created_at = serializers.DateTimeField()
        versions = serializers.SerializerMethodField()

        @extend_schema_field(VersionOutput(many=True))
        def get_versions(self, bot: Bot) -> list[dict[str, object]]:
            return list(VersionOutput(bot_versions(bot=bot), many=True).data)

    @extend_schema(responses=OutputSerializer)
    def get(self, request: Request, bot_id: int) -> Response:
        """A bot and its versions, newest first."""
        bot = visible_bot(self, request, bot_id)
        return Response(self.OutputSerializer(bot).data)

    @extend_schema(request=InputSerializer, responses=OutputSerializer)
    def patch(self, request: Request, bot_id: int) -> Response:
        """Change your bot's visibility or description, or its team."""
        bot = visible_bot(self, request, bot_id)
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        if "team" in data:
            team_id = data.pop("team")
            team = None if team_id is None else member_team(request, team_id)
            bot = bot_team_set(bot=bot, team=team, by=signed_in(request))
        bot = bot_update(bot=bot, **data)
        return Response(self.OutputSerializer(bot).data)


class BotVersionListApi(UploadsThrottled, APIView):
    pagination_class = LimitOffset
    permission_classes = (permissions.IsAuthenticatedOrReadOnly, IsOwnerOrReadOnly)
    parser_classes = (MultiPartParser, FormParser)
    #: Given by the URL map: the ladders' flow (see the module's docstring).
    submit: VersionSubmit | None = None

    class InputSerializer(serializers.Serializer[None]):
        class Meta:
            ref_name = "BotVersionUploadInput"

        file = serializers.FileField(help_text=FILE_HELP)
        runtime = serializers.ChoiceField(
            choices=Runtime.choices, required=False, help_text=RUNTIME_HELP
        )
        ladders = serializers.ListField(
            child=serializers.CharField(), required=False, help_text=LADDERS_HELP
        )

    @extend_schema(responses=VersionOutput(many=True))
    def get(self, request: Request, bot_id: int) -> Response:
        """The bot's versions, newest first."""
        bot = visible_bot(self, request, bot_id)
        return paginated_response(
            pagination_class=self.pagination_class,
            serializer_class=VersionOutput,
            queryset=bot_versions(bot=bot),
            request=request,
            view=self,
        )

    @extend_schema(request=InputSerializer, responses={201: VersionOutput})
    def post(self, request: Request, bot_id: int) -> Response:
        """Upload a new version of your bot (and change its ladders)."""
        if self.submit is None:
            raise ImproperlyConfigured("arena/urls.py gives BotVersionListApi its submit")
        bot = visible_bot(self, request, bot_id)
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        upload = data["file"]
        check_team_upload_rate(self, request, bot.team_id)
        version = self.submit(
            bot=bot,
            filename=upload.name,
            content=read_upload(upload),
            ladders=chosen_ladders(data),
            runtime=data.get("runtime"),
        )
        return Response(VersionOutput(version).data, status=status.HTTP_201_CREATED)


class BotVersionDetailApi(APIView):
    permission_classes = (permissions.IsAuthenticatedOrReadOnly, IsOwnerOrReadOnly)

    class OutputSerializer(VersionOutput):
        validation_report = serializers.SerializerMethodField(
            help_text="Files and validation errors; null unless you manage the bot (its owner, its "
            "team's members, staff)."
        )

        class Meta(VersionOutput.Meta):
            ref_name = "BotVersionDetail"
            fields = (*VersionOutput.Meta.fields, "validation_report")

        @extend_schema_field(serializers.JSONField(allow_null=True))
        def get_validation_report(self, version: BotVersion) -> dict[str, Any] | None:
            return version.validation_report if self.context["show_report"] else None

    @extend_schema(responses=OutputSerializer)
    def get(self, request: Request, bot_id: int, number: int) -> Response:
        """One version: its status and, for its owner, the validation report."""
        bot = visible_bot(self, request, bot_id)
        version = bot_version_get(bot=bot, number=number)
        if version is None:
            raise Http404
        context = {"show_report": may_read_internals(request.user, bot)}
        return Response(self.OutputSerializer(version, context=context).data)


class BotVersionRetireApi(APIView):
    permission_classes = (permissions.IsAuthenticated, IsOwnerOrReadOnly)

    @extend_schema(request=None, responses=VersionOutput)
    def post(self, request: Request, bot_id: int, number: int) -> Response:
        """Withdraw a pending or active version of your bot: it plays no more matches."""
        bot = visible_bot(self, request, bot_id)
        version = bot_version_get(bot=bot, number=number)
        if version is None:
            raise Http404
        return Response(VersionOutput(bot_version_retire(version=version)).data)
