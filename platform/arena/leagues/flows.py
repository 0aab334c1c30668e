"""The leagues' writes that work follows: the service, then the tasks it calls for,
queued once the write commits.

Services never queue their app's tasks, so that they stay below them (tasks call
services); what the pages, the API and the admin call when a write must be followed
by work is here, above both.
"""

from __future__ import annotations

from datetime import datetime

from arena.queueing import publish_on_commit

from . import services
from .models import League
from .tasks import league_tick


def league_resume(*, league: League, now: datetime | None = None) -> League:
    """Resume a paused league (:func:`~arena.leagues.services.league_resume`) and advance
    it at once rather than at the next sweep: a round already due starts now."""
    resumed = services.league_resume(league=league, now=now)
    publish_on_commit(league_tick, resumed.pk)
    return resumed
