"""Playing a run message: its match and the rest of its series at one table, each game
recorded as it ends (:func:`match_run`)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from django.conf import settings
from django.db import DatabaseError, connection

from ..models import (
    AttemptFault,
    Match,
    MatchStatus,
)
from ..play import MatchTable
from ..retries import fault_of
from .attempts import (
    MatchTransitionError,
    match_fail,
    match_finish,
    match_recover,
    match_start_series,
    matches_heartbeat,
)
from .sweeps import NOTHING_DUE, Requeued, matches_retry_waiting

log = logging.getLogger(__name__)


@contextmanager
def _heartbeat(matches: Sequence[Match]) -> Iterator[None]:
    """Beat for the current attempt of every match from a thread (the games hold this
    one) while the block runs: a series' games all count as alive while any plays."""
    stop = threading.Event()
    interval = settings.ARENA_MATCH_LEASE_SECONDS / 4
    attempts = {match.pk: match.attempts for match in matches}
    name = ",".join(str(match_id) for match_id in attempts)

    def beat() -> None:
        try:
            while not stop.wait(interval):
                try:
                    if not matches_heartbeat(attempts=attempts):
                        return
                except DatabaseError as error:
                    log.warning("matches %s: heartbeat failed: %s", name, error)
        finally:
            connection.close()  # this thread's own connection

    thread = threading.Thread(target=beat, name=f"match-{name}-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


class AttemptNotRecorded(DatabaseError):
    """An attempt failed and so did recording it: the task retries with ``attempt``
    (and ``error``, why it failed, for the attempt's row)."""

    def __init__(self, match_id: int, attempt: int, error: str = "") -> None:
        self.match_id, self.attempt, self.error = match_id, attempt, error
        super().__init__(f"match {match_id}: the failure of attempt {attempt} was not recorded")


@dataclass(frozen=True)
class MatchRun:
    """How a run message ended: its match as it ended, and the runs whose retry is due
    at once (the caller publishes them)."""

    match: Match
    retries: list[int]


def _nothing(match: Match) -> None:
    pass


def match_run(
    *,
    match: Match,
    on_finished: Callable[[Match], None] = _nothing,
    abandoned_attempt: int | None = None,
    abandoned_error: str = "",
) -> MatchRun:
    """Play a queued match to the end and record it (a task may deliver it more than once).

    A match of a series takes every queued game of its series with it
    (:func:`match_start_series`) and plays them in order at one table, one
    process per bot, recording each game as it ends. A finished, cancelled or
    failed match is left alone; a running one is left to its worker unless
    that worker is lost, in which case the attempt fails and the match is
    queued again. The seated versions play even if retired since (they were
    active when it was made; leagues freeze them). A failure of ours fails
    the attempt of every game not recorded yet: those are retried and
    nothing counts against a bot; the games already recorded stay. If
    recording that fails too, AttemptNotRecorded names an attempt; the task
    passes it back as ``abandoned_attempt`` (with ``abandoned_error``) so the
    retry fails it at once instead of waiting out ARENA_MATCH_LEASE_SECONDS.
    A failed game is retried at once if the resource it failed on answers
    already (in ``retries``), else by the retry sweep
    (:func:`matches_retry_waiting`); a message for a match still waiting for
    its retry is a stale one and is dropped. ``on_finished`` is called with
    each game once its result is committed (the caller queues its rating).
    """
    current = Match.objects.get(pk=match.pk)
    if current.status == MatchStatus.RUNNING:
        if abandoned_attempt is not None and current.attempts == abandoned_attempt:
            # Its worker gave up on this attempt but could not record it (the database
            # was down): fail it now rather than wait out the lease.
            why = abandoned_error or "unknown"
            try:
                failed = match_fail(
                    match=current,
                    error=f"{why}; then recording the failure failed (the database)",
                    attempt=current.attempts,
                    fault=AttemptFault.DATABASE,
                )
            except MatchTransitionError:
                return MatchRun(Match.objects.get(pk=current.pk), retries=[])
            return MatchRun(failed, matches_retry_waiting(match_ids=[failed.pk]).runs)
        recovered = match_recover(match=current)
        if recovered is None:
            return MatchRun(current, retries=[])
        return MatchRun(recovered, matches_retry_waiting(match_ids=[recovered.pk]).runs)
    if current.status != MatchStatus.QUEUED or current.retry_at is not None:
        return MatchRun(current, retries=[])
    try:
        started = match_start_series(match=current)
    except MatchTransitionError:
        return MatchRun(current, retries=[])  # another worker took it
    retries = _play(started, on_finished)
    return MatchRun(Match.objects.get(pk=current.pk), retries.runs)


def _play(started: Sequence[Match], on_finished: Callable[[Match], None]) -> Requeued:
    """Play the started games in order at one table and record each; see :func:`match_run`."""
    waiting = list(started)
    setting_up = time.perf_counter()
    try:
        with _heartbeat(started), MatchTable(started) as table:
            # The bots' files and the table: counted in the first game's start.
            setup_s = time.perf_counter() - setting_up
            while waiting:
                game = waiting[0]
                played = table.play(game)
                began = time.perf_counter()
                try:
                    recorded = match_finish(
                        match=game,
                        outcomes=played.seats,
                        game_log=played.game_log,
                        attempt=game.attempts,
                        drop_live_feed=played.live_published,
                    )
                except MatchTransitionError:
                    log.warning(
                        "match %s: attempt %s was given up on before it ended",
                        game.pk,
                        game.attempts,
                    )
                else:
                    on_finished(recorded)
                waiting.pop(0)
                # Where one game's time goes (bench/platform.py reads it): the table and
                # the bots' start-up, the game, recording it.
                log.info(
                    "match %s timing: start %.4f s, play %.4f s, store %.4f s",
                    game.pk,
                    setup_s + played.start_s,
                    played.play_s - played.start_s,
                    time.perf_counter() - began,
                )
                setup_s = 0.0
    except Exception as error:
        # Ours by construction: bot faults are results, never exceptions.
        if not waiting:
            # Every game was recorded: only ending the table failed (its processes are
            # killed whatever happens), which changes no result.
            log.exception("matches %s: ending the table failed", [g.pk for g in started])
            return NOTHING_DUE
        log.exception("matches %s: attempts failed", [game.pk for game in waiting])
        return _fail_all(waiting, f"{type(error).__name__}: {error}", fault_of(error))
    return NOTHING_DUE


def _fail_all(games: Sequence[Match], error: str, fault: AttemptFault) -> Requeued:
    """Fail the attempt of each game (not recorded yet); those whose resource answers
    already are due again at once (the others wait for the retry sweep)."""
    failed = []
    for game in games:
        try:
            match_fail(match=game, error=error, attempt=game.attempts, fault=fault)
        except MatchTransitionError:
            continue
        except DatabaseError as failure:
            # The lease recovers the others once the heartbeat stops.
            raise AttemptNotRecorded(game.pk, game.attempts, error) from failure
        failed.append(game.pk)
    return matches_retry_waiting(match_ids=failed) if failed else NOTHING_DUE
