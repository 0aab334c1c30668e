from django.urls import include, path

from .apis import AccountApi, AuthTokenApi, AuthTokenRevokeApi, EmailVerificationApi

urlpatterns = [
    path("token/", AuthTokenApi.as_view(), name="auth-token"),
    path("token/revoke/", AuthTokenRevokeApi.as_view(), name="auth-token-revoke"),
    path("me/", AccountApi.as_view(), name="auth-me"),
    path("email/verification/", EmailVerificationApi.as_view(), name="auth-email-verification"),
    # Log in and out of the browsable API (session).
    path("", include("rest_framework.urls")),
]
