"""Writes on ladders themselves: creating one, changing its game or its limits."""

from __future__ import annotations

import logging
from collections.abc import Mapping

from django.db import IntegrityError, transaction

import vegas_engine
from arena.errors import ArenaError

from ..deals import duplicate_deals_by_default
from ..models import (
    DEFAULT_SERIES_GAMES,
    MEMORY_MB,
    SERIES_GAMES,
    TIME_BANK_MS,
    TIME_PER_DECISION_MS,
    Ladder,
)
from .entries import house_bots_enter

log = logging.getLogger(__name__)

log = logging.getLogger(__name__)


class LadderConfigError(ArenaError):
    """A ladder's game or limits are not acceptable."""

    code = "ladder_config"


class LadderInUseError(ArenaError):
    code = "ladder_in_use"


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
    restricted: bool = False,
) -> Ladder:
    """A new ladder, entered by every house bot at once so it plays from the start.

    ``restricted``: a competition's ladder, entered only by the bots it admits
    (:func:`~.entries.entry_admit`); no house bot enters it.

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
                restricted=restricted,
            )
            if not restricted:
                house_bots_enter(ladder=ladder)
            return ladder
    except IntegrityError:
        raise LadderConfigError(f"a ladder with the slug {slug!r} already exists.") from None


def ladder_close(*, ladder: Ladder) -> Ladder:
    """Close a ladder: no new matches or entries; its ratings and history stay."""
    with transaction.atomic():
        locked = Ladder.objects.select_for_update().get(pk=ladder.pk)
        if locked.is_open:
            locked.is_open = False
            locked.save(update_fields=["is_open"])
    return locked


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
