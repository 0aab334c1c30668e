"""Writes on leagues, one module for each part of a league's life.

- :mod:`.creating`: a league and its entrants before it starts;
- :mod:`.tick`: its life, advanced by beat's sweep (:func:`leagues_advance_due`);
- :mod:`.organiser`: pause, resume, cancel;
- :mod:`.standings`: the table, recomputed from the results;
- :mod:`.common`: what they share (limits, status moves, errors, the row lock).

This face names what the rest of the platform calls.
"""

from __future__ import annotations

from .common import (
    DEFAULT_MAX_TABLES,
    LEAGUE_TRANSITIONS,
    RESERVED_SLUGS,
    LeagueConfigError,
    LeagueEntryError,
    LeagueTransitionError,
)
from .creating import (
    league_create,
    league_create_frozen,
    league_entry_add,
    league_entry_remove,
    league_entry_respond,
    league_validate,
)
from .organiser import league_cancel, league_pause, league_resume
from .standings import league_standings_recompute
from .tick import league_advance, leagues_advance_due

__all__ = [
    "DEFAULT_MAX_TABLES",
    "LEAGUE_TRANSITIONS",
    "RESERVED_SLUGS",
    "LeagueConfigError",
    "LeagueEntryError",
    "LeagueTransitionError",
    "league_advance",
    "league_cancel",
    "league_create",
    "league_create_frozen",
    "league_entry_add",
    "league_entry_remove",
    "league_entry_respond",
    "league_pause",
    "league_resume",
    "league_standings_recompute",
    "league_validate",
    "leagues_advance_due",
]
