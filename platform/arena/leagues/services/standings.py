"""Writes on standings: a league's table, recomputed from its results."""

from __future__ import annotations

import logging
from collections import Counter
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from .. import scoring
from ..models import (
    League,
    LeagueBye,
    LeagueFormat,
    LeagueStanding,
    RoundStatus,
)
from ..selectors import league_units
from .common import IN_PLAY, MAX_ROUNDS

log = logging.getLogger(__name__)


def _byes_so_far(league: League) -> Counter[int]:
    """Rounds each entrant sat out so far.

    A round robin stores every bye at the start; one counts once its round has begun.
    """
    return Counter(
        LeagueBye.objects.filter(
            round__league=league, round__status__in=(RoundStatus.RUNNING, RoundStatus.FINISHED)
        ).values_list("entry_id", flat=True)
    )


def _compute_lines(league: League) -> list[scoring.Line]:
    entries = list(
        league.entries.filter(status__in=IN_PLAY).values_list(
            "pk", "seed", "last_round", "last_place"
        )
    )
    seeds = {pk: seed for pk, seed, _, _ in entries}
    stages = None
    if league.format == LeagueFormat.KNOCKOUT:
        # Still in: above everyone out; out: by the round reached, then the place there.
        stages = {
            pk: (MAX_ROUNDS + 1, 0) if last is None else (last, place or 0)
            for pk, _, last, place in entries
        }
    byes = _byes_so_far(league)
    mean_points = sum(league.points_per_rank) / len(league.points_per_rank)
    return scoring.standings(
        seeds,
        league_units(league=league),
        points_per_rank=league.points_per_rank,
        byes=byes,
        # A bye is worth a table's average points: sitting out neither helps nor hurts.
        bye_points=mean_points * league.games_per_table,
        stages=stages,
    )


def league_standings_recompute(
    *, league: League, now: datetime | None = None
) -> list[LeagueStanding]:
    """Recompute and store the table from every result (idempotent)."""
    lines = _compute_lines(league)
    rows = [
        LeagueStanding(
            league=league,
            entry_id=line.entry,
            position=position,
            points=line.points,
            money=line.money,
            games=line.games,
            results=line.results,
            wins=line.wins,
            forfeits=line.forfeits,
            byes=line.byes,
            rating=line.rating,
            rated_results=line.rated,
        )
        for position, line in enumerate(lines, start=1)
    ]
    with transaction.atomic():
        LeagueStanding.objects.filter(league=league).delete()
        LeagueStanding.objects.bulk_create(rows, batch_size=2000)
        League.objects.filter(pk=league.pk).update(standings_updated_at=now or timezone.now())
    return rows
