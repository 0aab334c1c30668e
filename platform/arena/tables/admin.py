from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from .models import Table, TableSeat


class TableSeatInline(admin.TabularInline[TableSeat, Table]):
    model = TableSeat
    fields = ("seat", "bot_version", "money", "rank", "forfeit")
    readonly_fields = fields
    ordering = ("seat",)
    extra = 0
    max_num = 0
    can_delete = False


@admin.register(Table)
class TableAdmin(admin.ModelAdmin[Table]):
    """Read-only: tables are played by the workers and answered by their players."""

    list_display = ("id", "player", "rules", "seats", "status", "created_at", "finished_at")
    list_filter = ("status", "rules")
    list_select_related = ("player",)
    ordering = ("-id",)
    show_full_result_count = False
    exclude = ("log",)  # a file widget asks the storage for a URL
    readonly_fields = (
        "player",
        "rules",
        "seats",
        "options",
        "seat",
        "time_per_decision_ms",
        "time_bank_ms",
        "memory_mb",
        "decision_seconds",
        "seed",
        "status",
        "created_at",
        "started_at",
        "heartbeat_at",
        "finished_at",
        "request_id",
        "observation",
        "asked_at",
        "deadline_at",
        "answer",
        "log_size",
        "error",
    )
    inlines = (TableSeatInline,)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False
