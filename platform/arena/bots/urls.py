from django.urls import path

from .apis import BotDetailApi, BotVersionDetailApi, BotVersionRetireApi

# The list and the version list (with their uploads): arena/urls.py, which gives them
# the ladders' flow; a bot's entries and verdicts: arena.ladders.bot_urls.
urlpatterns = [
    path("<int:bot_id>/", BotDetailApi.as_view(), name="bot-detail"),
    path(
        "<int:bot_id>/versions/<int:number>/",
        BotVersionDetailApi.as_view(),
        name="bot-version-detail",
    ),
    path(
        "<int:bot_id>/versions/<int:number>/retire/",
        BotVersionRetireApi.as_view(),
        name="bot-version-retire",
    ),
]
