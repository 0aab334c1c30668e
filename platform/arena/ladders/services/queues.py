"""Matchmaking's writes: the ladders' queues of matches kept filled (beat's job)."""

from __future__ import annotations

import logging
import random
from collections.abc import Sequence

from django.conf import settings
from django.db import transaction

from arena.bots.models import BotVersion
from arena.matches.models import Match, MatchStatus
from arena.matches.services import match_create_series

from ..matchmaking import LadderQueue, plan_picks
from ..models import (
    Ladder,
)
from ..selectors import matchmaking_candidates

log = logging.getLogger(__name__)

log = logging.getLogger(__name__)


def ladder_fill_queue(*, ladder: Ladder, rng: random.Random | None = None) -> list[Match]:
    """Queue matches on one open ladder up to ARENA_LADDER_QUEUE_TARGET."""
    return ladders_fill_queues(ladders=[ladder], rng=rng)


def ladders_fill_queues(
    *, ladders: Sequence[Ladder] | None = None, rng: random.Random | None = None
) -> list[Match]:
    """Queue matches on the open ladders (all by default) up to ARENA_LADDER_QUEUE_TARGET each.

    The beat's job. Seats are picked by arena.ladders.matchmaking: one pick at
    a time from the least-served ladder, so the per-bot cap shared by all
    ladders never lets one ladder take every bot. Each pick is a series
    (``Ladder.series_games`` games of the same bots, seats rotating, played
    by one worker run: ``match_create_series``); on a duplicate ladder a
    series of whole deals, each counted as one game of its bots, as it is
    rated once. House bots alone play until
    each has ARENA_HOUSE_ONLY_GAMES games (a fresh platform is alive at once
    and its house bots leave the provisional range), then rest until an
    uploaded bot joins. The ladder row locks (in id order) serialise fills
    and rating, so two fills never both count the same free places.
    """
    rng = rng or random.Random()
    ids = [ladder.pk for ladder in ladders] if ladders is not None else None
    created: list[Match] = []
    with transaction.atomic():
        locked = Ladder.objects.select_for_update().filter(is_open=True).order_by("pk")
        if ids is not None:
            locked = locked.filter(pk__in=ids)
        queues = {
            ladder.pk: (
                ladder,
                LadderQueue(
                    ladder_id=ladder.pk,
                    seats=ladder.seats,
                    candidates=matchmaking_candidates(ladder=ladder),
                    queued=Match.objects.filter(ladder=ladder, status=MatchStatus.QUEUED).count(),
                    pick_size=ladder.pick_games,
                    pick_units=ladder.pick_units,
                    duplicate_deals=ladder.duplicate_deals,
                ),
            )
            for ladder in locked
        }
        plan = plan_picks(
            [queue for _, queue in queues.values()],
            target=settings.ARENA_LADDER_QUEUE_TARGET,
            max_queued=settings.ARENA_BOT_MAX_QUEUED,
            house_only_games=settings.ARENA_HOUSE_ONLY_GAMES,
            rng=rng,
        )
        found = BotVersion.objects.in_bulk({c.version_id for p in plan for c in p.seating})
        for pick in plan:
            ladder = queues[pick.queue.ladder_id][0]
            created.extend(
                match_create_series(
                    ladder_id=ladder.pk,
                    game=ladder.game,
                    versions=[found[c.version_id] for c in pick.seating],
                    units=pick.units,
                    duplicate_deals=ladder.duplicate_deals,
                )
            )
    if created:
        log.info("queued matches %s", [m.pk for m in created])
    return created
