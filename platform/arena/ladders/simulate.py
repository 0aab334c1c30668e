"""The fill sweep over time, on a driven clock: how the platform shares its workers.

A pure model of what the beat and the workers do, for the tests and
``bench/platform.py``: every ``sweep_s`` seconds the real scheduler
(:func:`~arena.ladders.matchmaking.plan_picks`) queues matches; ``workers``
play them first in, first out, each taking its ladder's ``match_s``. No
database, no processes: the figures are those of the policy alone.
"""

from __future__ import annotations

import heapq
import random
from collections import Counter, deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .matchmaking import LadderQueue, bot_cap, plan_picks, queue_budget
from .selectors import MatchmakingCandidate


@dataclass(frozen=True)
class SimLadder:
    name: str
    seats: int
    #: Seconds of a worker's time one match takes.
    match_s: float


@dataclass(frozen=True)
class SimBot:
    name: str
    is_house: bool = False
    #: The ladders it entered (and passed the pre-flight of); None: all of them.
    ladders: frozenset[str] | None = None


#: The default ladders (load_house_bots), with rough seconds of a worker's time per
#: sandboxed match: more seats and more decisions (tiles, modules) take longer.
DEFAULT_LADDERS = (
    SimLadder("classic-2", 2, 0.6),
    SimLadder("classic-4", 4, 1.2),
    SimLadder("boulevard-4", 4, 2.0),
    SimLadder("cardgame-4", 4, 1.0),
    SimLadder("royale-4", 4, 2.5),
    SimLadder("sixdice-4", 4, 1.2),
)
HOUSE_BOTS = tuple(
    SimBot(name, is_house=True) for name in ("random", "greedy", "gambler", "montecarlo")
)


@dataclass
class SimResult:
    #: Finished matches per (ladder, bot).
    games: Counter[tuple[str, str]] = field(default_factory=Counter)
    #: When each ladder's first match finished (seconds from the start).
    first_finish: dict[str, float] = field(default_factory=dict)
    finished: int = 0
    #: Worker-seconds spent playing, and the workers' whole time.
    busy_s: float = 0.0
    capacity_s: float = 0.0
    #: The longest a run waited in the queue (seconds).
    longest_wait_s: float = 0.0
    #: The most matches queued at once, over all ladders.
    most_queued: int = 0

    @property
    def busy_share(self) -> float:
        return self.busy_s / self.capacity_s if self.capacity_s else 0.0

    def games_per_bot(self, ladder: str, bots: Sequence[str]) -> float:
        return sum(self.games[(ladder, bot)] for bot in bots) / len(bots)


def simulate(
    ladders: Sequence[SimLadder],
    bots: Sequence[SimBot],
    *,
    minutes: float,
    workers: int = 2,
    sweep_s: float = 10.0,
    target: int = 24,
    max_queued: int = 2,
    house_only_games: int = 30,
    seed: int = 0,
    interleaved: bool = True,
    series_games: int = 1,
    runs_per_slot: int = 0,
    max_age_s: float = float("inf"),
) -> SimResult:
    """Run the sweep and the workers for ``minutes`` of simulated time.

    ``interleaved`` False: each sweep fills one ladder after the other, as the
    platform did before plan_picks took turns (the figure to compare with).
    ``series_games``: each pick is a series of up to that many games of the
    same bots (``Ladder.series_games``; shorter while its bots have few
    games, ``matchmaking.series_units``), played by one worker in a row.
    """
    rng = random.Random(seed)
    result = SimResult()
    planned: Counter[tuple[str, str]] = Counter()  # queued, running or finished
    busy: Counter[str] = Counter()  # a bot's matches queued or running
    queue: deque[tuple[str, list[str], int, float]] = deque()  # (ladder, bots, games, since)
    queued_on: Counter[str] = Counter()  # matches
    running: list[tuple[float, int, str, list[str], int]] = []  # (ends, order, ladder, bots, games)
    by_name: Mapping[str, SimLadder] = {ladder.name: ladder for ladder in ladders}

    def candidates(ladder: SimLadder) -> list[MatchmakingCandidate]:
        return [
            MatchmakingCandidate(
                version_id=index,
                rating=1500.0,
                games=planned[(ladder.name, bot.name)],
                queued=busy[bot.name],
                is_house=bot.is_house,
            )
            for index, bot in enumerate(bots)
            if bot.ladders is None or ladder.name in bot.ladders
        ]

    budget = queue_budget(
        floor=target,
        slots=workers,
        ladders=len(ladders),
        pick_size=series_games,
        runs_per_slot=runs_per_slot,
    )

    def sweep(group: Sequence[int], now: float) -> None:
        oldest: dict[str, float] = {}
        for name, _, _, since in queue:
            oldest.setdefault(name, since)
        queues = [
            LadderQueue(
                ladder_id=index,
                seats=ladders[index].seats,
                candidates=candidates(ladders[index]),
                queued=queued_on[ladders[index].name],
                target=budget or target,
                pick_size=series_games,
                pick_units=series_games,
                stale=now - oldest.get(ladders[index].name, now) > max_age_s,
            )
            for index in group
        ]
        seats = sum(ladder.seats for ladder in ladders) / len(ladders)
        cap = bot_cap(floor=max_queued, slots=workers, budget=budget, seats=seats, bots=len(bots))
        room = None if budget is None else budget - sum(queued_on.values())
        plan = plan_picks(
            queues,
            max_queued=cap,
            budget=None if room is None else room + sum(q.queued for q in queues),
            house_only_games=house_only_games,
            rng=rng,
        )
        for pick in plan:
            name = ladders[pick.queue.ladder_id].name
            seated = [bots[c.version_id].name for c in pick.seating]
            queue.append((name, seated, pick.units, now))
            queued_on[name] += pick.units
            for bot in seated:
                planned[(name, bot)] += pick.units
                busy[bot] += 1
        result.most_queued = max(result.most_queued, sum(queued_on.values()))

    groups = [list(range(len(ladders)))] if interleaved else [[i] for i in range(len(ladders))]
    free, order, now, next_sweep, end = workers, 0, 0.0, 0.0, minutes * 60
    while now <= end:
        if next_sweep <= now:
            for group in groups:
                sweep(group, now)
            next_sweep += sweep_s
        while free and queue:
            name, seated, games, since = queue.popleft()
            result.longest_wait_s = max(result.longest_wait_s, now - since)
            queued_on[name] -= games
            free -= 1
            order += 1
            ends = now + by_name[name].match_s * games
            result.busy_s += min(ends, end) - now
            heapq.heappush(running, (ends, order, name, seated, games))
        # Advance to the next event: a match ending or the next sweep.
        now = min(next_sweep, running[0][0]) if running else next_sweep
        while running and running[0][0] <= now:
            ended, _, name, seated, games = heapq.heappop(running)
            free += 1
            result.finished += games
            # Its first game ended a series' worth of games earlier.
            first = ended - by_name[name].match_s * (games - 1)
            result.first_finish.setdefault(name, first)
            for bot in seated:
                result.games[(name, bot)] += games
                busy[bot] -= 1
    result.capacity_s = workers * end
    return result
