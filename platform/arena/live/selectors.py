"""Reads of live feeds: a game's events from a given index on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .models import LiveChunk


@dataclass(frozen=True)
class LiveEvents:
    """The events of a feed's latest attempt from index ``since`` on, of ``total`` so far."""

    attempt: int
    since: int
    total: int
    events: list[dict[str, Any]]


def live_read(*, feed: str, since: int = 0) -> LiveEvents | None:
    """Events ``since`` onwards of the latest attempt; None before the first is published.

    A reader that followed an earlier attempt sees ``attempt`` change: it starts again from 0.
    """
    latest = (
        LiveChunk.objects.filter(feed=feed).order_by("-attempt", "-start").values("attempt", "end")
    ).first()
    if latest is None:
        return None
    attempt, total = latest["attempt"], latest["end"]
    since = max(0, since)
    events: list[dict[str, Any]] = []
    chunks = LiveChunk.objects.filter(feed=feed, attempt=attempt, end__gt=since).order_by("start")
    for start, chunk in chunks.values_list("start", "events"):
        events.extend(chunk[max(0, since - start) :])
    return LiveEvents(attempt=attempt, since=min(since, total), total=total, events=events)
