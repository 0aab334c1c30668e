from django.apps import AppConfig


class MatchesConfig(AppConfig):
    name = "arena.matches"
    label = "matches"
    verbose_name = "Matches"

    def ready(self) -> None:
        # The lookup field__any_of, which the selectors use for long lists of ids.
        from arena import lookups  # noqa: F401
