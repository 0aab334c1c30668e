from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse

from arena.errors import ArenaError

from .deals import duplicate_deals_by_default
from .flows import house_bots_enter
from .models import Ladder, Rating, RatingChange, Season, StandingRow, Standings
from .selectors import ladder_current_season
from .services import (
    ladder_validate_game,
    ladder_validate_limits,
    ladder_validate_series_games,
    season_close,
)


class DuplicateDealsSelect(forms.NullBooleanSelect):
    """Yes, no, or left to the seats: a checkbox cannot tell "no" from "not said"."""

    def __init__(self, attrs: dict[str, Any] | None = None) -> None:
        super().__init__(attrs)
        self.choices = [
            ("unknown", "By the seats: duplicate deals on 2 seats, single games on more"),
            ("true", "Duplicate deals"),
            ("false", "Single games"),
        ]


class LadderForm(forms.ModelForm[Ladder]):
    duplicate_deals = forms.NullBooleanField(
        required=False,
        widget=DuplicateDealsSelect,
        help_text=Ladder._meta.get_field("duplicate_deals").help_text,
    )

    class Meta:
        model = Ladder
        fields = "__all__"

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("duplicate_deals") is None and data.get("seats") is not None:
            # As ladder_create does when its caller does not say.
            data["duplicate_deals"] = duplicate_deals_by_default(data["seats"])
        game_fields = ("rules", "seats", "options")
        if all(name in data for name in game_fields):
            try:
                # Stored resolved: every option, defaults filled in by the engine.
                data["options"] = ladder_validate_game(
                    rules=data["rules"], seats=data["seats"], options=data["options"] or {}
                )
            except ArenaError as error:
                raise forms.ValidationError(error.message) from None
        limit_fields = ("time_per_decision_ms", "time_bank_ms", "memory_mb")
        if all(data.get(name) is not None for name in limit_fields):
            try:
                ladder_validate_limits(**{name: data[name] for name in limit_fields})
            except ArenaError as error:
                raise forms.ValidationError(error.message) from None
        if data.get("series_games") is not None:
            try:
                ladder_validate_series_games(series_games=data["series_games"])
            except ArenaError as error:
                raise forms.ValidationError(error.message) from None
        return data


class SeasonCloseForm(forms.Form):
    """The confirmation of "Close the season": how the next one starts."""

    next_start = forms.ChoiceField(
        choices=[
            ("carry", "Carry the ratings over: the new season starts where this one ends"),
            ("reset", "Reset the ratings: every bot starts the new season at 1500, provisional"),
        ],
        widget=forms.RadioSelect,
        label="The next season",
    )
    name = forms.CharField(
        max_length=100, required=False, help_text='Left empty: "Season N".', label="Its name"
    )


@admin.register(Ladder)
class LadderAdmin(admin.ModelAdmin[Ladder]):
    form = LadderForm
    list_display = (
        "name",
        "slug",
        "rules",
        "seats",
        "duplicate_deals",
        "series_games",
        "is_open",
        "created_at",
    )
    list_filter = ("rules", "seats", "duplicate_deals", "is_open")
    actions = ("close_season",)
    prepopulated_fields: ClassVar[dict[str, Sequence[str]]] = {"slug": ("name",)}

    def save_model(self, request: HttpRequest, obj: Ladder, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        if not change:  # as ladder_create does: a new ladder plays from the start
            house_bots_enter(ladder=obj)

    def get_readonly_fields(
        self, request: HttpRequest, obj: Ladder | None = None
    ) -> tuple[str, ...]:
        if obj is None:
            return ()
        # Kept by the rating services only: shown, never edited.
        ratings = ("rated_units", "refit_units", "refit_at", "elo_scale")
        # Changing the game (or single games for deals) under existing ratings would mix two.
        if obj.matches.exists():
            return ("rules", "seats", "options", "duplicate_deals", *ratings)
        return ratings

    @admin.action(description="Close the season of the selected ladders", permissions=["change"])
    def close_season(self, request: HttpRequest, queryset: QuerySet[Ladder]) -> HttpResponse | None:
        """A confirmation page first (how the next season starts); its post closes each
        ladder's season it showed, by number, so a season closed meanwhile is not closed
        twice."""
        ladders = list(queryset.order_by("name"))
        running = {ladder.pk: ladder_current_season(ladder=ladder) for ladder in ladders}
        form = SeasonCloseForm(request.POST if "confirm" in request.POST else None)
        if form.is_valid():
            for ladder in ladders:
                shown = request.POST.get(f"season-{ladder.pk}", "")
                try:
                    following = season_close(
                        ladder=ladder,
                        next_start=form.cleaned_data["next_start"],
                        by=request.user,  # type: ignore[arg-type]  # the admin signs in
                        season=int(shown) if shown.isdigit() else None,
                        name=form.cleaned_data["name"],
                    )
                except ArenaError as error:
                    self.message_user(request, f"{ladder.name}: {error.message}", messages.ERROR)
                else:
                    self.message_user(
                        request,
                        f"{ladder.name}: season {following.number - 1} closed and archived; "
                        f"{following.name} has begun.",
                    )
            return None
        context = {
            **self.admin_site.each_context(request),
            "title": "Close the season",
            "opts": self.model._meta,
            "ladders": [(ladder, running[ladder.pk]) for ladder in ladders],
            "form": form,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/ladders/close_season.html", context)


class RatingChangeInline(admin.TabularInline[RatingChange, Rating]):
    model = RatingChange
    fields = (
        *("match", "rating_before", "rating_after", "deviation_after"),
        *("k", "matches_before", "created_at"),
    )
    readonly_fields = fields
    ordering = ("-id",)
    extra = 0
    max_num = 0
    can_delete = False
    show_change_link = False


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin[Rating]):
    list_display = ("bot_version", "owner", "ladder", "display", "rated_matches", "updated_at")
    list_filter = ("ladder",)
    list_select_related = ("bot_version__bot", "bot__owner", "ladder")
    search_fields = ("bot__name",)
    readonly_fields = (
        *("ladder", "bot", "bot_version", "rating", "deviation", "rated_matches", "prior"),
    )
    inlines = (RatingChangeInline,)

    @admin.display(description="owner", ordering="bot__owner__username")
    def owner(self, rating: Rating) -> str:
        # Two owners' bots may share a name: the list tells them apart.
        return rating.bot.owner.username

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # ratings come from matches only


class StandingRowInline(admin.TabularInline[StandingRow, Standings]):
    model = StandingRow
    fields = (
        *("position", "rank", "bot_name", "version_number", "owner_username"),
        *("rating", "deviation", "games", "provisional"),
    )
    readonly_fields = fields
    extra = 0
    max_num = 0
    can_delete = False


@admin.register(Season)
class SeasonAdmin(admin.ModelAdmin[Season]):
    """Seasons are written by "Close the season" only; their tables never change."""

    list_display = ("ladder", "number", "name", "began", "started_at", "ended_at")
    list_filter = ("ladder",)
    list_select_related = ("ladder",)
    readonly_fields = (
        *("ladder", "number", "began", "started_at", "ended_at", "standings", "closed_by"),
    )
    fields = (
        *("ladder", "number", "name", "began", "started_at", "ended_at", "closed_by"),
        "standings",
    )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Season | None = None) -> bool:
        return False


@admin.register(Standings)
class StandingsAdmin(admin.ModelAdmin[Standings]):
    """Frozen final tables: read only."""

    list_display = ("title", "archived_at")
    readonly_fields = ("title", "archived_at")
    inlines = (StandingRowInline,)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Standings | None = None) -> bool:
        return False
