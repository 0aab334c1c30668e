"""HTTP API of bots: thin views that parse input, call a service, shape output."""

from __future__ import annotations

from django.core.files.uploadedfile import UploadedFile
from django.http import Http404
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import permissions, serializers, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.pagination import LimitOffset, paginated_response

from .models import Bot, BotVersion, Visibility
from .selectors import bot_get_visible, bot_list_public, bot_versions
from .services import bot_upload, bot_version_upload, upload_limits
from .uploads import check_upload_size


def _read_upload(upload: UploadedFile) -> bytes:
    # Refuse a huge file before reading it into memory.
    check_upload_size(upload.name or "", upload.size or 0, upload_limits())
    return upload.read()


class VersionOutput(serializers.ModelSerializer[BotVersion]):
    class Meta:
        model = BotVersion
        fields = (
            "id",
            "number",
            "status",
            "runtime",
            "code_format",
            "code_sha256",
            "code_size",
            "created_at",
        )


class BotListApi(APIView):
    permission_classes = (permissions.IsAuthenticatedOrReadOnly,)
    parser_classes = (MultiPartParser, FormParser)

    class OutputSerializer(serializers.Serializer[Bot]):
        class Meta:
            ref_name = "BotListItem"

        id = serializers.IntegerField()
        name = serializers.CharField()
        owner = serializers.CharField(source="owner.username")
        visibility = serializers.CharField()
        created_at = serializers.DateTimeField()

    class InputSerializer(serializers.Serializer[None]):
        class Meta:
            ref_name = "BotUploadInput"

        name = serializers.CharField(max_length=40)
        visibility = serializers.ChoiceField(choices=Visibility.choices, default=Visibility.PUBLIC)
        file = serializers.FileField()

    @extend_schema(responses=OutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        return paginated_response(
            pagination_class=LimitOffset,
            serializer_class=self.OutputSerializer,
            queryset=bot_list_public(),
            request=request,
            view=self,
        )

    @extend_schema(request=InputSerializer, responses={201: VersionOutput})
    def post(self, request: Request) -> Response:
        """Upload code for one of your bots; the bot is created on its first upload."""
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        upload = serializer.validated_data["file"]
        version = bot_upload(
            owner=request.user,
            name=serializer.validated_data["name"],
            filename=upload.name,
            content=_read_upload(upload),
            visibility=serializer.validated_data["visibility"],
        )
        return Response(VersionOutput(version).data, status=status.HTTP_201_CREATED)


class BotDetailApi(APIView):
    permission_classes = (permissions.IsAuthenticatedOrReadOnly,)

    class OutputSerializer(serializers.Serializer[Bot]):
        class Meta:
            ref_name = "BotDetail"

        id = serializers.IntegerField()
        name = serializers.CharField()
        owner = serializers.CharField(source="owner.username")
        visibility = serializers.CharField()
        description = serializers.CharField()
        versions = serializers.SerializerMethodField()

        @extend_schema_field(VersionOutput(many=True))
        def get_versions(self, bot: Bot) -> list[dict[str, object]]:
            return list(VersionOutput(bot_versions(bot=bot), many=True).data)

    @extend_schema(responses=OutputSerializer)
    def get(self, request: Request, bot_id: int) -> Response:
        bot = bot_get_visible(bot_id=bot_id, user=request.user)
        if bot is None:
            raise Http404
        return Response(self.OutputSerializer(bot).data)


class BotVersionUploadApi(APIView):
    permission_classes = (permissions.IsAuthenticated,)
    parser_classes = (MultiPartParser, FormParser)

    class InputSerializer(serializers.Serializer[None]):
        class Meta:
            ref_name = "BotVersionUploadInput"

        file = serializers.FileField()

    @extend_schema(request=InputSerializer, responses={201: VersionOutput})
    def post(self, request: Request, bot_id: int) -> Response:
        """Upload a new version of your bot."""
        bot = bot_get_visible(bot_id=bot_id, user=request.user)
        if bot is None or bot.owner_id != request.user.pk:
            raise Http404
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        upload = serializer.validated_data["file"]
        version = bot_version_upload(bot=bot, filename=upload.name, content=_read_upload(upload))
        return Response(VersionOutput(version).data, status=status.HTTP_201_CREATED)
