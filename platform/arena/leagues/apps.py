from django.apps import AppConfig


class LeaguesConfig(AppConfig):
    name = "arena.leagues"
    label = "leagues"
    verbose_name = "Leagues and tournaments"
