from django.urls import path

from .apis import (
    TeamDetailApi,
    TeamInviteApi,
    TeamJoinApi,
    TeamLeaveApi,
    TeamListApi,
    TeamMemberApi,
)

urlpatterns = [
    path("", TeamListApi.as_view(), name="team-list"),
    path("join/", TeamJoinApi.as_view(), name="team-join"),
    path("<int:team_id>/", TeamDetailApi.as_view(), name="team-detail"),
    path("<int:team_id>/invite/", TeamInviteApi.as_view(), name="team-invite"),
    path("<int:team_id>/leave/", TeamLeaveApi.as_view(), name="team-leave"),
    path(
        "<int:team_id>/members/<str:username>/",
        TeamMemberApi.as_view(),
        name="team-member",
    ),
]
