"""The events of games being played, kept while they play so their pages can follow them.

A game's feed (``match:12``, ``table:3``) is a run of chunks, each the events
its player published at once, from event ``start`` to ``end``. A game played
again (a match's next attempt) starts a new ``attempt`` from event 0. Feeds
are short-lived: the stored log replaces them when the game ends.
"""

from __future__ import annotations

from django.db import models


class LiveChunk(models.Model):
    """Events ``start`` to ``end`` (excluded) of one attempt at a game still in play."""

    feed = models.CharField(max_length=64, help_text="Whose game: match:<id>, table:<id>.")
    attempt = models.PositiveIntegerField()
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    events = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = (
            # One chunk per start: a reader's "events since N" is one range scan of it.
            models.UniqueConstraint(
                fields=["feed", "attempt", "start"], name="livechunk_feed_attempt_start"
            ),
            models.CheckConstraint(
                condition=models.Q(end__gt=models.F("start")), name="livechunk_not_empty"
            ),
        )
        indexes = (models.Index(fields=["created_at"], name="livechunk_created"),)

    def __str__(self) -> str:
        return f"{self.feed} attempt {self.attempt}: events {self.start}-{self.end}"
