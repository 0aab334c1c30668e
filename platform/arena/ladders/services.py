"""Writes on ladders and ratings."""

from __future__ import annotations

import logging
import random
from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import datetime

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone

import vegas_engine
from arena.bots.models import BotVersion
from arena.errors import ArenaError
from arena.matches.models import Match, MatchStatus, Participant
from arena.matches.services import match_create_series
from bots_sdk.rating import PairTotals, fit_totals

from .deals import SeatResult, duplicate_deals_by_default, unit_standings
from .elo import (
    INITIAL_RATING,
    Calibration,
    rating_changes,
    stretch,
    unit_calibration,
    unit_k_factors,
    working_rating,
)
from .entries import house_bots_enter
from .matchmaking import LadderQueue, plan_picks
from .models import (
    DEFAULT_SERIES_GAMES,
    MEMORY_MB,
    SERIES_GAMES,
    TIME_BANK_MS,
    TIME_PER_DECISION_MS,
    Ladder,
    Rating,
    RatingChange,
)
from .refit import refitted
from .selectors import ladder_rated_units, ladders_needing_refit, matchmaking_candidates

log = logging.getLogger(__name__)


class LadderConfigError(ArenaError):
    """A ladder's game or limits are not acceptable."""

    code = "ladder_config"


class LadderInUseError(ArenaError):
    code = "ladder_in_use"


class UnratableMatchError(ArenaError):
    """A finished match whose results cannot be rated (a bug upstream, not user input)."""

    code = "match_unratable"


def ladder_validate_game(
    *, rules: str, seats: int, options: Mapping[str, object] | None = None
) -> dict[str, bool | int]:
    """Check a ladder's game with the engine; returns every option, defaults filled in."""
    try:
        description = vegas_engine.describe(rules, seats, options)
    except vegas_engine.InvalidDescriptionError as error:
        raise LadderConfigError(f"the engine cannot play this ladder's game: {error}") from None
    return dict(description.options)


def ladder_validate_limits(*, time_per_decision_ms: int, time_bank_ms: int, memory_mb: int) -> None:
    for label, value, (low, high), unit in (
        ("time per decision", time_per_decision_ms, TIME_PER_DECISION_MS, "ms"),
        ("time bank", time_bank_ms, TIME_BANK_MS, "ms"),
        ("memory", memory_mb, MEMORY_MB, "MB"),
    ):
        if not low <= value <= high:
            raise LadderConfigError(f"{label} must be {low}-{high} {unit}, got {value}.")


def ladder_validate_series_games(*, series_games: int) -> None:
    low, high = SERIES_GAMES
    if not low <= series_games <= high:
        raise LadderConfigError(
            f"games per series must be {low}-{high}, got {series_games}: the games a worker "
            "plays in a row with the same bots (more share one start of each bot's process "
            "among more games; fewer mix the bots sooner)."
        )


def ladder_create(
    *,
    slug: str,
    name: str,
    rules: str,
    seats: int,
    options: Mapping[str, object] | None = None,
    time_per_decision_ms: int = 1000,
    time_bank_ms: int = 10_000,
    memory_mb: int = 256,
    duplicate_deals: bool | None = None,
    series_games: int = DEFAULT_SERIES_GAMES,
) -> Ladder:
    """A new ladder, entered by every house bot at once so it plays from the start.

    ``duplicate_deals``: each pick plays one seed once per seat rotation; left
    out, :func:`~.deals.duplicate_deals_by_default` decides by the seats (yes on 2).
    ``series_games``: games a worker plays in a row with the same bots.
    """
    if duplicate_deals is None:
        duplicate_deals = duplicate_deals_by_default(seats)
    resolved = ladder_validate_game(rules=rules, seats=seats, options=options)
    ladder_validate_limits(
        time_per_decision_ms=time_per_decision_ms, time_bank_ms=time_bank_ms, memory_mb=memory_mb
    )
    ladder_validate_series_games(series_games=series_games)
    try:
        with transaction.atomic():
            ladder = Ladder.objects.create(
                slug=slug,
                name=name,
                rules=rules,
                seats=seats,
                options=resolved,
                time_per_decision_ms=time_per_decision_ms,
                time_bank_ms=time_bank_ms,
                memory_mb=memory_mb,
                duplicate_deals=duplicate_deals,
                series_games=series_games,
            )
            house_bots_enter(ladder=ladder)
            return ladder
    except IntegrityError:
        raise LadderConfigError(f"a ladder with the slug {slug!r} already exists.") from None


def ladder_change_game(
    *, ladder: Ladder, rules: str, seats: int, options: Mapping[str, object] | None = None
) -> Ladder:
    """Change the game of a ladder that has no match yet (ratings would mix two games)."""
    resolved = ladder_validate_game(rules=rules, seats=seats, options=options)
    with transaction.atomic():
        locked = Ladder.objects.select_for_update().get(pk=ladder.pk)
        if locked.matches.exists():
            raise LadderInUseError(
                f"{locked} already has matches: create a new ladder for a different game."
            )
        locked.rules, locked.seats, locked.options = rules, seats, resolved
        locked.save(update_fields=["rules", "seats", "options"])
    return locked


def ladder_change_duplicate_deals(*, ladder: Ladder, duplicate_deals: bool) -> Ladder:
    """Switch duplicate deals on or off on a ladder that has no match yet.

    Its ratings would otherwise mix results of single games and of deals.
    """
    with transaction.atomic():
        locked = Ladder.objects.select_for_update().get(pk=ladder.pk)
        if locked.duplicate_deals == duplicate_deals:
            return locked
        if locked.matches.exists():
            wanted = "duplicate deals" if duplicate_deals else "single games"
            raise LadderInUseError(
                f"{locked} already has matches: its ratings cannot mix single games and "
                f"duplicate deals; create a new ladder to play {wanted}."
            )
        locked.duplicate_deals = duplicate_deals
        locked.save(update_fields=["duplicate_deals"])
    return locked


# --------------------------------------------------------------------------- ratings


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
                # In shown Elo points, as the change.
                k=ks[version_id] * ladder.elo_scale,
                matches_before=rating.rated_matches,
            )
        )
        rating.rating = after[version_id]
        rating.rated_matches += 1
        rating.updated_at = now  # auto_now is not applied by bulk_update
    # One statement each, whatever the seats: a rating follows every game of a series.
    RatingChange.objects.bulk_create(changes)
    Rating.objects.bulk_update(ratings.values(), ["rating", "rated_matches", "updated_at"])
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
    mean what Elo says (``elo.stretch``). The ratings' history keeps the
    numbers shown at the time.
    """
    Rating.objects.filter(ladder=ladder).update(
        rating=F("rating") * factor + INITIAL_RATING * (1 - factor), updated_at=timezone.now()
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
    """Refit the ladder's ratings on every result it rated (:mod:`.refit`); returns rows written.

    Newcomers among settled ratings keep their Elo until they settle
    (:func:`.refit.refitted`). The history is read and fitted outside the
    ladder's lock, so ratings go on being applied meanwhile: those results
    keep their Elo steps on top of the fit (and are in the next one). The
    shown Elo is the fit's own, so the stretch (``elo.stretch``) starts
    again from 1. Skipped (0) if the ladder was stretched while the fit
    ran: the next sweep fits it again.
    """
    # The units first, then the ratings: a unit rated in between is in the ratings
    # read, not in the fit, and waits for the next refit instead of counting twice.
    totals = PairTotals.of(ladder_rated_units(ladder_id=ladder_id))
    scale = Ladder.objects.values_list("elo_scale", flat=True).get(pk=ladder_id)
    read = {
        row.pk: row
        for row in Rating.objects.filter(ladder_id=ladder_id).only(
            "bot_version_id", "rating", "prior", "rated_matches"
        )
    }
    priors = {row.bot_version_id: row.prior for row in read.values()}
    # A version whose rating row is gone still counted for its opponents.
    priors.update({v: INITIAL_RATING for v in totals.games if v not in priors})
    start = {row.bot_version_id: working_rating(row.rating, scale) for row in read.values()}
    fitted = fit_totals(totals, priors, start)
    chosen = refitted({row.bot_version_id: row.rated_matches for row in read.values()})
    with transaction.atomic():
        ladder = Ladder.objects.select_for_update().get(pk=ladder_id)
        if ladder.elo_scale != scale:
            return 0
        now = timezone.now()
        rows = list(Rating.objects.filter(ladder_id=ladder_id))
        for row in rows:
            before = read.get(row.pk)
            if before is not None and row.bot_version_id in chosen:
                since = working_rating(row.rating, scale) - working_rating(before.rating, scale)
                row.rating = fitted[row.bot_version_id] + since
            else:  # a newcomer among settled ratings, or created while the fit ran: as Elo left it
                row.rating = working_rating(row.rating, scale)
            row.updated_at = now
        Rating.objects.bulk_update(rows, ["rating", "updated_at"], batch_size=1000)
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


# --------------------------------------------------------------------------- matchmaking


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
