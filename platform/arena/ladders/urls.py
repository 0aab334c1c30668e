from django.urls import path

from arena.matches.apis import LadderMatchesApi

from .apis import LadderListApi, LeaderboardApi

urlpatterns = [
    path("", LadderListApi.as_view(), name="ladder-list"),
    path("<slug:slug>/leaderboard/", LeaderboardApi.as_view(), name="ladder-leaderboard"),
    path("<slug:slug>/matches/", LadderMatchesApi.as_view(), name="ladder-matches"),
]
