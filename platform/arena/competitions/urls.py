from django.urls import path

from .apis import (
    CompetitionAdvanceApi,
    CompetitionCancelApi,
    CompetitionDetailApi,
    CompetitionEntriesApi,
    CompetitionEntryDetailApi,
    CompetitionInvitationApi,
    CompetitionListApi,
)

urlpatterns = [
    path("", CompetitionListApi.as_view(), name="competition-list"),
    path("<slug:slug>/", CompetitionDetailApi.as_view(), name="competition-detail"),
    path("<slug:slug>/entries/", CompetitionEntriesApi.as_view(), name="competition-entries"),
    path(
        "<slug:slug>/entries/<int:bot_id>/",
        CompetitionEntryDetailApi.as_view(),
        name="competition-entry-detail",
    ),
    path("<slug:slug>/cancel/", CompetitionCancelApi.as_view(), name="competition-cancel"),
    path(
        "<slug:slug>/invitation/",
        CompetitionInvitationApi.as_view(),
        name="competition-invitation",
    ),
    path("<slug:slug>/advance/", CompetitionAdvanceApi.as_view(), name="competition-advance"),
]
