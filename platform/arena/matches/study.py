"""Reads for studying a finished match: each decision of the seats a user may study.

A seat's decisions are its bot's internals (what it saw, how long it thought,
what it wrote): its owner and staff study them (``may_read_internals``), nobody
else. The observation of each decision is made again with the engine: the
log's moves are played from its seed, and each seat is observed where the
referee observed it to build its request, before the moves of that round of
requests are applied (the card game's seats choose at once). What the referee
kept of each request (the ``trace``: time, note, stderr) comes from the log's
referee section; a log without one (older matches) gives the times of
``decision_ms`` and no notes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from django.contrib.auth.models import AnonymousUser

from arena.bots.selectors import may_read_internals
from arena.players.models import User
from bots_sdk.recorded import RecordedDecision, recorded_decisions
from vegas_engine.state import JsonDict

from .models import Match, MatchStatus
from .selectors import match_log_read


class NotYoursToStudyError(PermissionError):
    """Seats asked for whose decisions the user may not study (not their bots')."""


@dataclass(frozen=True)
class StudiedDecision:
    """One decision of a seat, as its bot met it and answered it."""

    #: Index of the move in the log's moves form (``moves[move]``), as the trace names it.
    move: int
    #: Index of its ``decision`` event in the log's events form: where the replay shows it.
    event: int
    seat: int
    #: The observation the bot was sent, exactly; its ``legal_actions`` are the choices.
    observation: JsonDict
    #: The action played: the bot's answer, or the referee's fallback's (``fallback``).
    action: str
    #: The id of the request (null without a trace).
    request: int | None
    #: How long the bot took, in milliseconds (null: not answered, or not recorded).
    ms: float | None
    note: str | None
    stderr: str | None
    #: Whether the note or stderr were cut at the referee's caps.
    truncated: bool
    #: Whether the referee's random policy played it: the bot had faulted (at this
    #: decision, when ``fault`` says why, or before).
    fallback: bool
    #: The seat's fault at this decision: ``{"kind", "message"}``, else None.
    fault: dict[str, str] | None

    @property
    def legal_actions(self) -> list[str]:
        return list(self.observation.get("legal_actions", []))

    def to_json(self) -> JsonDict:
        return {
            "move": self.move,
            "event": self.event,
            "seat": self.seat,
            "request": self.request,
            "observation": self.observation,
            "legal_actions": self.legal_actions,
            "action": self.action,
            "ms": self.ms,
            "note": self.note,
            "stderr": self.stderr,
            "truncated": self.truncated,
            "fallback": self.fallback,
            "fault": self.fault,
        }


@dataclass(frozen=True)
class StudiedSeat:
    """A seat the user may study, with its bot, its time limit and every decision."""

    seat: int
    bot: str
    version: int
    #: The time one decision may take at most (the seat's own limit, else the match's).
    decision_ms: int
    #: The seed the bot was given (null when the log does not say).
    bot_seed: int | None
    decisions: list[StudiedDecision]

    def to_json(self) -> JsonDict:
        return {
            "seat": self.seat,
            "bot": self.bot,
            "version": self.version,
            "decision_ms": self.decision_ms,
            "bot_seed": self.bot_seed,
            "decisions": [decision.to_json() for decision in self.decisions],
        }


def match_study_seats(*, match: Match, user: User | AnonymousUser) -> list[int]:
    """The seats of ``match`` whose decisions ``user`` may study: those of their own bots,
    every seat for staff (the participants prefetched, as the selectors give them)."""
    return [p.seat for p in match.participants.all() if may_read_internals(user, p.bot_version.bot)]


def match_study(
    *, match: Match, user: User | AnonymousUser, seats: list[int] | None = None
) -> list[StudiedSeat] | None:
    """Each seat of ``seats`` (default: all the user may study) with its decisions, in
    seat order; None when the match has no log to read (not finished, or sealed).

    ``seats`` must be among :func:`match_study_seats` (else :class:`NotYoursToStudyError`).
    The moves are played once, whatever the number of seats.
    """
    allowed = match_study_seats(match=match, user=user)
    wanted = allowed if seats is None else sorted(set(seats))
    if not set(wanted) <= set(allowed):
        raise NotYoursToStudyError(f"seats {sorted(set(wanted) - set(allowed))} are not yours")
    if match.status != MatchStatus.FINISHED:
        return None
    log = match_log_read(match=match, user=user, moves=True)
    if log is None:
        return None
    participants = {p.seat: p for p in match.participants.all()}
    referee = _dict(log.get("referee"))
    records = {
        record.get("seat"): record
        for record in _list(referee.get("seats"))
        if isinstance(record, dict)
    }
    made = _decisions(log, set(wanted), records)
    studied = []
    for seat in wanted:
        record = records.get(seat, {})
        limits = record.get("limits") or referee.get("limits") or {}
        bot_seed = record.get("bot_seed")
        version = participants[seat].bot_version
        studied.append(
            StudiedSeat(
                seat=seat,
                bot=version.bot.name,
                version=version.number,
                decision_ms=int(limits.get("decision_ms") or match.time_per_decision_ms),
                bot_seed=bot_seed if isinstance(bot_seed, int) else None,
                decisions=made[seat],
            )
        )
    return studied


def _dict(value: Any) -> JsonDict:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _decisions(
    log: JsonDict, seats: set[int], records: dict[Any, JsonDict]
) -> dict[int, list[StudiedDecision]]:
    """The decisions of ``seats``, played out of the log's moves once."""
    traces = {seat: _trace_of(records.get(seat, {})) for seat in seats}
    made: dict[int, list[StudiedDecision]] = {seat: [] for seat in seats}
    for recorded in recorded_decisions(log, sorted(seats)):
        made[recorded.seat].append(_decision(recorded, traces[recorded.seat]))
    for seat in seats:
        made[seat] = _with_faults(made[seat], records.get(seat, {}), traced=bool(traces[seat]))
    return made


def _trace_of(record: JsonDict) -> dict[int, JsonDict]:
    """The referee's trace of a seat by move index (empty without one)."""
    trace = record.get("trace")
    if not isinstance(trace, list):
        return {}
    return {e["move"]: e for e in trace if isinstance(e, dict) and isinstance(e.get("move"), int)}


def _decision(recorded: RecordedDecision, trace: dict[int, JsonDict]) -> StudiedDecision:
    entry = trace.get(recorded.move)

    def text(name: str) -> str | None:
        value = None if entry is None else entry.get(name)
        return value if isinstance(value, str) else None

    ms = None if entry is None else entry.get("ms")
    request = None if entry is None else entry.get("request")
    return StudiedDecision(
        move=recorded.move,
        event=recorded.event,
        seat=recorded.seat,
        observation=recorded.observation,
        action=recorded.action,
        request=request if isinstance(request, int) else None,
        ms=float(ms) if isinstance(ms, int | float) else None,
        note=text("note"),
        stderr=text("stderr"),
        truncated=bool(entry and entry.get("truncated")),
        # Traced: a move the seat was not asked for was its fallback's.
        fallback=bool(trace) and entry is None,
        fault=None,
    )


def _with_faults(
    decisions: list[StudiedDecision], record: JsonDict, *, traced: bool
) -> list[StudiedDecision]:
    """``decisions`` with their times from ``decision_ms`` where no trace gave them, and the
    seat's fault at the decision it was sent (its request's observation), the decisions
    after it played by the referee's fallback."""
    times = _list(record.get("decision_ms"))
    fault = record.get("fault") if isinstance(record.get("fault"), dict) else None
    request = fault.get("request") if fault is not None else None
    faulted = request.get("observation") if isinstance(request, dict) else None
    why = (
        None
        if fault is None
        else {"kind": str(fault.get("kind", "")), "message": str(fault.get("message", ""))}
    )
    found: list[StudiedDecision] = []
    after = False
    for k, decision in enumerate(decisions):
        ms = decision.ms
        if not traced and ms is None and k < len(times) and isinstance(times[k], int | float):
            ms = float(times[k])
        here = why is not None and not after and faulted == decision.observation
        fallback = decision.fallback or after or here
        found.append(replace(decision, ms=ms, fallback=fallback, fault=why if here else None))
        after = after or here
    if why is not None and not after and not traced:
        # The fault's request is not among the decisions (it failed outside one, or the
        # log does not say): the decisions beyond the answers timed were not the bot's.
        found = [replace(d, fallback=d.fallback or k >= len(times)) for k, d in enumerate(found)]
    return found
