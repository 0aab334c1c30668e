from django.urls import path

from .apis import LadderDetailApi, LadderListApi, LadderLogsApi, LadderMatchesApi, LeaderboardApi

urlpatterns = [
    path("", LadderListApi.as_view(), name="ladder-list"),
    path("<slug:slug>/", LadderDetailApi.as_view(), name="ladder-detail"),
    path("<slug:slug>/leaderboard/", LeaderboardApi.as_view(), name="ladder-leaderboard"),
    path("<slug:slug>/matches/", LadderMatchesApi.as_view(), name="ladder-matches"),
    path("<slug:slug>/logs/", LadderLogsApi.as_view(), name="ladder-logs"),
]
