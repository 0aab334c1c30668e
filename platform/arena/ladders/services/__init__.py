"""Writes of the ladders app, one module per part: :mod:`.ladders` (a ladder, its game and
limits), :mod:`.entries` (uploads that enter ladders, their pre-flights),
:mod:`.queues` (matchmaking's picks), :mod:`.ratings` (rating matches, refits),
:mod:`.seasons` (closing a season into its final table), :mod:`.challenges` (unrated
matches on request) and :mod:`.editor` (drafts and their test games).
None queues a task: :mod:`arena.ladders.flows` and the tasks do.
"""

from .ladders import (
    LadderConfigError,
    LadderInUseError,
    ladder_change_duplicate_deals,
    ladder_change_game,
    ladder_close,
    ladder_create,
    ladder_validate_game,
    ladder_validate_limits,
    ladder_validate_series_games,
)
from .queues import ladder_fill_queue, ladders_fill_queues
from .ratings import UnratableMatchError, ladder_refit, ladders_refit_due, ratings_apply
from .seasons import (
    SeasonAlreadyClosedError,
    SeasonChoiceError,
    SeasonError,
    SeasonPermissionError,
    season_close,
)

__all__ = [
    "LadderConfigError",
    "LadderInUseError",
    "SeasonAlreadyClosedError",
    "SeasonChoiceError",
    "SeasonError",
    "SeasonPermissionError",
    "UnratableMatchError",
    "ladder_change_duplicate_deals",
    "ladder_change_game",
    "ladder_close",
    "ladder_create",
    "ladder_fill_queue",
    "ladder_refit",
    "ladder_validate_game",
    "ladder_validate_limits",
    "ladder_validate_series_games",
    "ladders_fill_queues",
    "ladders_refit_due",
    "ratings_apply",
    "season_close",
]
