from django.urls import include, path

from .apis import AuthTokenApi, AuthTokenRevokeApi

urlpatterns = [
    path("token/", AuthTokenApi.as_view(), name="auth-token"),
    path("token/revoke/", AuthTokenRevokeApi.as_view(), name="auth-token-revoke"),
    # Log in and out of the browsable API (session).
    path("", include("rest_framework.urls")),
]
