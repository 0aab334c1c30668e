"""Seasons: staff close a ladder's season into a frozen final table and open the next,
its ratings carried over or reset (docs/ladders.md, *Seasons*).

Why ratings are reset in place: a rating is keyed by (ladder, version), and everything
that plays or shows a ladder (matchmaking, the rating pass, leaderboards, refits, the
levels, the bot page) reads those rows. Resetting them to the rating model's initial
values, with the final table archived as rows of its own (:class:`Standings`) and the
rating history (``RatingChange``) kept on the rows, changes no reader; only the two
readers of the whole rated history (the refit, the version verdicts) learn to start at
``Ladder.ratings_reset_at``.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Literal

from django.db import transaction
from django.utils import timezone

from arena.bots.selectors import team_name
from arena.errors import ArenaError
from arena.matches.models import Match, MatchStatus
from arena.players.models import User

from ..elo import INITIAL_DEVIATION, INITIAL_RATING, Calibration
from ..models import Ladder, Rating, Season, SeasonStart, StandingRow, Standings
from ..selectors import ladder_leaderboard
from .ratings import LADDER_CALIBRATION_FIELDS, ratings_apply

log = logging.getLogger(__name__)

NextStart = Literal["carry", "reset"]
NEXT_STARTS: dict[str, SeasonStart] = {"carry": SeasonStart.CARRIED, "reset": SeasonStart.RESET}


class SeasonError(ArenaError):
    code = "season"


class SeasonChoiceError(SeasonError):
    code = "season_choice"


class SeasonPermissionError(SeasonError):
    code = "season_forbidden"
    http_status = 403


class SeasonAlreadyClosedError(SeasonError):
    code = "season_closed"
    http_status = 409


def season_default_name(number: int) -> str:
    return f"Season {number}"


def season_close(
    *,
    ladder: Ladder,
    next_start: str,
    by: User,
    season: int | None = None,
    name: str = "",
) -> Season:
    """Close the ladder's running season and open the next; returns the new season.

    ``next_start``: "carry" keeps every rating as it is, "reset" starts every rating of
    the ladder afresh (INITIAL_RATING, no rated games, a fresh stretch and refit).
    ``season``: the number of the season the caller means to close (as its page showed
    it); a close that finds another season running is refused, so two staff closing at
    once close it once. ``name``: the new season's (default "Season N").

    In one transaction, under the ladder's row lock (the lock the rating pass takes):
    the results finished before the close are rated first, so they count in the closing
    season; the standings are copied into a frozen table; the next season opens. Matches
    queued or running at the close stay and are rated when they finish, in the new
    season (after a reset, from the fresh ratings), as is a duplicate deal not finished.
    """
    start = NEXT_STARTS.get(next_start)
    if start is None:
        raise SeasonChoiceError(
            f'the next season starts with "carry" (ratings kept) or "reset" (ratings start '
            f'afresh), not "{next_start}".'
        )
    if not (by.is_active and by.is_staff):
        raise SeasonPermissionError("only staff may close a ladder's season: ask an administrator.")
    name = name.strip()
    if len(name) > Season._meta.get_field("name").max_length:  # type: ignore[operator]
        raise SeasonError("a season's name is at most 100 characters.")
    with transaction.atomic():
        ladder = Ladder.objects.select_for_update().get(pk=ladder.pk)
        running = Season.objects.filter(ladder=ladder, ended_at__isnull=True).first()
        number = 1 if running is None else running.number
        if season is not None and season < number:
            raise SeasonAlreadyClosedError(
                f"season {season} of {ladder.name} is already closed: season {number} runs "
                "now. Reload the ladder to close that one."
            )
        if season is not None and season > number:
            raise SeasonError(
                f"{ladder.name} has no season {season} yet: season {number} runs now, "
                "close that one."
            )
        _rate_finished(ladder)
        now = timezone.now()
        if running is None:  # the ladder's first season, begun with it
            running = Season(
                ladder=ladder,
                number=1,
                name=season_default_name(1),
                started_at=ladder.created_at,
                began=SeasonStart.FIRST,
            )
        running.standings = _archive(ladder, title=f"{ladder.name} · {running.name}")
        running.ended_at = now
        running.closed_by = by
        running.save()
        following = Season.objects.create(
            ladder=ladder,
            number=number + 1,
            name=name or season_default_name(number + 1),
            started_at=now,
            began=start,
        )
        if start == SeasonStart.RESET:
            _reset_ratings(ladder, now)
    log.info("ladder %s: season %d closed by %s (%s)", ladder.pk, number, by.pk, next_start)
    return following


def _rate_finished(ladder: Ladder) -> None:
    """Rate the ladder's finished results not rated yet (their task may still be queued),
    so that everything finished before the close counts in the closing season."""
    latest = (
        Match.objects.filter(
            ladder=ladder, status=MatchStatus.FINISHED, rated=True, rated_at__isnull=True
        )
        .order_by("-finished_at", "-id")
        .first()
    )
    if latest is not None:
        ratings_apply(match=latest)  # takes the ladder lock this transaction holds
        ladder.refresh_from_db()


def _archive(ladder: Ladder, *, title: str) -> Standings:
    """Copy the ladder's standings as its page shows them: settled ratings ranked, best
    first, then the provisional ones, unranked."""
    standings = Standings.objects.create(title=title)
    rows = []
    position = 0
    for provisional in (False, True):
        ratings = ladder_leaderboard(ladder=ladder, provisional=provisional)
        for rating in ratings.iterator(chunk_size=2000):
            position += 1
            rows.append(
                StandingRow(
                    standings=standings,
                    position=position,
                    rank=None if provisional else position,
                    bot_id=rating.bot_id,
                    bot_name=rating.bot.name,
                    bot_version_id=rating.bot_version_id,
                    version_number=rating.bot_version.number,
                    owner_id=rating.bot.owner_id,
                    owner_username=rating.bot.owner.username,
                    team_name=team_name(rating.bot),
                    rating=rating.rating,
                    deviation=rating.deviation,
                    games=rating.rated_matches,
                    provisional=provisional,
                )
            )
    StandingRow.objects.bulk_create(rows, batch_size=2000)
    return standings


def _reset_ratings(ladder: Ladder, now: datetime) -> None:
    """Every rating of the ladder starts afresh; its history stays on the row."""
    Rating.objects.filter(ladder=ladder).update(
        rating=INITIAL_RATING,
        deviation=INITIAL_DEVIATION,
        rated_matches=0,
        prior=INITIAL_RATING,
        updated_at=now,
    )
    ladder.elo_scale = 1.0
    ladder.calibration = Calibration()
    ladder.rated_units = 0
    ladder.refit_units = 0
    ladder.refit_at = None
    # The boundary of the results the refit and the verdicts read (``Match.rated_at``):
    # results rated by this close came before ``now``, and later ones wait for the
    # ladder's lock this transaction holds, so they are stamped after it.
    ladder.ratings_reset_at = now
    ladder.save(
        update_fields=[*LADDER_CALIBRATION_FIELDS, "refit_units", "refit_at", "ratings_reset_at"]
    )
