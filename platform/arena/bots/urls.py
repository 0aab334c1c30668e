from django.urls import path

from .apis import (
    BotDetailApi,
    BotListApi,
    BotVersionDetailApi,
    BotVersionListApi,
    BotVersionRetireApi,
)

urlpatterns = [
    path("", BotListApi.as_view(), name="bot-list"),
    path("<int:bot_id>/", BotDetailApi.as_view(), name="bot-detail"),
    path("<int:bot_id>/versions/", BotVersionListApi.as_view(), name="bot-versions"),
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
