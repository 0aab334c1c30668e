"""Competitions in the admin: read everything, edit the title and description, advance
now, cancel, renew the invitation link. "Add" opens /competitions/new/ (the API creates
them too): the services check the calendar and make the ladders."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse

from arena.errors import ArenaError
from arena.players.models import User

from .models import Competition, CompetitionEntry, CompetitionLadder, CompetitionPlacing
from .services import competition_advance, competition_cancel, competition_invitation_renew


class LadderInline(admin.TabularInline[CompetitionLadder, Competition]):
    model = CompetitionLadder
    fields = ("ladder", "league", "note")
    readonly_fields = fields
    extra = 0
    max_num = 0
    can_delete = False


class EntryInline(admin.TabularInline[CompetitionEntry, Competition]):
    model = CompetitionEntry
    fields = ("bot", "ladder", "status", "frozen_version", "note", "created_at")
    readonly_fields = fields
    ordering = ("created_at",)
    extra = 0
    max_num = 0
    can_delete = False


class PlacingInline(admin.TabularInline[CompetitionPlacing, Competition]):
    model = CompetitionPlacing
    fields = ("ladder", "rank", "bot_name", "owner_username", "version_number", "points", "money")
    readonly_fields = fields
    ordering = ("ladder", "rank")
    extra = 0
    max_num = 0
    can_delete = False


@admin.register(Competition)
class CompetitionAdmin(admin.ModelAdmin[Competition]):
    list_display = ("title", "slug", "phase", "access", "entry_opens_at", "freeze_at", "organiser")
    list_filter = ("phase", "access", "final_format")
    list_select_related = ("organiser",)
    search_fields = ("title", "slug")
    readonly_fields = tuple(
        f.name for f in Competition._meta.concrete_fields if f.name not in ("title", "description")
    )
    inlines = (LadderInline, EntryInline, PlacingInline)
    actions = ("advance_now", "cancel", "renew_invitation")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.is_staff)

    def add_view(
        self, request: HttpRequest, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        """ "Add" opens the site's creation form: it is the one that checks the calendar,
        makes the ladders and previews the rule systems (a second form here would drift)."""
        return redirect(reverse("web:competition-new"))

    def _each(
        self,
        request: HttpRequest,
        queryset: QuerySet[Competition],
        action: Callable[[Competition], object],
    ) -> None:
        for competition in queryset:
            try:
                action(competition)
            except ArenaError as error:
                self.message_user(request, error.message, messages.WARNING)

    @admin.action(description="Advance now (every phase due)")
    def advance_now(self, request: HttpRequest, queryset: QuerySet[Competition]) -> None:
        self._each(request, queryset, lambda c: competition_advance(competition=c))

    @admin.action(description="Cancel the selected competitions")
    def cancel(self, request: HttpRequest, queryset: QuerySet[Competition]) -> None:
        user = request.user
        assert isinstance(user, User)
        self._each(request, queryset, lambda c: competition_cancel(competition=c, by=user))

    @admin.action(description="Renew the invitation links (old links stop working)")
    def renew_invitation(self, request: HttpRequest, queryset: QuerySet[Competition]) -> None:
        user = request.user
        assert isinstance(user, User)
        self._each(
            request, queryset, lambda c: competition_invitation_renew(competition=c, by=user)
        )
