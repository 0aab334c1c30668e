from django.urls import path

from .apis import BotDetailApi, BotListApi, BotVersionUploadApi

urlpatterns = [
    path("", BotListApi.as_view(), name="bot-list"),
    path("<int:bot_id>/", BotDetailApi.as_view(), name="bot-detail"),
    path("<int:bot_id>/versions/", BotVersionUploadApi.as_view(), name="bot-version-upload"),
]
