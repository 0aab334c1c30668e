"""HTTP API of the notifications: an author's choices, webhook, test and delivery log."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import permissions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.players.selectors import signed_in

from . import flows, services
from .kinds import EventKind
from .models import Delivery, WebhookEndpoint
from .selectors import Choice, deliveries_recent, preferences_of, webhook_of


class ChoiceSerializer(serializers.Serializer[Choice]):
    class Meta:
        ref_name = "NotificationChoice"

    kind = serializers.ChoiceField(choices=[(k.value, k.label) for k in EventKind.choosable()])
    description = serializers.SerializerMethodField()
    email = serializers.BooleanField()
    webhook = serializers.BooleanField()

    def get_description(self, choice: Choice) -> str:
        return choice.kind.description


class NotificationPreferencesApi(APIView):
    permission_classes = (permissions.IsAuthenticated,)

    class InputSerializer(serializers.Serializer[None]):
        class Meta:
            ref_name = "NotificationChoicesInput"

        choices = ChoiceSerializer(many=True)

    @extend_schema(responses={200: ChoiceSerializer(many=True)})
    def get(self, request: Request) -> Response:
        """Each kind of notification, with your choice of e-mail and webhook."""
        choices = preferences_of(user=signed_in(request))
        return Response(ChoiceSerializer(choices, many=True).data)  # type: ignore[arg-type]  # many=True takes a list

    @extend_schema(request=InputSerializer, responses={200: ChoiceSerializer(many=True)})
    def put(self, request: Request) -> Response:
        """Set your choices for the kinds listed (the others keep theirs)."""
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = signed_in(request)
        services.preferences_set(
            user=user,
            choices={
                c["kind"]: (c["email"], c["webhook"]) for c in serializer.validated_data["choices"]
            },
        )
        choices = preferences_of(user=user)
        return Response(ChoiceSerializer(choices, many=True).data)  # type: ignore[arg-type]  # many=True takes a list


class WebhookSerializer(serializers.Serializer[WebhookEndpoint]):
    class Meta:
        ref_name = "NotificationWebhook"

    url = serializers.URLField()
    updated_at = serializers.DateTimeField(read_only=True)


class WebhookWithSecretSerializer(WebhookSerializer):
    class Meta:
        ref_name = "NotificationWebhookWithSecret"

    secret = serializers.CharField(
        read_only=True, help_text="Shown only when made: keep it where your receiver reads it."
    )


class NotificationWebhookApi(APIView):
    permission_classes = (permissions.IsAuthenticated,)

    @extend_schema(responses={200: WebhookSerializer, 404: None})
    def get(self, request: Request) -> Response:
        """Your webhook's URL (its secret is shown only when made)."""
        endpoint = webhook_of(user=signed_in(request))
        if endpoint is None:
            return Response({"detail": "No webhook set."}, status=status.HTTP_404_NOT_FOUND)
        return Response(WebhookSerializer(endpoint).data)

    @extend_schema(
        request=WebhookSerializer,
        responses={200: WebhookSerializer, 201: WebhookWithSecretSerializer},
    )
    def put(self, request: Request) -> Response:
        """Set your webhook's URL; a new webhook answers with its secret, once."""
        serializer = WebhookSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = signed_in(request)
        existed = webhook_of(user=user) is not None
        endpoint = services.webhook_set(user=user, url=serializer.validated_data["url"])
        if existed:
            return Response(WebhookSerializer(endpoint).data)
        return Response(WebhookWithSecretSerializer(endpoint).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={204: None})
    def delete(self, request: Request) -> Response:
        """Remove your webhook."""
        services.webhook_delete(user=signed_in(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class NotificationWebhookSecretApi(APIView):
    permission_classes = (permissions.IsAuthenticated,)

    @extend_schema(request=None, responses={200: WebhookWithSecretSerializer})
    def post(self, request: Request) -> Response:
        """A new secret for your webhook (the old one stops verifying at once), shown once."""
        endpoint = services.webhook_secret_regenerate(user=signed_in(request))
        return Response(WebhookWithSecretSerializer(endpoint).data)


class DeliverySerializer(serializers.Serializer[Delivery]):
    class Meta:
        ref_name = "NotificationDelivery"

    id = serializers.IntegerField()
    kind = serializers.CharField(source="notification.kind")
    subject = serializers.CharField(source="notification.subject")
    channel = serializers.CharField()
    target = serializers.CharField()
    status = serializers.CharField()
    attempts = serializers.IntegerField()
    last_error = serializers.CharField()
    last_response = serializers.IntegerField(allow_null=True)
    created_at = serializers.DateTimeField()
    last_attempt_at = serializers.DateTimeField(allow_null=True)
    sent_at = serializers.DateTimeField(allow_null=True)


class NotificationDeliveriesApi(APIView):
    permission_classes = (permissions.IsAuthenticated,)

    @extend_schema(responses={200: DeliverySerializer(many=True)})
    def get(self, request: Request) -> Response:
        """Your latest deliveries (e-mails and webhooks), newest first."""
        deliveries = deliveries_recent(user=signed_in(request))
        return Response(DeliverySerializer(deliveries, many=True).data)  # type: ignore[arg-type]  # many=True takes a queryset


class NotificationTestApi(APIView):
    permission_classes = (permissions.IsAuthenticated,)

    @extend_schema(request=None, responses={202: DeliverySerializer(many=True)})
    def post(self, request: Request) -> Response:
        """Send a test notification to your e-mail address and webhook (those set up)."""
        deliveries = flows.test_send(user=signed_in(request))
        data = DeliverySerializer(deliveries, many=True).data  # type: ignore[arg-type]  # many=True takes a list
        return Response(data, status=status.HTTP_202_ACCEPTED)
