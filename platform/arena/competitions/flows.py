"""The competitions' writes that work follows: the service, then the tasks it made due
(an entrant's pre-flights on the competition's ladder), queued once it commits."""

from __future__ import annotations

from datetime import datetime

from arena.bots.models import Bot
from arena.ladders.flows import queue_preflights
from arena.players.models import User

from . import services
from .models import Competition, CompetitionEntry


def competition_enter(
    *,
    competition: Competition,
    bot: Bot,
    by: User,
    token: str | None = None,
    rules: str | None = None,
    now: datetime | None = None,
) -> CompetitionEntry:
    """Enter ``bot`` (:func:`.services.competition_enter`); its pre-flights on the
    competition's ladder are queued."""
    entry = services.competition_enter(
        competition=competition, bot=bot, by=by, token=token, rules=rules, now=now
    )
    queue_preflights([bot.pk])
    return entry
