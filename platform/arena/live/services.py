"""Writes on live feeds: a game's events published while it plays, dropped once it ended."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any

from django.db import DatabaseError
from django.utils import timezone

from vegas_engine import State
from vegas_engine.log import events_of

from .models import LiveChunk

log = logging.getLogger(__name__)


class LivePublisher:
    """The referee's ``on_progress`` for one game: its new events, at most every
    ``interval_s`` seconds (0: at every call), as chunks of ``feed``'s ``attempt``.

    The referee's state keeps moves; their events are made only when a chunk is
    due (:func:`vegas_engine.log.events_of`), so a game shown by nobody, or over
    within the first interval, costs no event. A new attempt starts the feed
    afresh. The database failing loses a view of the game, never the game: the
    error is logged and the next call tries again.
    """

    def __init__(self, *, feed: str, attempt: int, interval_s: float) -> None:
        self.feed = feed
        self.attempt = attempt
        self.interval_s = interval_s
        self.sent = 0
        # The first chunk waits one interval too: a game over sooner writes nothing
        # (a series plays most of its games in less), its stored log is the view.
        self.last = time.monotonic()
        self._events: Callable[[], Sequence[dict[str, Any]]] = tuple
        if attempt > 1:  # a first attempt has nothing to clear: no write for most games
            self._publish(lambda: LiveChunk.objects.filter(feed=feed).delete())

    def __call__(self, game_id: int, state: State) -> None:
        self._follow(lambda: events_of(state))

    def show(self, events: Sequence[dict[str, Any]]) -> None:
        """Follow a list of events (made elsewhere) as :meth:`__call__` follows a state."""
        self._follow(lambda: events)

    def _follow(self, events: Callable[[], Sequence[dict[str, Any]]]) -> None:
        self._events = events
        if time.monotonic() - self.last >= self.interval_s:
            self.flush()

    def flush(self) -> None:
        """Publish every event not published yet, now."""
        events = self._events()
        if len(events) <= self.sent:
            return
        start, end = self.sent, len(events)
        chunk = LiveChunk(
            feed=self.feed, attempt=self.attempt, start=start, end=end, events=list(events[start:])
        )
        if self._publish(chunk.save):
            self.sent, self.last = end, time.monotonic()

    def _publish(self, write: Any) -> bool:
        try:
            write()
        except DatabaseError as error:
            log.warning("live feed %s not published: %s", self.feed, error)
            return False
        return True


def live_drop(*, feed: str) -> int:
    """Forget ``feed`` (its game ended and its log is stored); returns the chunks removed."""
    deleted, _ = LiveChunk.objects.filter(feed=feed).delete()
    return deleted


def live_sweep(*, older_than: timedelta) -> int:
    """Remove what games that never ended properly (a lost worker, a failed match) left."""
    deleted, _ = LiveChunk.objects.filter(created_at__lt=timezone.now() - older_than).delete()
    return deleted
