from django.urls import path

from .apis import MatchDetailApi, MatchListApi, MatchLogApi

urlpatterns = [
    path("", MatchListApi.as_view(), name="match-list"),
    path("<int:match_id>/", MatchDetailApi.as_view(), name="match-detail"),
    path("<int:match_id>/log/", MatchLogApi.as_view(), name="match-log"),
]
