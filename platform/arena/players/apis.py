"""HTTP API of players: API tokens for scripts."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import permissions, serializers, status
from rest_framework.authtoken.models import Token
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.throttling import LoginThrottle

from .selectors import signed_in
from .services import auth_token_obtain, auth_token_revoke


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
