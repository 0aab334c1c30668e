from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from arena.errors import ArenaError

from .models import Bot, BotVersion, Draft, TestGame
from .services import bot_version_retire


class BotVersionInline(admin.TabularInline[BotVersion, Bot]):
    model = BotVersion
    fields = ("number", "status", "code_format", "code_size", "code_sha256", "created_at")
    readonly_fields = fields
    ordering = ("-number",)
    extra = 0
    max_num = 0
    can_delete = False
    show_change_link = True


@admin.register(Bot)
class BotAdmin(admin.ModelAdmin[Bot]):
    list_display = ("name", "owner", "team", "visibility", "workbench", "created_at")
    list_filter = ("visibility", "workbench")
    list_select_related = ("owner", "team")
    search_fields = ("name", "owner__username", "team__name")
    raw_id_fields = ("owner", "team")
    inlines = (BotVersionInline,)


@admin.register(BotVersion)
class BotVersionAdmin(admin.ModelAdmin[BotVersion]):
    list_display = ("__str__", "owner", "status", "code_format", "code_size", "created_at")
    list_filter = ("status", "code_format")
    list_select_related = ("bot__owner",)
    search_fields = ("bot__name", "code_sha256")
    # Versions are immutable: the admin shows them; uploads and services create them.
    # The code's name only (code_name): a file widget asks the storage for a URL.
    exclude = ("code",)
    readonly_fields = (
        "bot",
        "number",
        "parent",
        "code_name",
        "code_sha256",
        "code_size",
        "code_format",
        "runtime",
        "status",
        "status_changed_at",
        "validation_report",
        "created_at",
    )
    actions = ("retire",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.display(description="owner", ordering="bot__owner__username")
    def owner(self, version: BotVersion) -> str:
        # Two owners' bots may share a name: the list tells them apart.
        return version.bot.owner.username

    @admin.display(description="code")
    def code_name(self, version: BotVersion) -> str:
        # The name, not a link: code is private, and the database storage has no URLs.
        return str(version.code.name)

    @admin.action(description="Retire the selected versions")
    def retire(self, request: HttpRequest, queryset: QuerySet[BotVersion]) -> None:
        for version in queryset:
            try:
                bot_version_retire(version=version)
            except ArenaError as error:
                self.message_user(request, error.message, messages.WARNING)


@admin.register(Draft)
class DraftAdmin(admin.ModelAdmin[Draft]):
    """Drafts are their authors' work in progress: staff see them, nobody edits them here."""

    list_display = ("__str__", "owner", "filename", "updated_at")
    list_select_related = ("owner",)
    search_fields = ("name", "owner__username")
    readonly_fields = ("owner", "name", "filename", "source", "started_from", "created_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(TestGame)
class TestGameAdmin(admin.ModelAdmin[TestGame]):
    list_display = ("__str__", "owner", "ladder", "build", "match", "created_at")
    list_select_related = ("owner", "ladder", "build__bot", "match")
    search_fields = ("owner__username",)
    readonly_fields = (
        *("owner", "draft", "ladder", "build", "opponents", "seat", "match", "created_at"),
    )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False
