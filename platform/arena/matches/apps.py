from django.apps import AppConfig


class MatchesConfig(AppConfig):
    name = "arena.matches"
    label = "matches"
    verbose_name = "Matches"
