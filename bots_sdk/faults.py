"""Why a seat forfeited: the kinds of fault and the record kept of each."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

JsonDict = dict[str, Any]

#: How much of what a faulty bot sent, and of its stderr, a fault record keeps.
SENT_KEPT_BYTES = 1024
STDERR_KEPT_BYTES = 4096


class FaultKind(enum.StrEnum):
    """Each way a bot can fail; any fault forfeits the seat's game."""

    LAUNCH_FAILED = "launch_failed"
    """The bot's process could not be started (missing file, sandbox error)."""

    STARTUP_TIMEOUT = "startup_timeout"
    """No ``ready`` within the start-up time limit."""

    BAD_HANDSHAKE = "bad_handshake"
    """The first line was not a valid ``ready`` of this protocol version."""

    CRASHED = "crashed"
    """The process ended with a non-zero exit status or was killed by a signal."""

    EXITED = "exited"
    """The process exited with status 0 while it still had a game to play."""

    OUT_OF_MEMORY = "out_of_memory"
    """The sandbox killed the process for going over its memory limit."""

    CLOSED_STDOUT = "closed_stdout"
    """The process closed its stdout but kept running."""

    CLOSED_STDIN = "closed_stdin"
    """The process closed its stdin (the referee could not write) but kept running."""

    TIMEOUT = "timeout"
    """A decision took longer than the time per decision."""

    TIME_BANK = "time_bank_exhausted"
    """A decision took longer than what was left of the game's time bank."""

    LINE_TOO_LONG = "line_too_long"
    """A line on stdout grew past the maximum line length."""

    OUTPUT_LIMIT = "output_limit"
    """The bot wrote more to stdout in one game than the output limit."""

    GARBAGE = "garbage"
    """A reply that is not a valid ``action`` message for the pending request."""

    ILLEGAL_ACTION = "illegal_action"
    """A well-formed reply naming an action that is not legal now."""


@dataclass
class Fault:
    """One fault, with everything needed to see what went wrong."""

    kind: FaultKind
    message: str
    game_id: int | None = None
    #: The request the bot failed on (None: start-up, or between requests); for output
    #: written before a request, that request, which was then not sent.
    request: JsonDict | None = None
    #: What the bot sent (the start of it), decoded with replacement characters.
    sent: str | None = None
    elapsed_ms: float | None = None
    exit_code: int | None = None
    signal: int | None = None
    stderr_tail: str = ""
    resources: JsonDict = field(default_factory=dict)

    def to_json(self) -> JsonDict:
        return {
            "kind": self.kind.value,
            "message": self.message,
            "game_id": self.game_id,
            "request": self.request,
            "sent": self.sent,
            "elapsed_ms": self.elapsed_ms,
            "exit_code": self.exit_code,
            "signal": self.signal,
            "stderr_tail": self.stderr_tail,
            "resources": self.resources,
        }

    def describe(self) -> str:
        """Several human-readable lines: the cause, the request, the reply, stderr."""
        lines = [f"{self.kind.value}: {self.message}"]
        if self.request is not None:
            shown = {k: v for k, v in self.request.items() if k != "observation"}
            lines.append(f"  request: {shown}")
            observation = self.request.get("observation")
            if isinstance(observation, dict):
                lines.append(f"  legal actions: {observation.get('legal_actions')}")
        if self.sent is not None:
            lines.append(f"  sent: {self.sent!r}")
        if self.exit_code is not None:
            lines.append(f"  exit code: {self.exit_code}")
        if self.signal is not None:
            lines.append(f"  killed by signal {self.signal}")
        if self.stderr_tail:
            lines.append("  stderr (tail):")
            lines.extend("    " + line for line in self.stderr_tail.rstrip("\n").splitlines())
        return "\n".join(lines)


def clip(data: bytes, limit: int = SENT_KEPT_BYTES) -> str:
    text = data[:limit].decode("utf-8", errors="replace")
    return text + f"... ({len(data)} bytes)" if len(data) > limit else text
