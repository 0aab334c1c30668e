from django.urls import path

from .apis import (
    LeagueBundleApi,
    LeagueCancelApi,
    LeagueDetailApi,
    LeagueEntriesApi,
    LeagueEntryDetailApi,
    LeagueEntryRespondApi,
    LeagueFixturesApi,
    LeagueListApi,
    LeaguePauseApi,
    LeagueResumeApi,
    LeagueRoundsApi,
    LeagueStandingsApi,
)

urlpatterns = [
    path("", LeagueListApi.as_view(), name="league-list"),
    path("<slug:slug>/", LeagueDetailApi.as_view(), name="league-detail"),
    path("<slug:slug>/pause/", LeaguePauseApi.as_view(), name="league-pause"),
    path("<slug:slug>/resume/", LeagueResumeApi.as_view(), name="league-resume"),
    path("<slug:slug>/cancel/", LeagueCancelApi.as_view(), name="league-cancel"),
    path("<slug:slug>/entries/", LeagueEntriesApi.as_view(), name="league-entries"),
    path(
        "<slug:slug>/entries/<int:bot_id>/",
        LeagueEntryDetailApi.as_view(),
        name="league-entry-detail",
    ),
    path(
        "<slug:slug>/entries/<int:bot_id>/respond/",
        LeagueEntryRespondApi.as_view(),
        name="league-entry-respond",
    ),
    path("<slug:slug>/rounds/", LeagueRoundsApi.as_view(), name="league-rounds"),
    path("<slug:slug>/fixtures/", LeagueFixturesApi.as_view(), name="league-fixtures"),
    path("<slug:slug>/standings/", LeagueStandingsApi.as_view(), name="league-standings"),
    path("<slug:slug>/bundle/", LeagueBundleApi.as_view(), name="league-bundle"),
]
