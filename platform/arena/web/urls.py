"""The pages of the site (the JSON API lives under /api/)."""

from django.contrib.auth import views as auth_views
from django.urls import path

from . import (
    competition_views,
    editor_views,
    level_views,
    notification_views,
    table_views,
    team_views,
    views,
)

app_name = "web"

urlpatterns = [
    path("", views.home, name="home"),
    path("docs/", views.docs_index, name="docs"),
    path("docs/<slug:slug>/", views.doc_page, name="doc"),
    path("kits/", views.kits_page, name="kits"),
    path("kits/vegas-kit-<slug:lang>.zip", views.kit_download, name="kit-download"),
    path("ladders/<slug:slug>/", views.ladder_detail, name="ladder"),
    path("ladders/<slug:slug>/live/", views.ladder_live, name="ladder-live"),
    path("ladders/<slug:slug>/seasons/<int:number>/", views.ladder_season, name="ladder-season"),
    path("bots/<int:bot_id>/", views.bot_detail, name="bot"),
    path("bots/<int:bot_id>/versions/", views.bot_versions_live, name="bot-versions"),
    path("bots/<int:bot_id>/ladders/", views.bot_entries_view, name="bot-entries"),
    path("bots/<int:bot_id>/challenge/", views.challenge_new, name="challenge-new"),
    path("bots/<int:bot_id>/team/", team_views.bot_team_view, name="bot-team"),
    path("teams/", team_views.teams_page, name="teams"),
    path("teams/<int:team_id>/", team_views.team_detail, name="team"),
    path("teams/<int:team_id>/invite/", team_views.team_invite_view, name="team-invite"),
    path("teams/<int:team_id>/leave/", team_views.team_leave_view, name="team-leave"),
    path(
        "teams/<int:team_id>/members/<str:username>/",
        team_views.team_member_view,
        name="team-member",
    ),
    path("teams/join/<str:token>/", team_views.team_join_view, name="team-join"),
    path(
        "bots/<int:bot_id>/versions/<int:number>/challenge/",
        views.version_challenge_new,
        name="version-challenge",
    ),
    path("challenges/<int:challenge_id>/", views.challenge_detail, name="challenge"),
    path("matches/<int:match_id>/", views.match_detail, name="match"),
    path("leagues/", views.league_list_page, name="leagues"),
    # Before leagues/<slug>/: "new" is no league's slug (leagues.services.RESERVED_SLUGS).
    path("leagues/new/", views.league_new, name="league-new"),
    path("leagues/new/plan/", views.league_plan_view, name="league-plan"),
    path("leagues/<slug:slug>/", views.league_detail, name="league"),
    path("leagues/<slug:slug>/pause/", views.league_pause_view, name="league-pause"),
    path("leagues/<slug:slug>/resume/", views.league_resume_view, name="league-resume"),
    path("leagues/<slug:slug>/cancel/", views.league_cancel_view, name="league-cancel"),
    path("leagues/<slug:slug>/entries/", views.league_entry_add_view, name="league-entry-add"),
    path(
        "leagues/<slug:slug>/entries/<int:bot_id>/withdraw/",
        views.league_entry_withdraw_view,
        name="league-entry-withdraw",
    ),
    path(
        "leagues/<slug:slug>/entries/<int:bot_id>/respond/",
        views.league_entry_respond_view,
        name="league-entry-respond",
    ),
    path("competitions/", competition_views.competitions_page, name="competitions"),
    # Before competitions/<slug>/: "new" is no competition's slug.
    path("competitions/new/", competition_views.competition_new, name="competition-new"),
    path("competitions/<slug:slug>/", competition_views.competition_page, name="competition"),
    path(
        "competitions/<slug:slug>/enter/",
        competition_views.competition_enter_view,
        name="competition-enter",
    ),
    path(
        "competitions/<slug:slug>/entries/<int:bot_id>/withdraw/",
        competition_views.competition_withdraw_view,
        name="competition-withdraw",
    ),
    path(
        "competitions/<slug:slug>/invitation/",
        competition_views.competition_invitation_view,
        name="competition-invitation",
    ),
    path(
        "competitions/<slug:slug>/cancel/",
        competition_views.competition_cancel_view,
        name="competition-cancel",
    ),
    path("editor/", editor_views.editor_home, name="editor"),
    path("editor/<int:draft_id>/", editor_views.editor_draft, name="editor-draft"),
    path("editor/<int:draft_id>/save/", editor_views.editor_save, name="editor-save"),
    path("editor/<int:draft_id>/test/", editor_views.editor_test, name="editor-test"),
    path("editor/<int:draft_id>/tests/", editor_views.editor_test_games, name="editor-tests"),
    path("editor/<int:draft_id>/submit/", editor_views.editor_submit, name="editor-submit"),
    path("editor/<int:draft_id>/delete/", editor_views.editor_delete, name="editor-delete"),
    path("levels/", level_views.levels_page, name="levels"),
    path("levels/<int:number>/code/", level_views.level_code_view, name="level-code"),
    path("notifications/", notification_views.notifications_page, name="notifications"),
    path("play/", table_views.play, name="play"),
    path("play/<int:table_id>/", table_views.table_page, name="table"),
    path("play/<int:table_id>/leave/", table_views.table_leave, name="table-leave"),
    path("players/<str:username>/", views.player_detail, name="player"),
    path("upload/", views.upload, name="upload"),
    path("signup/", views.signup, name="signup"),
    path(
        "login/",
        auth_views.LoginView.as_view(
            template_name="web/login.html", next_page="web:home", redirect_authenticated_user=True
        ),
        name="login",
    ),
    path("logout/", auth_views.LogoutView.as_view(next_page="web:home"), name="logout"),
]
