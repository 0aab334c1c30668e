"""The pre-flight check a bot passes before the platform accepts it.

The bot is started (in the sandbox unless trusted), must complete the
handshake, then play a full game against house bots without any fault. The
CLI's ``validate`` and the platform's upload run this same function.
"""

from __future__ import annotations

from dataclasses import dataclass

from vegas_engine import describe
from vegas_engine.state import JsonDict

from .faults import Fault
from .launcher import BotSpec, Launcher, house_bot, launch_bot
from .protocol import Limits
from .referee import GameRecord, Match, SeatRecord, outcome_resources

#: The opponents: house bots, trusted.
OPPONENTS = ("random", "greedy", "random")
RULES = "classic"
SEED = 20240601


@dataclass
class PreflightReport:
    """The candidate's seat record, its fault if any, and the game played."""

    seat: SeatRecord
    record: GameRecord
    exited_cleanly: bool

    @property
    def ok(self) -> bool:
        return self.fault is None

    @property
    def fault(self) -> Fault | None:
        return self.seat.fault

    def to_json(self) -> JsonDict:
        return {
            "ok": self.ok,
            "bot": self.seat.name,
            "exited_cleanly": self.exited_cleanly,
            "seat": self.seat.to_json(),
            "result": self.record.result,
        }

    def describe(self) -> str:
        seat = self.seat
        if self.fault is not None:
            return f"FAILED: {seat.name}\n{self.fault.describe()}"
        times = sorted(seat.decision_ms)
        lines = [
            f"ok: {seat.name} completed the handshake in {seat.startup_ms:.0f} ms "
            f"and played a full game of {RULES} ({len(OPPONENTS) + 1} seats)",
            f"  {len(times)} decisions, median {times[len(times) // 2]:.2f} ms, "
            f"slowest {times[-1]:.2f} ms"
            if times
            else "  no decisions",
        ]
        memory = seat.resources.get("memory_peak_bytes")
        if memory:
            lines.append(f"  memory peak {memory / 2**20:.1f} MiB")
        if not self.exited_cleanly:
            lines.append("  warning: did not exit by itself after shutdown (it was killed)")
        return "\n".join(lines)


def preflight(
    bot: BotSpec, *, limits: Limits | None = None, launcher: Launcher = launch_bot
) -> PreflightReport:
    """Handshake, then one full game against house bots; the candidate sits at seat 1
    (not first to move, so a request arrives after opponents have played)."""
    players = [house_bot(OPPONENTS[0]), bot, *(house_bot(name) for name in OPPONENTS[1:])]
    description = describe(RULES, len(players), SEED)
    with Match(players, limits, launcher=launcher) as match:
        record = match.play(description, list(range(len(players))))
    seat = record.seats[1]
    outcomes = match.outcomes[1]
    clean = bool(outcomes) and not outcomes[-1].killed and outcomes[-1].exit_code == 0
    if outcomes and seat.fault is None:
        seat.resources = outcome_resources(outcomes[-1])  # the whole life's peaks
    return PreflightReport(seat=seat, record=record, exited_cleanly=clean or seat.fault is not None)
