from django.apps import AppConfig


class PlayersConfig(AppConfig):
    name = "arena.players"
    label = "players"
    verbose_name = "Players"
