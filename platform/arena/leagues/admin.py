from __future__ import annotations

from collections.abc import Callable

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from arena.errors import ArenaError

from .flows import league_resume
from .models import League, LeagueEntry, LeagueRound, LeagueStanding
from .services import league_advance, league_cancel, league_pause


class EntryInline(admin.TabularInline[LeagueEntry, League]):
    model = LeagueEntry
    fields = ("seed", "bot", "bot_version", "status", "reason", "last_round", "last_place")
    readonly_fields = fields
    ordering = ("seed",)
    extra = 0
    max_num = 0
    can_delete = False


class RoundInline(admin.TabularInline[LeagueRound, League]):
    model = LeagueRound
    fields = ("number", "scheduled_at", "status", "started_at", "finished_at")
    readonly_fields = fields
    ordering = ("number",)
    extra = 0
    max_num = 0
    can_delete = False


class StandingInline(admin.TabularInline[LeagueStanding, League]):
    model = LeagueStanding
    fields = ("position", "entry", "points", "money", "games", "wins", "forfeits", "rating")
    readonly_fields = fields
    ordering = ("position",)
    extra = 0
    max_num = 0
    can_delete = False


@admin.register(League)
class LeagueAdmin(admin.ModelAdmin[League]):
    list_display = ("name", "slug", "format", "status", "ladder", "start_at", "organiser")
    list_filter = ("status", "format", "visibility")
    list_select_related = ("ladder", "organiser")
    search_fields = ("name", "slug")
    # Leagues are created through the API (the service checks the whole format).
    readonly_fields = tuple(f.name for f in League._meta.concrete_fields)
    inlines = (EntryInline, RoundInline, StandingInline)
    actions = ("pause", "resume", "cancel", "advance_now")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def _each(
        self, request: HttpRequest, queryset: QuerySet[League], action: Callable[[League], object]
    ) -> None:
        for league in queryset:
            try:
                action(league)
            except ArenaError as error:
                self.message_user(request, error.message, messages.WARNING)

    @admin.action(description="Pause the selected leagues")
    def pause(self, request: HttpRequest, queryset: QuerySet[League]) -> None:
        self._each(request, queryset, lambda league: league_pause(league=league))

    @admin.action(description="Resume the selected leagues")
    def resume(self, request: HttpRequest, queryset: QuerySet[League]) -> None:
        self._each(request, queryset, lambda league: league_resume(league=league))

    @admin.action(description="Cancel the selected leagues")
    def cancel(self, request: HttpRequest, queryset: QuerySet[League]) -> None:
        self._each(request, queryset, lambda league: league_cancel(league=league))

    @admin.action(description="Advance now (start due rounds, collect results)")
    def advance_now(self, request: HttpRequest, queryset: QuerySet[League]) -> None:
        self._each(request, queryset, lambda league: league_advance(league=league))
