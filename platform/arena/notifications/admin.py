"""Staff read the delivery log (why an author was not told); nothing here sends."""

from __future__ import annotations

from django.contrib import admin

from .models import Delivery


@admin.register(Delivery)
class DeliveryAdmin(admin.ModelAdmin[Delivery]):
    list_display = ("pk", "user", "channel", "status", "attempts", "created_at", "sent_at")
    list_filter = ("status", "channel")
    search_fields = ("user__username", "target")
    readonly_fields = tuple(field.name for field in Delivery._meta.fields)
    list_select_related = ("user",)
    # No exact total: the log grows with every event.
    show_full_result_count = False

    def has_add_permission(self, request: object) -> bool:
        return False
