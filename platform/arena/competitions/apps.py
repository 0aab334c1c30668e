from django.apps import AppConfig


class CompetitionsConfig(AppConfig):
    name = "arena.competitions"
    label = "competitions"
    verbose_name = "Competitions"
