from django.apps import AppConfig


class LiveConfig(AppConfig):
    name = "arena.live"
    label = "live"
    verbose_name = "Games in play"
