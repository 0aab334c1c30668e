"""Who plays the next match of a ladder: the scheduler's policy, pure (no database).

- The seed is the candidate with the fewest games on the ladder: everyone
  keeps up, new versions first (they start settling: under SETTLING_MATCHES games).
- Each opponent is drawn with a weight that falls with the rating distance to
  the seed, 1 / (1 + (distance / width)^2), narrower on 2-seat duplicate
  deals (:func:`rating_width`), except that about UNIFORM_SHARE of the draws are
  uniform, so distant bots still meet.
- Opponents more than BALANCE_RATIO times (plus BALANCE_SLACK) the seed's
  games ahead sit out: rating-weighted draws favour the middle of the ladder,
  and this keeps the most-played within about BALANCE_CAP times the least-played.
  While bots have few games, opponents the pick would carry past BALANCE_CAP
  times the seed's games sit out too, unless level with the seed: a young
  ladder plays in rounds (:func:`balance_limit`).
  A seed so far behind that the median candidate would sit out (a newcomer,
  bots that arrived together) is measured against the least-played of the
  field (the bots not that far behind) instead, so it meets the field, not
  only the few bots as far behind as itself.
- A settling seed (under SETTLING_MATCHES games) draws settled opponents
  only, while the settled bots are at least half the candidates: newcomers
  are placed against reliable ratings, not each other.
- A candidate with ``max_queued`` matches queued or running is not drawn.
- The seed's seat rotates with its games, so it plays every seat in turn;
  the opponents take the other seats in random order.
- A pre-flight draws a version's opponents as its first pick here would
  (:func:`draw_opponents`), so they are no tell that the game is a check.
- A pick is a series (games of the same bots, seats rotating, one worker
  run): ``Ladder.series_games`` games once its least-played bot has
  SERIES_SHARE times that many, shorter before, one game while a bot is
  settling (:func:`series_units`). It is queued only if all its games fit
  under the queue target (or nothing is queued), counts as its rated units
  of each of its bots (its games; on a duplicate ladder its deals, each
  rated once) and as one queued run against each bot's cap.

Across ladders (:func:`plan_picks`) no ladder starves: the per-bot cap on
queued matches is shared by every ladder, so the sweep takes one pick at a
time from the ladder whose bots have played the fewest games there on
average, until no ladder can seat another match.

How much is queued follows the workers (:func:`queue_budget`, :func:`bot_cap`): the
floor ARENA_LADDER_QUEUE_TARGET per ladder, or a budget over all ladders of enough
runs for every live worker process to find its next one queued (shared out least-served
first), with the per-bot cap raised where the bots at their cap could not fill them.
A ladder whose oldest queued match waited past the age bound gets nothing more until
its workers catch up.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from .elo import is_settling
from .selectors import MatchmakingCandidate

#: The rating draw's width in Elo (:func:`rating_width`).
RATING_WIDTH = 200.0
#: On 2-seat duplicate deals: a deal compares the seed with one opponent, its
#: luck mostly cancelled, so the nearer that opponent the more the result tells.
#: In ``bench/ratings.py`` the narrower draw placed newcomers better there and
#: ranked no worse. Not elsewhere: on 4 seats it placed luck-heavy newcomers
#: worse, on 2-seat single games it ranked a young field worse.
DEALS_RATING_WIDTH = 50.0
UNIFORM_SHARE = 0.1
BALANCE_RATIO = 1.1
#: Games beyond BALANCE_RATIO times: one whatever the series (a series' worth let
#: games per bot spread past BALANCE_CAP, ``bench/ratings.py``).
BALANCE_SLACK = 1
#: The most-played bot's games at most this many times the least-played's
#: (:func:`balance_limit`).
BALANCE_CAP = 1.2
#: A series is at most this share of its least-played bot's games (:func:`series_units`).
SERIES_SHARE = 12


def rating_width(seats: int, *, duplicate_deals: bool) -> float:
    """How far (Elo) the rating-weighted draw reaches on a ladder of ``seats``."""
    return DEALS_RATING_WIDTH if seats == 2 and duplicate_deals else RATING_WIDTH


def balance_limit(games: int) -> float:
    """The most games an opponent of a seed with ``games`` may have.

    BALANCE_RATIO times plus BALANCE_SLACK; while bots have few games, less:
    the pick (a unit: a game, or a deal) may not carry an opponent past
    BALANCE_CAP times the seed's games, though one level with the seed may
    always play. A young ladder plays in rounds: on 2-seat deals, 5 a bot at
    1k games, the slack alone let games per bot spread to 6 against 4. From
    about 20 games the ratio is the tighter (series longer than one unit
    start later). At the end of a round, too few level opponents left,
    :func:`pick_seating` falls back on the ratio.
    """
    return min(_ratio_limit(games), max(games, games * BALANCE_CAP - 1))


def _ratio_limit(games: int) -> float:
    return games * BALANCE_RATIO + BALANCE_SLACK


def opponent_weight(seed_rating: float, rating: float, width: float) -> float:
    return 1.0 / (1.0 + ((rating - seed_rating) / width) ** 2)


def pick_fits(*, target: int, queued: int, size: int) -> bool:
    """Whether a pick of ``size`` matches (a series' games) may be queued now.

    Only whole picks that fit under ``target`` with the ``queued`` matches;
    a series larger than the whole target still goes when nothing is queued,
    or a ladder whose series outgrow the target would never play.
    """
    return queued == 0 or queued + size <= target


def series_units(pick_units: int, games: int) -> int:
    """Rated units (games, or deals) of a series whose least-played bot has ``games``.

    The ladder's full series (``pick_units``) once that is at most
    1/SERIES_SHARE of the bot's games, shorter before, one while settling.
    A series of 12 games meets 3 opponents where 12 single games meet about
    30: a new field played in full series ranked clearly worse in its first
    games (``bench/ratings.py``), and full picks on bots of few games spread
    games per bot well past BALANCE_CAP.
    """
    if is_settling(games):
        return 1
    return max(1, min(pick_units, games // SERIES_SHARE))


def pick_seating(
    candidates: Sequence[MatchmakingCandidate],
    *,
    seats: int,
    max_queued: int,
    rng: random.Random,
    width: float = RATING_WIDTH,
) -> list[MatchmakingCandidate] | None:
    """The candidates of the next match in seat order, or None if too few may play.

    ``width``: the rating draw's (:func:`rating_width`).
    """
    eligible = [c for c in candidates if c.queued < max_queued]
    if len(eligible) < seats:
        return None
    # Ties broken at random: equal bots take turns instead of the lowest id first.
    seed = min(eligible, key=lambda c: (c.games, rng.random()))
    others = [c for c in eligible if c is not seed]
    opponents = draw_opponents(seed, others, seats=seats, rng=rng, width=width)
    seat = seed.games % seats
    return [*opponents[:seat], seed, *opponents[seat:]]


def draw_opponents(
    seed: MatchmakingCandidate,
    others: Sequence[MatchmakingCandidate],
    *,
    seats: int,
    rng: random.Random,
    width: float = RATING_WIDTH,
) -> list[MatchmakingCandidate]:
    """The ``seats - 1`` opponents of ``seed`` among ``others`` (at least that many), in
    random seat order: the draw of :func:`pick_seating` once its seed is chosen. A
    pre-flight draws a newcomer's opponents with it, as its first pick would.
    """
    base = seed.games
    median = sorted(c.games for c in others)[len(others) // 2] if others else 0
    if _ratio_limit(base) < median:
        # A seed far behind (a newcomer, bots that arrived together) meets the
        # field, not only the few bots as far behind as itself; the field, the
        # bots not far behind the median, stays in balance among itself.
        base = min(c.games for c in others if _ratio_limit(c.games) >= median)
    pool = [c for c in others if c.games <= balance_limit(base)]
    if len(pool) < seats - 1:  # the end of a round: the ratio's slack
        pool = [c for c in others if c.games <= _ratio_limit(base)]
    settled = [c for c in others if not is_settling(c.games)]
    if is_settling(seed.games) and 2 * len(settled) >= len(others):
        # A settling seed is placed against settled ratings while they are the
        # bulk of the ladder (a few settled bots would otherwise play every match).
        settled_pool = [c for c in pool if not is_settling(c.games)]
        if len(settled_pool) >= seats - 1:
            pool = settled_pool
    if len(pool) < seats - 1:
        pool = sorted(others, key=lambda c: c.games)[: seats - 1]
    opponents = []
    for _ in range(seats - 1):
        if rng.random() < UNIFORM_SHARE:
            chosen = rng.choice(pool)
        else:
            weights = [opponent_weight(seed.rating, c.rating, width) for c in pool]
            chosen = rng.choices(pool, weights=weights)[0]
        pool.remove(chosen)
        opponents.append(chosen)
    # Opponents take the other seats at random (the nearest-rated must not always sit first).
    rng.shuffle(opponents)
    return opponents


@dataclass
class LadderQueue:
    """One open ladder as the fill sweep sees it (mutable: the plan counts as it goes)."""

    ladder_id: int
    seats: int
    #: The entered, qualified versions that may play there, with their counts.
    candidates: list[MatchmakingCandidate]
    #: Matches queued on this ladder now.
    queued: int
    #: Matches to keep queued here (:func:`queue_target`).
    target: int
    #: Matches per pick: a series' games (``Ladder.pick_games``).
    pick_size: int = 1
    #: Rated units per pick, the games it adds to each of its bots (``Ladder.pick_units``).
    pick_units: int = 1
    #: ``Ladder.duplicate_deals``.
    duplicate_deals: bool = False
    #: Its oldest queued match has waited past the queue's age bound: the workers are
    #: behind, and more queued here would only wait longer.
    stale: bool = False

    @property
    def games_per_bot(self) -> float:
        """How much this ladder has been served: its bots' average games there."""
        if not self.candidates:
            return 0.0
        return sum(c.games for c in self.candidates) / len(self.candidates)

    @property
    def house_only(self) -> bool:
        return all(c.is_house for c in self.candidates)


class Pick(NamedTuple):
    """One pick of the plan: a series to queue on ``queue``'s ladder."""

    queue: LadderQueue
    #: The bots in seat order (game 1's seating; the series rotates it).
    seating: list[MatchmakingCandidate]
    #: Rated units of the series: its games (or deals, each ``seats`` games).
    units: int
    #: Matches it queues.
    size: int


def queue_budget(
    *, floor: int, slots: int, ladders: int, pick_size: float, runs_per_slot: int
) -> int | None:
    """Matches to keep queued over all ``ladders`` for the workers' ``slots`` processes:
    ``runs_per_slot`` runs of ``pick_size`` matches each (one to take when a run ends,
    more for the runs that end before the next sweep). None where the ``floor`` on
    each ladder (ARENA_LADDER_QUEUE_TARGET) is as much: a few processes queue as before."""
    wanted = math.ceil(runs_per_slot * slots * pick_size)
    return wanted if wanted > floor * ladders else None


def bot_cap(*, floor: int, slots: int, budget: int | None, seats: float, bots: int) -> int:
    """Runs a bot may have queued or running: ``floor``; or, with a ``budget``, enough for
    the ``bots`` to fill the ``slots`` running and the budget queued even as single games
    (a young ladder's runs). The draw still serves the least-played first."""
    if budget is None or bots <= 0:
        return floor
    return max(floor, math.ceil((slots + budget) * seats / bots))


def plan_picks(
    ladders: Sequence[LadderQueue],
    *,
    max_queued: int,
    budget: int | None = None,
    house_only_games: int,
    rng: random.Random,
) -> list[Pick]:
    """The seatings to queue now on every ladder, in the order to queue them.

    One pick at a time, from the ladder whose bots have the fewest games there
    on average (ties at random), while it has room under its target and can
    seat bots under ``max_queued``. A version's queued count is shared by all
    its ladders, so a pick anywhere counts against its cap everywhere. A
    ladder of house bots only stops once each has ``house_only_games``. With a
    ``budget`` the matches queued over all the ladders stay within it too: where the
    workers are the scarce part, the least-served ladder takes the room first.
    """
    shared: dict[int, list[MatchmakingCandidate]] = defaultdict(list)
    for queue in ladders:
        for candidate in queue.candidates:
            shared[candidate.version_id].append(candidate)
    active = [queue for queue in ladders if queue.queued < queue.target and not queue.stale]
    room = (budget - sum(q.queued for q in ladders)) if budget is not None else None
    plan: list[Pick] = []
    while active:
        queue = min(active, key=lambda q: (q.games_per_bot, rng.random()))
        calibrated = (
            queue.house_only
            and min((c.games for c in queue.candidates), default=0) >= house_only_games
        )
        seating = (
            None
            if calibrated
            else pick_seating(
                queue.candidates,
                seats=queue.seats,
                max_queued=max_queued,
                rng=rng,
                width=rating_width(queue.seats, duplicate_deals=queue.duplicate_deals),
            )
        )
        units = series_units(queue.pick_units, min(c.games for c in seating)) if seating else 0
        size = queue.pick_size // queue.pick_units * units
        if (
            seating is None
            or not pick_fits(target=queue.target, queued=queue.queued, size=size)
            or (room is not None and size > room)
        ):
            active.remove(queue)
            continue
        plan.append(Pick(queue, seating, units, size))
        for candidate in seating:
            candidate.games += units
            for same_version in shared[candidate.version_id]:
                same_version.queued += 1
        queue.queued += size
        if room is not None:
            room -= size
        if queue.queued >= queue.target:
            active.remove(queue)
    return plan
