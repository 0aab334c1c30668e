from django.urls import path

from .apis import (
    NotificationDeliveriesApi,
    NotificationPreferencesApi,
    NotificationTestApi,
    NotificationWebhookApi,
    NotificationWebhookSecretApi,
)

urlpatterns = [
    path("preferences/", NotificationPreferencesApi.as_view(), name="notification-preferences"),
    path("webhook/", NotificationWebhookApi.as_view(), name="notification-webhook"),
    path(
        "webhook/secret/",
        NotificationWebhookSecretApi.as_view(),
        name="notification-webhook-secret",
    ),
    path("deliveries/", NotificationDeliveriesApi.as_view(), name="notification-deliveries"),
    path("test/", NotificationTestApi.as_view(), name="notification-test"),
]
