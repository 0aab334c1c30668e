from django.urls import path

from .apis import (
    MatchDecisionsApi,
    MatchDetailApi,
    MatchEventsApi,
    MatchListApi,
    MatchLogApi,
)

urlpatterns = [
    path("", MatchListApi.as_view(), name="match-list"),
    path("<int:match_id>/", MatchDetailApi.as_view(), name="match-detail"),
    path("<int:match_id>/log/", MatchLogApi.as_view(), name="match-log"),
    path("<int:match_id>/events/", MatchEventsApi.as_view(), name="match-events"),
    path("<int:match_id>/decisions/", MatchDecisionsApi.as_view(), name="match-decisions"),
]
