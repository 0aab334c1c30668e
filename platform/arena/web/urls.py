"""The pages of the site (the JSON API lives under /api/)."""

from django.contrib.auth import views as auth_views
from django.urls import path

from . import views

app_name = "web"

urlpatterns = [
    path("", views.home, name="home"),
    path("ladders/<slug:slug>/", views.ladder_detail, name="ladder"),
    path("bots/<int:bot_id>/", views.bot_detail, name="bot"),
    path("matches/<int:match_id>/", views.match_detail, name="match"),
    path("leagues/", views.league_list_page, name="leagues"),
    path("leagues/<slug:slug>/", views.league_detail, name="league"),
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
