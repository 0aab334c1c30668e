"""Matchmaking's writes: the ladders' queues of matches kept filled (beat's job)."""

from __future__ import annotations

import logging
import random
from collections.abc import Sequence
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from arena.bots.models import BotVersion
from arena.matches.models import Match, MatchStatus
from arena.matches.selectors import match_worker_slots, queued_since
from arena.matches.services import match_create_series

from ..matchmaking import LadderQueue, bot_cap, plan_picks, queue_budget
from ..models import Ladder
from ..selectors import matchmaking_candidates

log = logging.getLogger(__name__)


def _id_ranges(ids: list[int]) -> str:
    """``1-12, 15``: a long run of ids as short as a short one."""
    ranges: list[list[int]] = []
    for pk in sorted(ids):
        if ranges and pk == ranges[-1][1] + 1:
            ranges[-1][1] = pk
        else:
            ranges.append([pk, pk])
    return ", ".join(f"{a}-{b}" if a != b else f"{a}" for a, b in ranges)


def match_slots(*, now: datetime) -> int:
    """The worker processes that play matches: ARENA_MATCH_WORKER_SLOTS where set, else
    those of the workers up that consume the matches' queue, as they report it."""
    if settings.ARENA_MATCH_WORKER_SLOTS > 0:
        return int(settings.ARENA_MATCH_WORKER_SLOTS)
    return match_worker_slots(
        queue=settings.CELERY_TASK_DEFAULT_QUEUE,
        now=now,
        stale_after=timedelta(seconds=3 * settings.ARENA_WORKER_PRESENCE_SECONDS),
    )


def ladder_fill_queue(*, ladder: Ladder, rng: random.Random | None = None) -> list[Match]:
    """Queue matches on one open ladder up to its target (:func:`ladders_fill_queues`)."""
    return ladders_fill_queues(ladders=[ladder], rng=rng)


def ladders_fill_queues(
    *, ladders: Sequence[Ladder] | None = None, rng: random.Random | None = None
) -> list[Match]:
    """Queue matches on the open ladders (all by default) up to each one's target: the
    floor ARENA_LADDER_QUEUE_TARGET, or more for the live workers' processes
    (``matchmaking.queue_target``), none on a ladder whose oldest queued match waited
    past ARENA_QUEUE_MAX_AGE_SECONDS.

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
    now = timezone.now()
    slots = match_slots(now=now)
    created: list[Match] = []
    with transaction.atomic():
        locked = Ladder.objects.select_for_update().filter(is_open=True).order_by("pk")
        if ids is not None:
            locked = locked.filter(pk__in=ids)
        locked_ladders = list(locked)
        open_ladders = list(Ladder.objects.filter(is_open=True))
        budget = queue_budget(
            floor=settings.ARENA_LADDER_QUEUE_TARGET,
            slots=slots,
            ladders=len(open_ladders),
            pick_size=sum(ladder.pick_games for ladder in open_ladders) / max(1, len(open_ladders)),
            runs_per_slot=settings.ARENA_QUEUE_RUNS_PER_SLOT,
        )
        oldest = queued_since(ladder_ids=[ladder.pk for ladder in locked_ladders])
        max_age = timedelta(seconds=settings.ARENA_QUEUE_MAX_AGE_SECONDS)
        queues = {
            ladder.pk: (
                ladder,
                LadderQueue(
                    ladder_id=ladder.pk,
                    seats=ladder.seats,
                    candidates=matchmaking_candidates(ladder=ladder),
                    queued=Match.objects.filter(ladder=ladder, status=MatchStatus.QUEUED).count(),
                    target=budget or settings.ARENA_LADDER_QUEUE_TARGET,
                    pick_size=ladder.pick_games,
                    pick_units=ladder.pick_units,
                    duplicate_deals=ladder.duplicate_deals,
                    stale=ladder.pk in oldest and now - oldest[ladder.pk] > max_age,
                ),
            )
            for ladder in locked_ladders
        }
        fields = [queue for _, queue in queues.values()]
        bots = {c.version_id for queue in fields for c in queue.candidates}
        seats = sum(queue.seats for queue in fields) / len(fields) if fields else 0.0
        # The budget is over every open ladder: those not filled now count with their queue.
        elsewhere = (
            Match.objects.filter(status=MatchStatus.QUEUED, ladder__is_open=True)
            .exclude(ladder_id__in=list(queues))
            .count()
            if budget is not None
            else 0
        )
        plan = plan_picks(
            fields,
            max_queued=bot_cap(
                floor=settings.ARENA_BOT_MAX_QUEUED,
                slots=slots,
                budget=budget,
                seats=seats,
                bots=len(bots),
            ),
            budget=None if budget is None else budget - elsewhere,
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
        log.info("queued %s matches: %s", len(created), _id_ranges([m.pk for m in created]))
    return created
