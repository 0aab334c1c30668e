from django.urls import path

from .apis import (
    LadderDetailApi,
    LadderListApi,
    LadderLogsApi,
    LadderMatchesApi,
    LeaderboardApi,
    SeasonDetailApi,
    SeasonListApi,
)

urlpatterns = [
    path("", LadderListApi.as_view(), name="ladder-list"),
    path("<slug:slug>/", LadderDetailApi.as_view(), name="ladder-detail"),
    path("<slug:slug>/leaderboard/", LeaderboardApi.as_view(), name="ladder-leaderboard"),
    path("<slug:slug>/matches/", LadderMatchesApi.as_view(), name="ladder-matches"),
    path("<slug:slug>/logs/", LadderLogsApi.as_view(), name="ladder-logs"),
    path("<slug:slug>/seasons/", SeasonListApi.as_view(), name="ladder-seasons"),
    path("<slug:slug>/seasons/<int:number>/", SeasonDetailApi.as_view(), name="ladder-season"),
]
