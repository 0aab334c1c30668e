"""HTTP API of bots: thin views that parse input, call a service or selector, shape output.

Uploads enter a bot on ladders, so their views live with the ladders
(``arena.ladders.apis``: ``BotSubmitApi``, ``VersionSubmitApi``), built on the
lists here.

Who may do what: anyone reads public bots; a private bot exists only for its
owner and staff (others get 404); only the owner changes a bot (uploads,
visibility, retiring versions), everyone else gets 403 (401 without login).
"""

from __future__ import annotations

from typing import Any

from django.core.files.uploadedfile import UploadedFile
from django.http import Http404
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import permissions, serializers
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.pagination import LimitOffset, paginated_response

from .models import Bot, BotVersion, Visibility
from .selectors import (
    bot_get_visible,
    bot_list_visible,
    bot_version_get,
    bot_versions,
    may_read_internals,
)
from .services import (
    bot_update,
    bot_version_retire,
    upload_limits,
)
from .uploads import check_upload_size


def read_upload(upload: UploadedFile) -> bytes:
    # Refuse a huge file before reading it into memory.
    check_upload_size(upload.name or "", upload.size or 0, upload_limits())
    content: bytes = upload.read()
    return content


class IsOwnerOrReadOnly(permissions.BasePermission):
    """Reads for whoever sees the bot; changes for its owner only."""

    message = "only the bot's owner may change it."

    def has_object_permission(self, request: Request, view: APIView, obj: Any) -> bool:
        if request.method in permissions.SAFE_METHODS:
            return True
        return bool(request.user.is_authenticated and obj.owner_id == request.user.pk)


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


class BotListApi(APIView):
    pagination_class = LimitOffset
    permission_classes = (permissions.IsAuthenticatedOrReadOnly,)

    class FilterSerializer(serializers.Serializer[None]):
        owner = serializers.CharField(required=False, help_text="Username of the owner.")

    class OutputSerializer(serializers.Serializer[Bot]):
        class Meta:
            ref_name = "BotListItem"

        id = serializers.IntegerField()
        name = serializers.CharField()
        owner = serializers.CharField(source="owner.username")
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
            queryset=bot_list_visible(user=request.user, **filters.validated_data),
            request=request,
            view=self,
        )


class BotDetailApi(APIView):
    permission_classes = (permissions.IsAuthenticatedOrReadOnly, IsOwnerOrReadOnly)
    parser_classes = (JSONParser, MultiPartParser, FormParser)

    class InputSerializer(serializers.Serializer[None]):
        class Meta:
            ref_name = "BotUpdateInput"

        visibility = serializers.ChoiceField(choices=Visibility.choices, required=False)
        description = serializers.CharField(max_length=2000, required=False, allow_blank=True)

    class OutputSerializer(serializers.Serializer[Bot]):
        class Meta:
            ref_name = "BotDetail"

        id = serializers.IntegerField()
        name = serializers.CharField()
        owner = serializers.CharField(source="owner.username")
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
        """Change your bot's visibility or description."""
        bot = visible_bot(self, request, bot_id)
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        bot = bot_update(bot=bot, **serializer.validated_data)
        return Response(self.OutputSerializer(bot).data)


class BotVersionListApi(APIView):
    pagination_class = LimitOffset
    permission_classes = (permissions.IsAuthenticatedOrReadOnly, IsOwnerOrReadOnly)

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


class BotVersionDetailApi(APIView):
    permission_classes = (permissions.IsAuthenticatedOrReadOnly, IsOwnerOrReadOnly)

    class OutputSerializer(VersionOutput):
        validation_report = serializers.SerializerMethodField(
            help_text="Files and validation errors; null unless you own the bot (or are staff)."
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
