"""Writes on matches, one module per part of a match's life: :mod:`.creating` (a match,
a deal, a series), :mod:`.attempts` (start, record, fail, cancel, recover, heartbeats),
:mod:`.running` (play a run message's games), :mod:`.sweeps` (what beat finds lost or
due), :mod:`.retention` (old logs to the archive), :mod:`.workers` (the workers'
presence, which matchmaking sizes its queues by).

Nothing here publishes a message: the tasks that play matches and rate them are above
this app (``arena.ladders.tasks``). A write that makes a match due returns it, or its
id, and its caller publishes it; :func:`runs_to_publish` names the match whose message
plays a run (a series is played by its first game's message).
"""

from .attempts import (
    MATCH_TRANSITIONS,
    MatchResultError,
    MatchTransitionError,
    log_storage_name,
    match_cancel,
    match_fail,
    match_finish,
    match_heartbeat,
    match_recover,
    match_start,
    match_start_series,
    matches_heartbeat,
)
from .creating import (
    MAX_SEED,
    PLAYABLE,
    PLAYABLE_FROZEN,
    MatchSetupError,
    Play,
    match_create,
    match_create_deal,
    match_create_plays,
    match_create_series,
    runs_to_publish,
)
from .retention import ArchiveResult, match_logs_archive
from .running import AttemptNotRecorded, MatchRun, match_run
from .sweeps import (
    NOTHING_DUE,
    Requeued,
    matches_republish_queued,
    matches_requeue_stale,
    matches_retry_waiting,
)
from .workers import worker_presence_beat, worker_presence_leave

__all__ = [
    "MATCH_TRANSITIONS",
    "MAX_SEED",
    "NOTHING_DUE",
    "PLAYABLE",
    "PLAYABLE_FROZEN",
    "ArchiveResult",
    "AttemptNotRecorded",
    "MatchResultError",
    "MatchRun",
    "MatchSetupError",
    "MatchTransitionError",
    "Play",
    "Requeued",
    "log_storage_name",
    "match_cancel",
    "match_create",
    "match_create_deal",
    "match_create_plays",
    "match_create_series",
    "match_fail",
    "match_finish",
    "match_heartbeat",
    "match_logs_archive",
    "match_recover",
    "match_run",
    "match_start",
    "match_start_series",
    "matches_heartbeat",
    "matches_republish_queued",
    "matches_requeue_stale",
    "matches_retry_waiting",
    "runs_to_publish",
    "worker_presence_beat",
    "worker_presence_leave",
]
