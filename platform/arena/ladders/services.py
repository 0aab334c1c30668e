"""Writes on ladders and ratings."""

from __future__ import annotations

import logging
import random
from collections import defaultdict
from collections.abc import Mapping

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

import vegas_engine
from arena.bots.models import BotVersion
from arena.errors import ArenaError
from arena.matches.models import Match, MatchStatus, Participant
from arena.matches.services import match_create

from .elo import INITIAL_RATING, SeatRating, k_factor, seat_changes
from .matchmaking import pick_seating
from .models import MEMORY_MB, TIME_BANK_MS, TIME_PER_DECISION_MS, Ladder, Rating, RatingChange
from .selectors import matchmaking_candidates

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
        description = vegas_engine.describe(rules, seats, 0, options or {})
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
) -> Ladder:
    resolved = ladder_validate_game(rules=rules, seats=seats, options=options)
    ladder_validate_limits(
        time_per_decision_ms=time_per_decision_ms, time_bank_ms=time_bank_ms, memory_mb=memory_mb
    )
    try:
        with transaction.atomic():
            return Ladder.objects.create(
                slug=slug,
                name=name,
                rules=rules,
                seats=seats,
                options=resolved,
                time_per_decision_ms=time_per_decision_ms,
                time_bank_ms=time_bank_ms,
                memory_mb=memory_mb,
            )
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
            Rating.objects.create(
                ladder_id=ladder_id,
                bot_id=version.bot_id,
                bot_version=version,
                rating=_starting_rating(ladder_id, version),
            )
    # Locked in id order, so two transactions never wait on each other in a cycle.
    rows = Rating.objects.select_for_update().filter(
        ladder_id=ladder_id, bot_version_id__in=[v.pk for v in versions]
    )
    return {row.bot_version_id: row for row in rows.order_by("id")}


def _rate_one(match: Match) -> None:
    participants = list(match.participants.select_related("bot_version").order_by("seat"))
    unranked = [p.seat for p in participants if p.rank is None]
    if unranked:
        raise UnratableMatchError(f"match {match.pk}: seats {unranked} have no rank.")
    versions = list({p.bot_version_id: p.bot_version for p in participants}.values())
    ratings = _locked_ratings(match.ladder_id, versions)
    seats = [
        SeatRating(
            player=p.bot_version_id,
            rating=ratings[p.bot_version_id].rating,
            rank=p.rank or 0,  # checked above
            k=k_factor(ratings[p.bot_version_id].rated_matches),
        )
        for p in participants
    ]
    changes = seat_changes(seats)
    # A version at two seats gets the sum of both seats' changes, once.
    delta: dict[int, float] = defaultdict(float)
    for participant, change in zip(participants, changes, strict=True):
        delta[participant.bot_version_id] += change
    after: dict[int, float] = {}
    for version_id, rating in ratings.items():
        before = rating.rating
        after[version_id] = before + delta[version_id]
        RatingChange.objects.create(
            rating=rating,
            match=match,
            rating_before=before,
            rating_after=after[version_id],
            k=k_factor(rating.rated_matches),
            matches_before=rating.rated_matches,
        )
        rating.rating = after[version_id]
        rating.rated_matches += 1
        rating.save(update_fields=["rating", "rated_matches", "updated_at"])
    for participant, seat in zip(participants, seats, strict=True):
        participant.rating_before = seat.rating
        participant.rating_after = after[participant.bot_version_id]
    Participant.objects.bulk_update(participants, ["rating_before", "rating_after"])
    match.rated_at = timezone.now()
    match.save(update_fields=["rated_at"])


def ratings_apply(*, match: Match) -> list[int]:
    """Apply the ratings of a finished match, exactly once; returns the ids rated.

    The ladder row lock serialises rating per ladder. Under it, every finished
    and unrated match of the ladder that finished no later than this one is
    rated, oldest first: ratings follow the finish order even when the tasks
    run out of order, and a match already rated (a task delivered twice) is
    simply not pending any more.
    """
    with transaction.atomic():
        Ladder.objects.select_for_update().get(pk=match.ladder_id)
        target = Match.objects.get(pk=match.pk)
        if not target.rated or target.status != MatchStatus.FINISHED or target.rated_at is not None:
            return []
        assert target.finished_at is not None
        pending = (
            Match.objects.select_for_update()
            .filter(
                ladder_id=target.ladder_id,
                status=MatchStatus.FINISHED,
                rated=True,
                rated_at__isnull=True,
            )
            .filter(
                Q(finished_at__lt=target.finished_at)
                | Q(finished_at=target.finished_at, id__lte=target.pk)
            )
            .order_by("finished_at", "id")
        )
        rated = []
        for pending_match in pending:
            _rate_one(pending_match)
            rated.append(pending_match.pk)
    log.info("ladder %s: rated matches %s", match.ladder_id, rated)
    return rated


# --------------------------------------------------------------------------- matchmaking


def ladder_fill_queue(*, ladder: Ladder, rng: random.Random | None = None) -> list[Match]:
    """Queue matches on an open ladder up to ARENA_LADDER_QUEUE_TARGET (the beat's job).

    Seats are picked by arena.ladders.matchmaking. House bots alone play until
    each has ARENA_HOUSE_ONLY_GAMES games (a fresh platform is alive at once and
    its house bots leave the provisional range), then rest until an uploaded
    bot joins. The ladder row lock
    serialises fills (and rating) of one ladder, so two fills never both
    count the same free places.
    """
    rng = rng or random.Random()
    created: list[Match] = []
    with transaction.atomic():
        locked = Ladder.objects.select_for_update().get(pk=ladder.pk)
        if not locked.is_open:
            return created
        queued = Match.objects.filter(ladder=locked, status=MatchStatus.QUEUED).count()
        candidates = matchmaking_candidates(ladder=locked)
        house_only = all(c.is_house for c in candidates)
        # Games played or queued so far (the loop below bumps games and queued alike).
        planned = {c.version_id: c.games + c.queued for c in candidates}
        for _ in range(settings.ARENA_LADDER_QUEUE_TARGET - queued):
            if house_only and min(planned.values(), default=0) >= settings.ARENA_HOUSE_ONLY_GAMES:
                break  # calibrated: more would only burn CPU rating each other
            seating = pick_seating(
                candidates, seats=locked.seats, max_queued=settings.ARENA_BOT_MAX_QUEUED, rng=rng
            )
            if seating is None:
                break
            versions = BotVersion.objects.in_bulk([c.version_id for c in seating])
            created.append(
                match_create(ladder=locked, versions=[versions[c.version_id] for c in seating])
            )
            for candidate in seating:
                candidate.games += 1
                candidate.queued += 1
                planned[candidate.version_id] += 1
    if created:
        log.info("ladder %s: queued matches %s", ladder.slug, [m.pk for m in created])
    return created


def ladders_fill_queues() -> int:
    """Fill the queue of every open ladder; returns how many matches were queued."""
    ladders = Ladder.objects.filter(is_open=True)
    return sum(len(ladder_fill_queue(ladder=ladder)) for ladder in ladders)
