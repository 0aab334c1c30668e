from django.urls import path

from .apis import ChallengeDetailApi, ChallengeListApi

urlpatterns = [
    path("", ChallengeListApi.as_view(), name="challenge-list"),
    path("<int:challenge_id>/", ChallengeDetailApi.as_view(), name="challenge-detail"),
]
