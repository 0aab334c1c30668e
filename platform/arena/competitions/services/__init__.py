"""Writes on competitions: :mod:`.creating` (a competition, its entrants, its invitation
link before the freeze), :mod:`.phases` (its life on the clock: freeze, final event,
archive; cancel) and :mod:`.common` (phase moves, errors). None queues a task:
:mod:`arena.competitions.flows` does."""

from __future__ import annotations

from .common import (
    PHASE_TRANSITIONS,
    CompetitionConfigError,
    CompetitionEntryError,
    CompetitionPermissionError,
    CompetitionPhaseError,
)
from .creating import (
    LadderSettings,
    competition_create,
    competition_enter,
    competition_invitation_renew,
    competition_withdraw,
    create_refusal,
    may_create,
    may_manage,
)
from .phases import (
    competition_advance,
    competition_cancel,
    competitions_advance_due,
    frozen_version,
)

__all__ = [
    "PHASE_TRANSITIONS",
    "CompetitionConfigError",
    "CompetitionEntryError",
    "CompetitionPermissionError",
    "CompetitionPhaseError",
    "LadderSettings",
    "competition_advance",
    "competition_cancel",
    "competition_create",
    "competition_enter",
    "competition_invitation_renew",
    "competition_withdraw",
    "competitions_advance_due",
    "create_refusal",
    "frozen_version",
    "may_create",
    "may_manage",
]
