"""The bot routes that are the ladders' own (a bot's entries, its versions' verdicts),
under /api/bots/ beside arena.bots.urls."""

from django.urls import path

from .apis import BotEntriesApi, BotPlacingsApi, BotVerdictsApi

urlpatterns = [
    path("<int:bot_id>/ladders/", BotEntriesApi.as_view(), name="bot-entries"),
    path("<int:bot_id>/verdicts/", BotVerdictsApi.as_view(), name="bot-verdicts"),
    path("<int:bot_id>/seasons/", BotPlacingsApi.as_view(), name="bot-seasons"),
]
