"""URL map: the admin, the JSON API and its OpenAPI schema, health, readiness and metrics."""

from django.contrib import admin
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.urls import URLPattern, URLResolver, include, path, reverse
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from arena.bots.apis import BotListApi, BotVersionListApi
from arena.ladders.apis import LevelListApi
from arena.ladders.flows import bot_submit_by_slugs, version_submit_by_slugs
from arena.notifications.views import unsubscribe
from arena.ops.views import metrics, readyz
from arena.players.views import verify_email


def healthz(request: HttpRequest) -> JsonResponse:
    """For load balancers and compose: the process answers and reaches its database."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"status": "ok"})


def api_index(request: HttpRequest) -> JsonResponse:
    """/api/: where the API's parts and its documentation are, for a person or a script."""
    url = request.build_absolute_uri
    return JsonResponse(
        {
            "name": "Las Vegas Arena API",
            "docs": url(reverse("api-docs")),
            "schema": url(reverse("schema")),
            "guide": url(reverse("web:doc", kwargs={"slug": "api"})),
            "authentication": "Authorization: Token <token>, from POST "
            + url(reverse("auth-token")),
            "endpoints": {
                name: url(f"/api/{name}/")
                for name in (
                    "bots",
                    "ladders",
                    "matches",
                    "challenges",
                    "levels",
                    "leagues",
                    "competitions",
                    "tables",
                    "notifications",
                    "teams",
                )
            },
        }
    )


api_patterns: list[URLPattern | URLResolver] = [
    path("", api_index, name="api-index"),
    path("auth/", include("arena.players.urls")),
    path("teams/", include("arena.players.team_urls")),
    # A bot's own API (the bots app) is given what an upload does: the ladders' flow,
    # which stores the code and enters the bot (the bots app is below the ladders).
    path("bots/", BotListApi.as_view(submit=bot_submit_by_slugs), name="bot-list"),
    path(
        "bots/<int:bot_id>/versions/",
        BotVersionListApi.as_view(submit=version_submit_by_slugs),
        name="bot-versions",
    ),
    path("bots/", include("arena.bots.urls")),
    path("bots/", include("arena.ladders.bot_urls")),
    path("ladders/", include("arena.ladders.urls")),
    path("matches/", include("arena.matches.urls")),
    path("challenges/", include("arena.ladders.challenge_urls")),
    path("levels/", LevelListApi.as_view(), name="level-list"),
    path("leagues/", include("arena.leagues.urls")),
    path("competitions/", include("arena.competitions.urls")),
    path("tables/", include("arena.tables.urls")),
    path("notifications/", include("arena.notifications.urls")),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    # Swagger UI from local static files (drf-spectacular-sidecar). Not Redoc: its page
    # loads web fonts from Google. The split view serves its start-up script as a file
    # (?script) rather than inline, and our template has no inline style: the site's CSP.
    path(
        "docs/",
        SpectacularSwaggerSplitView.as_view(url_name="schema", template_name="web/swagger_ui.html"),
        name="api-docs",
    ),
]

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include(api_patterns)),
    path("healthz", healthz, name="healthz"),
    # Readiness (database, broker, storage) and Prometheus' metrics: arena.ops.
    path("readyz", readyz, name="readyz"),
    path("metrics", metrics, name="metrics"),
    # Signed-token links in e-mails: no login (the notifications app's own page).
    path("notifications/unsubscribe/<str:token>/", unsubscribe, name="notification-unsubscribe"),
    path("account/verify-email/<str:token>/", verify_email, name="email-verify"),
    path("", include("arena.web.urls")),
]

# JSON (503 during outages) under /api/ instead of Django's HTML page.
handler500 = "arena.api.server_error"
handler404 = "arena.api.page_not_found"
