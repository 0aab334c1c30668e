"""What the competition services share: the phase moves, errors, the row lock, the hook."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import datetime

from arena.errors import ArenaError
from arena.transitions import check_move

from ..models import Competition, Phase

log = logging.getLogger(__name__)

PHASE_TRANSITIONS: Mapping[Phase, frozenset[Phase]] = {
    Phase.DRAFT: frozenset({Phase.ENTRY, Phase.CANCELLED}),
    Phase.ENTRY: frozenset({Phase.SEASON, Phase.CANCELLED}),
    Phase.SEASON: frozenset({Phase.FROZEN, Phase.CANCELLED}),
    Phase.FROZEN: frozenset({Phase.FINAL, Phase.CANCELLED}),
    Phase.FINAL: frozenset({Phase.ARCHIVED, Phase.CANCELLED}),
    Phase.ARCHIVED: frozenset(),
    Phase.CANCELLED: frozenset(),
}
OVER = (Phase.ARCHIVED, Phase.CANCELLED)
# /competitions/new/ is the page that creates competitions.
RESERVED_SLUGS = frozenset({"new"})


class CompetitionConfigError(ArenaError):
    """Settings of a competition the platform refuses."""

    code = "competition_config"


class CompetitionPermissionError(ArenaError):
    """A player who may not do this to this competition."""

    code = "competition_permission"
    http_status = 403


class CompetitionEntryError(ArenaError):
    """A bot that cannot enter (or leave) this competition now."""

    code = "competition_entry"


class CompetitionPhaseError(ArenaError):
    code = "competition_phase"


def lock_competition(competition: Competition) -> Competition:
    return Competition.objects.select_for_update().get(pk=competition.pk)


def move(locked: Competition, to: Phase, *, now: datetime) -> None:
    """The one place a competition's phase changes."""
    current = Phase(locked.phase)
    check_move(PHASE_TRANSITIONS, current, to, what=locked, error=CompetitionPhaseError)
    locked.phase = to
    locked.phase_changed_at = now
    locked.save(update_fields=["phase", "phase_changed_at"])
    _phase_changed(locked, current, to, now)


def _phase_changed(competition: Competition, old: Phase, new: Phase, now: datetime) -> None:
    """Hook for what follows a phase change (notifications, once that app exists).

    Deliberately does nothing but log: it runs inside the move's transaction, so
    whatever is wired here should queue its work on commit.
    """
    log.info("competition %s: %s -> %s at %s", competition.pk, old, new, now.isoformat())
