"""Rerun one seat of a recorded game with a bot: the same requests, and where it answers otherwise.

The bot gets what the seat got: the log's limits, ``new_game`` with the seat's
``bot_seed``, and each of the seat's requests with the observation the referee
sent and the time it had left then. After each request the recorded move is
played, whatever the bot answered, so every later observation is the
recorded game's too. A log downloaded by the owner of the seat's bot carries
its ``bot_seed`` and its ``trace`` (request ids, times); other logs need
``--bot-seed``.
"""

from __future__ import annotations

import gzip
import json
import re
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vegas_engine import VegasError
from vegas_engine.log import check, description_of
from vegas_engine.state import JsonDict

from .faults import Fault, FaultKind
from .launcher import BotSpec, Launcher, launch_bot
from .protocol import Limits
from .recorded import RecordedDecision, recorded_decisions
from .referee import LoneReply, LoneSeat

#: A match's page or API address on the platform: its id is the number after /matches/.
_MATCH_URL = re.compile(r"^(https?://[^/]+)(?:/api)?/matches/(\d+)(?:/.*)?$")
#: Faults at which the bot's reply was read (and timed) but not played.
_READ_FAULTS = frozenset({FaultKind.GARBAGE.value, FaultKind.ILLEGAL_ACTION.value})


class RerunError(Exception):
    """The log, the seat or the address cannot be rerun; the message says what to change."""


@dataclass(frozen=True)
class Difference:
    """A decision where the bot did not answer as the recorded game played."""

    #: The seat's decision, counted from 1.
    decision: int
    #: Index of the recorded move in the log's moves form.
    move: int
    request: int
    legal_actions: list[str]
    #: The action the recorded game played there.
    recorded: str
    #: The bot's answer now (None: it faulted).
    answered: str | None
    note: str
    stderr: str
    fault: Fault | None

    @property
    def illegal(self) -> bool:
        return self.answered is not None and self.answered not in self.legal_actions

    def to_json(self) -> JsonDict:
        return {
            "decision": self.decision,
            "move": self.move,
            "request": self.request,
            "legal_actions": self.legal_actions,
            "recorded": self.recorded,
            "answered": self.answered,
            "illegal": self.illegal,
            "note": self.note,
            "stderr": self.stderr,
            "fault": None if self.fault is None else self.fault.to_json(),
        }


@dataclass
class RerunResult:
    """What a rerun compared, and the differences it found (in decision order)."""

    seat: int
    game_id: int
    bot_seed: int
    #: The seat's decisions that the recorded bot answered itself (not its fallback's).
    answered: int
    #: Of those, how many were put to the bot before it stopped.
    compared: int = 0
    differences: list[Difference] = field(default_factory=list)
    #: Why the comparison ends early or may mislead, in words.
    remarks: list[str] = field(default_factory=list)

    @property
    def same(self) -> bool:
        return not self.differences

    def to_json(self) -> JsonDict:
        return {
            "seat": self.seat,
            "game_id": self.game_id,
            "bot_seed": self.bot_seed,
            "answered": self.answered,
            "compared": self.compared,
            "same": self.same,
            "differences": [difference.to_json() for difference in self.differences],
            "remarks": self.remarks,
        }


# ---------------------------------------------------------------------- input


def read_log(source: str, *, token: str | None = None, game: int = 1) -> JsonDict:
    """The game log at ``source``: a file (JSON, gzip or not; a ``play --log`` file
    holds a game a line: ``game`` picks it) or a match's address on the platform,
    fetched with an API token (the owner's: only their download has the seat's
    bot seed and trace)."""
    if _MATCH_URL.match(source):
        return _fetch(source, token)
    path = Path(source)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise RerunError(f"{source}: cannot read it ({error.strerror})") from None
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as error:
            raise RerunError(f"{source}: a damaged gzip file ({error})") from None
    lines = [line for line in data.splitlines() if line.strip()]
    if len(lines) > 1 and data.lstrip().startswith(b"{") and _is_json(lines[0]):
        if not 1 <= game <= len(lines):
            raise RerunError(
                f"{source} holds {len(lines)} games: pick one with --game 1-{len(lines)}"
            )
        data = lines[game - 1]
    return _parse(data, source)


def _is_json(line: bytes) -> bool:
    try:
        json.loads(line)
    except ValueError:
        return False
    return True


def _parse(data: bytes, source: str) -> JsonDict:
    try:
        document = json.loads(data)
    except ValueError as error:
        raise RerunError(f"{source}: not a game log (not JSON: {error})") from None
    try:
        log: JsonDict = check(document)
    except VegasError as error:
        raise RerunError(f"{source}: not a game log ({error})") from None
    return log


def _fetch(url: str, token: str | None) -> JsonDict:
    """The log of the match at ``url`` (its page or API address), in the moves form."""
    found = _MATCH_URL.match(url)
    assert found is not None
    site, match_id = found.groups()
    address = f"{site}/api/matches/{match_id}/log/?form=moves"
    request = urllib.request.Request(address, headers={"Accept": "application/json"})
    if token:
        request.add_header("Authorization", f"Token {token}")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            data: bytes = response.read()
    except urllib.error.HTTPError as error:
        detail = error.read().decode("utf-8", errors="replace")[:300]
        hint = {
            401: "the token is not valid: get one with POST /api/auth/token/",
            403: "this account may not read it",
            404: "no finished match there (or not one you may see)",
        }.get(error.code, "")
        raise RerunError(f"{address}: HTTP {error.code} {hint}: {detail}".strip()) from None
    except (urllib.error.URLError, OSError) as error:
        raise RerunError(f"{address}: cannot reach it ({error})") from None
    return _parse(data, address)


# ---------------------------------------------------------------------- rerun


def rerun(
    log: JsonDict,
    seat: int,
    bot: BotSpec,
    *,
    bot_seed: int | None = None,
    every_difference: bool = False,
    wait_ms: int | None = None,
    launcher: Launcher = launch_bot,
) -> RerunResult:
    """Put ``seat``'s recorded requests to ``bot``; stop at its first different answer
    (or go on to the end with ``every_difference``, until the bot faults). Each request
    says the time the seat had left; ``wait_ms`` waits longer for the answer (this
    machine may be slower than the one that played the game)."""
    referee = log.get("referee")
    if not isinstance(referee, dict):
        raise RerunError(
            "the log has no referee section: it comes from the engine alone, where no bot "
            "was asked anything (use a log of the platform or of `play --log`)"
        )
    seats = description_of(log).seats
    if not 0 <= seat < seats:
        raise RerunError(f"--seat {seat}: the game has seats 0-{seats - 1}")
    record = next(
        (r for r in referee.get("seats", []) if isinstance(r, dict) and r.get("seat") == seat),
        None,
    )
    if record is None:
        raise RerunError(f"the log's referee section says nothing of seat {seat}")
    seed = bot_seed if bot_seed is not None else record.get("bot_seed")
    if not isinstance(seed, int):
        raise RerunError(
            f"the log does not give seat {seat}'s bot seed: download the log as the owner of "
            "that seat's bot (the platform shows it to them only), or pass --bot-seed"
        )
    limits = _limits(record.get("limits") or referee.get("limits"))
    game_id = referee.get("game_id", 1)
    try:
        decisions = list(recorded_decisions(log, [seat]))
    except VegasError as error:
        raise RerunError(f"the log's moves cannot be played: {error}") from None
    answered = _answered(decisions, record)
    result = RerunResult(seat, game_id, seed, len(answered))
    if len(answered) < len(decisions):
        fault = record.get("fault") or {}
        result.remarks.append(
            f"seat {seat}'s bot faulted at its decision {len(answered) + 1} "
            f"({fault.get('kind', 'fault')}): the referee's fallback played the "
            f"{len(decisions) - len(answered)} after it, which are not compared"
        )
    if game_id != 1:
        result.remarks.append(
            f"this was game {game_id} of its process: a bot that keeps state across games "
            "may answer otherwise in a fresh process"
        )
    with LoneSeat(bot, limits, launcher=launcher) as lone:
        fault = lone.start(game_id, seat, description_of(log).to_json(), seed)
        if fault is not None:
            first = answered[0] if answered else None
            if first is not None:
                failed = LoneReply(None, "", "", False, None, fault)
                result.differences.append(_difference(1, first[0], first[1], failed))
            else:
                result.remarks.append(f"the bot could not start: {fault.message}")
            return result
        bank = float(limits.bank_ms)
        for number, (decision, request_id, spent) in enumerate(answered, start=1):
            reply = lone.ask(
                request_id,
                decision.observation,
                int(max(0.0, min(limits.decision_ms, bank))),
                int(max(0.0, bank)),
                wait_ms=wait_ms,
            )
            bank -= spent
            result.compared = number
            if reply.action != decision.action:
                result.differences.append(_difference(number, decision, request_id, reply))
                if reply.fault is not None or not every_difference:
                    break
    return result


def _answered(
    decisions: Sequence[RecordedDecision], record: JsonDict
) -> list[tuple[RecordedDecision, int, float]]:
    """The seat's decisions its bot answered itself, each with the id of its request and
    the time it took then (which the bank was charged)."""
    times = [float(ms) for ms in record.get("decision_ms") or []]
    fault = record.get("fault")
    trace = record.get("trace")
    if isinstance(trace, list):
        faulted = None
        if isinstance(fault, dict) and isinstance(fault.get("request"), dict):
            faulted = fault["request"].get("id")
        by_move = {
            entry["move"]: entry
            for entry in trace
            if isinstance(entry, dict) and entry.get("request") != faulted
        }
        return [
            (
                decision,
                int(by_move[decision.move]["request"]),
                float(by_move[decision.move]["ms"] or 0),
            )
            for decision in decisions
            if decision.move in by_move
        ]
    # No trace: the seat's first decisions are its bot's, up to a fault (one whose reply
    # was read was timed, but not played), and a process's requests count from 1.
    count = len(decisions)
    if isinstance(fault, dict):
        count = len(times) - (1 if fault.get("kind") in _READ_FAULTS else 0)
    return [
        (decision, index + 1, times[index] if index < len(times) else 0.0)
        for index, decision in enumerate(decisions[: max(0, count)])
    ]


def _difference(
    number: int, decision: RecordedDecision, request_id: int, reply: LoneReply
) -> Difference:
    return Difference(
        decision=number,
        move=decision.move,
        request=request_id,
        legal_actions=list(decision.observation.get("legal_actions", [])),
        recorded=decision.action,
        answered=reply.action,
        note=reply.note,
        stderr=reply.stderr,
        fault=reply.fault,
    )


def _limits(document: Any) -> Limits:
    if not isinstance(document, dict):
        raise RerunError("the log's referee section has no limits")
    try:
        return Limits(**{name: document[name] for name in Limits.FIELDS if name in document})
    except (TypeError, ValueError) as error:
        raise RerunError(f"the log's limits are not valid: {error}") from None
