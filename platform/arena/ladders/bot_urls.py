"""The bot routes that enter ladders (uploads, entries) or read them (verdicts), under
/api/bots/ beside arena.bots.urls."""

from django.urls import path

from .apis import BotEntriesApi, BotSubmitApi, BotVerdictsApi, VersionSubmitApi

urlpatterns = [
    path("", BotSubmitApi.as_view(), name="bot-list"),
    path("<int:bot_id>/versions/", VersionSubmitApi.as_view(), name="bot-versions"),
    path("<int:bot_id>/ladders/", BotEntriesApi.as_view(), name="bot-entries"),
    path("<int:bot_id>/verdicts/", BotVerdictsApi.as_view(), name="bot-verdicts"),
]
