from django.urls import path

from .apis import MatchDetailApi

urlpatterns = [
    path("<int:match_id>/", MatchDetailApi.as_view(), name="match-detail"),
]
