from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from arena.errors import ArenaError

from .models import Match, MatchAttempt, Participant
from .services import match_cancel


class ParticipantInline(admin.TabularInline[Participant, Match]):
    model = Participant
    fields = (
        "seat",
        "bot_version",
        "money",
        "rank",
        "forfeit",
        "rating_before",
        "rating_after",
    )
    readonly_fields = fields
    ordering = ("seat",)
    extra = 0
    max_num = 0
    can_delete = False


class MatchAttemptInline(admin.TabularInline[MatchAttempt, Match]):
    """Every attempt, with why each failed: kept when a later one succeeds."""

    model = MatchAttempt
    fields = ("number", "runner", "started_at", "ended_at", "outcome", "fault", "error")
    readonly_fields = fields
    ordering = ("number",)
    extra = 0
    max_num = 0
    can_delete = False


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin[Match]):
    list_display = (
        "id",
        "ladder",
        "status",
        "deal_of",
        "attempts",
        "created_at",
        "finished_at",
        "rated_at",
    )
    list_filter = ("status", "ladder")
    list_select_related = ("ladder",)
    ordering = ("-id",)
    # With a million rows an exact COUNT(*) on every filtered page is wasted work.
    show_full_result_count = False
    # The log's name only (log_name): a file widget asks the storage for a URL.
    exclude = ("log",)
    readonly_fields = (
        "ladder",
        "seed",
        "deal",
        "deal_game",
        "status",
        "attempts",
        "created_at",
        "started_at",
        "finished_at",
        "rated_at",
        "log_name",
        "log_size",
        "retry_at",
        "error",
    )
    inlines = (ParticipantInline, MatchAttemptInline)
    actions = ("cancel",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # matches are created by the services (scheduler, organisers' tools)

    @admin.display(description="log")
    def log_name(self, match: Match) -> str:
        # The name, not a link: the database storage has no URLs (the API serves logs).
        return str(match.log.name or "")

    @admin.display(description="deal")
    def deal_of(self, match: Match) -> str:
        # Ids only: the deal's first match is not loaded for every row.
        return "" if match.deal_id is None else f"game {match.deal_game} of {match.deal_id}"

    @admin.action(description="Cancel the selected matches")
    def cancel(self, request: HttpRequest, queryset: QuerySet[Match]) -> None:
        for match in queryset:
            try:
                match_cancel(match=match)
            except ArenaError as error:
                self.message_user(request, error.message, messages.WARNING)
