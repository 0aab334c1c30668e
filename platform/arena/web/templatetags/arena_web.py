"""Formatting filters of the web pages."""

from __future__ import annotations

from datetime import timedelta

from django import template

register = template.Library()


@register.filter
def money(value: int | None) -> str:
    """50000 -> "$50,000" (the game counts whole dollars)."""
    if value is None:
        return "—"
    return f"${value:,}"


@register.filter
def elo_delta(after: float | None, before: float | None) -> str:
    """The signed, rounded change of a rating: "+12", "-8", "±0"."""
    if after is None or before is None:
        return ""
    change = round(after - before)
    if change == 0:
        return "±0"
    return f"+{change}" if change > 0 else f"-{-change}"


@register.filter
def seat_class(seat: int) -> str:
    return f"seat-{seat % 6}"


@register.filter
def duration(value: timedelta | None) -> str:
    """timedelta(days=1, hours=6) -> "1 day 6 hours", as the new-league form reads it."""
    if value is None:
        return ""
    seconds = int(value.total_seconds())
    parts = []
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60), ("second", 1)):
        count, seconds = divmod(seconds, size)
        if count:
            parts.append(f"{count} {unit}{'s' if count != 1 else ''}")
    return " ".join(parts) or "0 seconds"
