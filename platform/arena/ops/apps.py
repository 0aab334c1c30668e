from django.apps import AppConfig


class OpsConfig(AppConfig):
    name = "arena.ops"
    label = "ops"
    verbose_name = "Operations: metrics, health and readiness"
