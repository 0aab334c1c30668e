"""The pre-flight check a bot passes before the platform lets it play a game.

The bot is started (in the sandbox unless trusted), must complete the
handshake, then play one full game of the given :class:`GameSetup` (its
seats, options and exact limits) against house bots without any fault, on a
fresh unpredictable seed each time: a bot cannot pass by recognising a fixed
game. The CLI's ``validate`` and the platform's upload run this same function.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from vegas_engine.description import MAX_SEED
from vegas_engine.state import JsonDict

from .faults import Fault
from .games import GameSetup
from .launcher import BotSpec, Launcher, house_bot, launch_bot
from .referee import GameRecord, Match, SeatRecord, outcome_resources

#: The opponents, taken in turn for the other seats: house bots, trusted, quick to answer.
OPPONENTS = ("greedy", "random", "gambler", "greedy", "random")
#: The candidate's seat: not first to move, so a request arrives after opponents played.
SEAT = 1
#: The game of a pre-flight when none is named.
DEFAULT_SETUP = GameSetup("classic", 4)


def draw_seed() -> int:
    """A seed no bot can guess: the pre-flight game must not be recognisable."""
    return secrets.randbelow(MAX_SEED + 1)


@dataclass
class PreflightReport:
    """The candidate's seat record, its fault if any, and the game played."""

    setup: GameSetup
    seed: int
    opponents: tuple[str, ...]
    seat: SeatRecord
    record: GameRecord
    exited_cleanly: bool

    @property
    def ok(self) -> bool:
        return self.fault is None

    @property
    def fault(self) -> Fault | None:
        return self.seat.fault

    @property
    def game_name(self) -> str:
        options = ", ".join(f"{k}={v}" for k, v in sorted(self.setup.options.items()))
        return f"{self.setup.rules}, {self.setup.seats} seats" + (
            f" ({options})" if options else ""
        )

    def to_json(self) -> JsonDict:
        return {
            "ok": self.ok,
            "bot": self.seat.name,
            "game": self.setup.to_json(),
            "seed": self.seed,
            "opponents": list(self.opponents),
            "exited_cleanly": self.exited_cleanly,
            "seat": self.seat.to_json(),
            "result": self.record.result,
        }

    def describe(self) -> str:
        seat = self.seat
        if self.fault is not None:
            return (
                f"FAILED: {seat.name} in a game of {self.game_name}, seed {self.seed}, "
                f"seat {SEAT}\n{self.fault.describe()}"
            )
        times = sorted(seat.decision_ms)
        lines = [
            f"ok: {seat.name} completed the handshake in {seat.startup_ms:.0f} ms "
            f"and played a full game of {self.game_name}, seed {self.seed}",
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
    bot: BotSpec,
    setup: GameSetup = DEFAULT_SETUP,
    *,
    seed: int | None = None,
    launcher: Launcher = launch_bot,
) -> PreflightReport:
    """Handshake, then one full game of ``setup`` against house bots at seat :data:`SEAT`.

    ``seed``: None (the platform and the CLI) draws a fresh one, recorded in the report.
    """
    seed = draw_seed() if seed is None else seed
    description = setup.describe()  # a bad setup fails before any bot starts
    opponents = tuple(OPPONENTS[i % len(OPPONENTS)] for i in range(setup.seats - 1))
    seat = SEAT % setup.seats
    players = [house_bot(name) for name in opponents]
    players.insert(seat, bot)
    with Match(players, setup.limits, launcher=launcher) as match:
        record = match.play(description, seed, list(range(len(players))))
    candidate = record.seats[seat]
    outcomes = match.outcomes[seat]
    clean = bool(outcomes) and not outcomes[-1].killed and outcomes[-1].exit_code == 0
    if outcomes and candidate.fault is None:
        candidate.resources = outcome_resources(outcomes[-1])  # the whole life's peaks
    return PreflightReport(
        setup=setup,
        seed=seed,
        opponents=opponents,
        seat=candidate,
        record=record,
        exited_cleanly=clean or candidate.fault is not None,
    )
