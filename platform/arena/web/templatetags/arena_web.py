"""Formatting filters of the web pages."""

from __future__ import annotations

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
