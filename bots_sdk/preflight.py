"""The pre-flight check a bot passes before the platform lets it play a game.

The bot is started (in the sandbox unless trusted), must complete the
handshake, then play one full game of the given :class:`GameSetup` (its
seats, options and exact limits) without any fault. Nothing in it may tell
the bot that this game is a check rather than a ladder game, or a bot could
play well here only: the seed, the bot's seat and (unless the caller draws
them, as the platform does from the ladder) the opponents are drawn fresh
from the system's random source each time and recorded in the report; the
messages are those of any game. The CLI's ``validate`` and the platform's
upload run this same function.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from vegas_engine.description import MAX_SEED
from vegas_engine.state import JsonDict

from .faults import Fault
from .games import GameSetup
from .launcher import BotSpec, Launcher, house_bot, launch_bot
from .referee import GameRecord, Match, SeatRecord, outcome_resources

#: The house bots opponents are drawn from when the caller gives none: quick to answer.
OPPONENTS = ("greedy", "random", "gambler")
#: The game of a pre-flight when none is named.
DEFAULT_SETUP = GameSetup("classic", 4)


def draw_seed() -> int:
    """A seed no bot can guess: the pre-flight game must not be recognisable."""
    return secrets.randbelow(MAX_SEED + 1)


def draw_seat(seats: int) -> int:
    """The candidate's seat, uniform: on a ladder a bot sits at every seat in turn, so
    a fixed one would mark the pre-flight (a bot could play legally there only)."""
    return secrets.randbelow(seats)


def draw_opponents(count: int) -> tuple[BotSpec, ...]:
    """``count`` house bots of :data:`OPPONENTS`, each drawn on its own (repeats allowed)."""
    return tuple(house_bot(secrets.choice(OPPONENTS)) for _ in range(count))


@dataclass
class PreflightReport:
    """The candidate's seat record, its fault if any, and the game played."""

    setup: GameSetup
    seed: int
    #: The other seats' bots, in seat order.
    opponents: tuple[str, ...]
    seat: SeatRecord
    record: GameRecord
    exited_cleanly: bool
    #: The id the bot was told (``new_game``): what its game would have on a ladder.
    game_id: int = 1

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
            "game_id": self.game_id,
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
                f"seat {seat.seat}, against {', '.join(self.opponents)}\n"
                f"{self.fault.describe()}"
            )
        times = sorted(seat.decision_ms)
        lines = [
            f"ok: {seat.name} completed the handshake in {seat.startup_ms:.0f} ms "
            f"and played a full game of {self.game_name}, seed {self.seed}, "
            f"seat {seat.seat}",
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
    seat: int | None = None,
    opponents: Sequence[BotSpec] | None = None,
    game_id: int = 1,
    launcher: Launcher = launch_bot,
) -> PreflightReport:
    """Handshake, then one full game of ``setup`` against ``opponents``.

    ``seed`` and ``seat`` (the candidate's): None (the platform and the CLI)
    draws them, recorded in the report. ``opponents``: one bot per other
    seat, in seat order; None draws house bots (:func:`draw_opponents`).
    ``game_id``: the id the bot is told, as its game would have on a ladder.
    """
    seed = draw_seed() if seed is None else seed
    description = setup.describe()  # a bad setup fails before any bot starts
    seat = draw_seat(setup.seats) if seat is None else seat
    if not 0 <= seat < setup.seats:
        raise ValueError(f"seat {seat} is no seat of {setup.seats}: choose 0-{setup.seats - 1}")
    others = draw_opponents(setup.seats - 1) if opponents is None else tuple(opponents)
    if len(others) != setup.seats - 1:
        raise ValueError(f"{setup.seats} seats take {setup.seats - 1} opponents, got {len(others)}")
    players = list(others)
    players.insert(seat, bot)
    with Match(players, setup.limits, launcher=launcher) as match:
        record = match.play(description, seed, list(range(len(players))), game_id=game_id)
    candidate = record.seats[seat]
    outcomes = match.outcomes[seat]
    clean = bool(outcomes) and not outcomes[-1].killed and outcomes[-1].exit_code == 0
    if outcomes and candidate.fault is None:
        # The whole life's peaks (read at exit), keeping the game's time charged and waited.
        candidate.resources = {**candidate.resources, **outcome_resources(outcomes[-1])}
    return PreflightReport(
        setup=setup,
        seed=seed,
        opponents=tuple(spec.name for spec in others),
        seat=candidate,
        record=record,
        exited_cleanly=clean or candidate.fault is not None,
        game_id=game_id,
    )
