"""Ratings: each finished match rated as it comes (Elo by rated unit: a game, or a
duplicate deal once whole), and a ladder's whole history refitted now and then."""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime

from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from arena.bots.models import BotVersion
from arena.errors import ArenaError
from arena.matches.models import Match, MatchStatus, Participant
from bots_sdk.rating import PairTotals, deviation_of, fit_deviations, fit_totals, information_of

from ..deals import SeatResult, unit_standings
from ..elo import (
    INITIAL_RATING,
    Calibration,
    rating_changes,
    stretch,
    unit_calibration,
    unit_deviations,
    unit_k_factors,
    working_rating,
)
from ..models import (
    Ladder,
    Rating,
    RatingChange,
)
from ..refit import refitted
from ..selectors import ladder_rated_units, ladders_needing_refit

log = logging.getLogger(__name__)


class UnratableMatchError(ArenaError):
    """A finished match whose results cannot be rated (a bug upstream, not user input)."""

    code = "match_unratable"


def _starting_rating(ladder_id: int, version: BotVersion) -> float:
    """The rating of the nearest ancestor version rated on this ladder, else the initial one."""
    ancestor_id = version.parent_id
    while ancestor_id is not None:
        found = (
            Rating.objects.filter(ladder_id=ladder_id, bot_version_id=ancestor_id)
            .values_list("rating", flat=True)
            .first()
        )
        if found is not None:
            return found
        ancestor_id = (
            BotVersion.objects.filter(pk=ancestor_id).values_list("parent_id", flat=True).first()
        )
    return INITIAL_RATING


def _locked_ratings(ladder_id: int, versions: list[BotVersion]) -> dict[int, Rating]:
    """The ratings of these versions on the ladder, created if missing, row-locked."""
    existing = set(
        Rating.objects.filter(
            ladder_id=ladder_id, bot_version_id__in=[v.pk for v in versions]
        ).values_list("bot_version_id", flat=True)
    )
    for version in versions:
        if version.pk not in existing:
            start = _starting_rating(ladder_id, version)
            Rating.objects.create(
                ladder_id=ladder_id,
                bot_id=version.bot_id,
                bot_version=version,
                rating=start,
                prior=start,
            )
    # Locked in id order, so two transactions never wait on each other in a cycle.
    rows = Rating.objects.select_for_update().filter(
        ladder_id=ladder_id, bot_version_id__in=[v.pk for v in versions]
    )
    return {row.bot_version_id: row for row in rows.order_by("id")}


#: Where a rated unit sits in the rating order: its (last) match's finish time, then id.
UnitKey = tuple[datetime, int]


def _rate_unit(unit: Sequence[Match], ladder: Ladder) -> None:
    """Rate one unit, once: a match, or every game of a duplicate deal (on their totals).

    The rating changes refer to the unit's first match (a deal's first game),
    so the unique (rating, match) pair keeps a deal rated once too; every
    match of the unit gets ``rated_at`` in this transaction. ``ladder`` (locked)
    gathers the unit's calibration evidence and stretches its ratings when
    enough is in (:func:`_stretch_ratings`); the caller saves it.
    """
    reference = unit[0]
    participants = list(
        Participant.objects.filter(match__in=unit)
        .select_related("bot_version")
        .order_by("match_id", "seat")
    )
    # A deal ranks on money totals, a single match on the referee's ranks.
    deal = reference.deal_id is not None
    missing = [
        (p.match_id, p.seat) for p in participants if p.rank is None or (deal and p.money is None)
    ]
    if missing:
        raise UnratableMatchError(f"match {reference.pk}: (match, seat) {missing} have no result.")
    versions = list({p.bot_version_id: p.bot_version for p in participants}.values())
    ratings = _locked_ratings(reference.ladder_id, versions)
    # A version at two seats gets the sum of both seats' changes, once.
    ranked = unit_standings(
        [
            SeatResult(p.bot_version_id, p.rank or 0, p.money or 0, bool(p.forfeit))
            for p in participants
        ],  # results checked above
        deal=deal,
    )
    rated_matches = {version_id: rating.rated_matches for version_id, rating in ratings.items()}
    shown = {version_id: rating.rating for version_id, rating in ratings.items()}
    # How well the ratings predicted this unit, before it moves them.
    ladder.calibration = ladder.calibration + unit_calibration(ranked, shown)
    delta = rating_changes(ranked, shown, rated_matches, ladder.elo_scale)
    deviations = unit_deviations(
        ranked,
        shown,
        {version_id: rating.deviation for version_id, rating in ratings.items()},
        ladder.elo_scale,
    )
    ks = unit_k_factors(ranked, rated_matches)
    before: dict[int, float] = {}
    after: dict[int, float] = {}
    changes = []
    now = timezone.now()
    for version_id, rating in ratings.items():
        before[version_id] = rating.rating
        after[version_id] = rating.rating + delta[version_id]
        changes.append(
            RatingChange(
                rating=rating,
                match=reference,
                rating_before=before[version_id],
                rating_after=after[version_id],
                deviation_before=rating.deviation,
                deviation_after=deviations[version_id],
                # In shown Elo points, as the change.
                k=ks[version_id] * ladder.elo_scale,
                matches_before=rating.rated_matches,
            )
        )
        rating.rating = after[version_id]
        rating.deviation = deviations[version_id]
        rating.rated_matches += 1
        rating.updated_at = now  # auto_now is not applied by bulk_update
    # One statement each, whatever the seats: a rating follows every game of a series.
    RatingChange.objects.bulk_create(changes)
    Rating.objects.bulk_update(
        ratings.values(), ["rating", "deviation", "rated_matches", "updated_at"]
    )
    for participant in participants:
        participant.rating_before = before[participant.bot_version_id]
        participant.rating_after = after[participant.bot_version_id]
    Participant.objects.bulk_update(participants, ["rating_before", "rating_after"])
    Match.objects.filter(pk__in=[m.pk for m in unit]).update(rated_at=timezone.now())
    ladder.rated_units += 1
    factor = stretch(ladder.calibration)
    if factor is not None:
        _stretch_ratings(ladder, factor)


def _stretch_ratings(ladder: Ladder, factor: float) -> None:
    """Stretch every rating of ``ladder`` (locked) about INITIAL_RATING by ``factor``.

    The Elo the updates run on stays as it was (``elo_scale`` grows by the
    same factor): only the numbers shown move, so that their differences
    mean what Elo says (``elo.stretch``), the deviations with them. The
    ratings' history keeps the numbers shown at the time.
    """
    Rating.objects.filter(ladder=ladder).update(
        rating=F("rating") * factor + INITIAL_RATING * (1 - factor),
        deviation=F("deviation") * factor,
        updated_at=timezone.now(),
    )
    ladder.elo_scale *= factor
    ladder.calibration = Calibration()
    log.info(
        "ladder %s: ratings stretched by %.3f (scale %.3f)", ladder.pk, factor, ladder.elo_scale
    )


def _match_key(match: Match) -> UnitKey:
    assert match.finished_at is not None  # finished matches only
    return (match.finished_at, match.pk)


def _ratable_units(ladder_id: int, pending: Sequence[Match], until: UnitKey) -> list[list[Match]]:
    """The units of ``pending`` to rate now, in rating order.

    ``pending``: the ladder's finished, rated, unrated matches up to ``until``.
    A match outside a deal is its own unit. A deal is one unit once all its
    games finished, placed at its last game's finish: rated now if that is no
    later than ``until`` (its games are all in ``pending`` then). A deal with
    a game that ended failed or cancelled is void: its games are marked
    unrated here, so they never hold up later ratings (nor wait for one).
    """
    units: list[tuple[UnitKey, list[Match]]] = [
        (_match_key(m), [m]) for m in pending if m.deal_id is None
    ]
    deal_ids = {m.deal_id for m in pending if m.deal_id is not None}
    games_of: dict[int, list[Match]] = defaultdict(list)
    # Not locked: a deal rated below has all its games in ``pending``, locked already.
    for game in Match.objects.filter(deal_id__in=deal_ids).order_by("deal_id", "deal_game"):
        assert game.deal_id is not None
        games_of[game.deal_id].append(game)
    void = []
    for deal_id, games in games_of.items():
        statuses = {MatchStatus(g.status) for g in games}
        if statuses & {MatchStatus.FAILED_INFRA, MatchStatus.CANCELLED}:
            void.append(deal_id)
        elif statuses == {MatchStatus.FINISHED} and all(g.rated for g in games):
            last = max(_match_key(g) for g in games)
            if last <= until:
                units.append((last, games))
        # else: still playing; rated when its last game finishes.
    if void:
        Match.objects.filter(deal_id__in=void).update(rated=False)
        log.info("ladder %s: void deals %s (a game failed or was cancelled)", ladder_id, void)
    units.sort(key=lambda unit: unit[0])
    return [games for _, games in units]


LADDER_CALIBRATION_FIELDS = (
    "rated_units",
    "elo_scale",
    "calibration_gradient",
    "calibration_curvature",
    "calibration_pairs",
)


def ratings_apply(*, match: Match) -> list[int]:
    """Apply the ratings of a finished match, exactly once; returns the match ids rated.

    The ladder row lock serialises rating per ladder. Under it, every finished
    and unrated unit of the ladder (a match, or a complete duplicate deal at
    its last game's finish) that finished no later than this match is rated,
    oldest first: ratings follow the finish order even when the tasks run out
    of order, and a unit already rated (a task delivered twice) is simply not
    pending any more. A deal's earlier games wait for its last one.
    """
    with transaction.atomic():
        ladder = Ladder.objects.select_for_update().get(pk=match.ladder_id)
        target = Match.objects.get(pk=match.pk)
        if not target.rated or target.status != MatchStatus.FINISHED or target.rated_at is not None:
            return []
        until = _match_key(target)
        pending = list(
            Match.objects.select_for_update()
            .filter(
                ladder_id=target.ladder_id,
                status=MatchStatus.FINISHED,
                rated=True,
                rated_at__isnull=True,
            )
            .filter(Q(finished_at__lt=until[0]) | Q(finished_at=until[0], id__lte=until[1]))
            .order_by("finished_at", "id")
        )
        rated: list[int] = []
        for unit in _ratable_units(target.ladder_id, pending, until):
            _rate_unit(unit, ladder)
            rated.extend(m.pk for m in unit)
        if rated:
            ladder.save(update_fields=LADDER_CALIBRATION_FIELDS)
    log.info("ladder %s: rated matches %s", match.ladder_id, rated)
    return rated


def ladder_refit(*, ladder_id: int) -> int:
    """Refit the ladder's ratings on every result it rated (:mod:`arena.ladders.refit`);
    returns the rows written.

    Newcomers among settled ratings keep their Elo until they settle
    (:func:`.refit.refitted`). The history is read and fitted outside the
    ladder's lock, so ratings go on being applied meanwhile: those results
    keep their Elo steps on top of the fit (and are in the next one). The
    shown Elo is the fit's own, so the stretch (``elo.stretch``) starts
    again from 1. Each refitted rating's deviation is the fit's
    (``bots_sdk.rating.fit_deviations``), with the curvature the results
    rated meanwhile added to it. Skipped (0) if the ladder was stretched, or its ratings
    reset by a new season, while the fit ran: the next sweep fits it again. After a
    reset, only the results rated since count (``Ladder.ratings_reset_at``).
    """
    # The units first, then the ratings: a unit rated in between is in the ratings
    # read, not in the fit, and waits for the next refit instead of counting twice.
    scale, reset_at = Ladder.objects.values_list("elo_scale", "ratings_reset_at").get(pk=ladder_id)
    totals = PairTotals.of(ladder_rated_units(ladder_id=ladder_id, since=reset_at))
    read = {
        row.pk: row
        for row in Rating.objects.filter(ladder_id=ladder_id).only(
            "bot_version_id", "rating", "deviation", "prior", "rated_matches"
        )
    }
    priors = {row.bot_version_id: row.prior for row in read.values()}
    # A version whose rating row is gone still counted for its opponents.
    priors.update({v: INITIAL_RATING for v in totals.games if v not in priors})
    start = {row.bot_version_id: working_rating(row.rating, scale) for row in read.values()}
    fitted = fit_totals(totals, priors, start)
    fitted_deviations = fit_deviations(totals, priors, fitted)
    chosen = refitted({row.bot_version_id: row.rated_matches for row in read.values()})
    with transaction.atomic():
        ladder = Ladder.objects.select_for_update().get(pk=ladder_id)
        # Stretched, or its ratings reset by a new season, while the fit ran.
        if ladder.elo_scale != scale or ladder.ratings_reset_at != reset_at:
            return 0
        now = timezone.now()
        rows = list(Rating.objects.filter(ladder_id=ladder_id))
        for row in rows:
            before = read.get(row.pk)
            if before is not None and row.bot_version_id in chosen:
                since = working_rating(row.rating, scale) - working_rating(before.rating, scale)
                row.rating = fitted[row.bot_version_id] + since
                gained = information_of(row.deviation / scale) - information_of(
                    before.deviation / scale
                )
                row.deviation = deviation_of(
                    information_of(fitted_deviations[row.bot_version_id]) + max(0.0, gained)
                )
            else:  # a newcomer among settled ratings, or created while the fit ran: as Elo left it
                row.rating = working_rating(row.rating, scale)
                row.deviation /= scale
            row.updated_at = now
        Rating.objects.bulk_update(rows, ["rating", "deviation", "updated_at"], batch_size=1000)
        ladder.elo_scale = 1.0
        ladder.calibration = Calibration()
        ladder.refit_at = now
        ladder.refit_units = totals.units
        ladder.save(update_fields=[*LADDER_CALIBRATION_FIELDS, "refit_units", "refit_at"])
    log.info("ladder %s: %d ratings refitted on %d units", ladder_id, len(rows), totals.units)
    return len(rows)


def ladders_refit_due() -> int:
    """Beat: refit every ladder due a refit (``refit.refit_due``); returns how many."""
    due = ladders_needing_refit()
    for ladder in due:
        ladder_refit(ladder_id=ladder.pk)
    return len(due)
