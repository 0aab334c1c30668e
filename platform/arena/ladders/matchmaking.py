"""Who plays the next match of a ladder: the scheduler's policy, pure (no database).

- The seed is the candidate with the fewest games on the ladder: everyone
  keeps up, new versions first (they start provisional).
- Each opponent is drawn with a weight that falls with the rating distance to
  the seed, 1 / (1 + (distance / RATING_SCALE)^2), except that about
  UNIFORM_SHARE of the draws are uniform, so distant bots still meet.
- Opponents more than BALANCE_RATIO times (plus BALANCE_SLACK) the seed's
  games ahead sit out: rating-weighted draws favour the middle of the ladder,
  and this keeps the most-played within about 1.2 times the least-played.
  A seed so far behind that the median candidate would sit out (a newcomer,
  bots that arrived together) is measured against the least-played of the
  field (the bots not that far behind) instead, so it meets the field, not
  only the few bots as far behind as itself.
- A provisional seed draws settled opponents only, while the settled bots
  are at least half the candidates: newcomers are placed against reliable
  ratings, not each other.
- A candidate with ``max_queued`` matches queued or running is not drawn.
- The seed's seat rotates with its games, so it plays every seat in turn;
  the opponents take the other seats in random order.
- A pick is a whole series (``Ladder.series_games`` games of the same bots,
  one worker run): it is queued only if all its games fit under the queue
  target (or nothing is queued), counts as its rated units of each of its
  bots (its games; on a duplicate ladder its deals, each rated once) and as
  one queued run against each bot's cap. The balance slack grows with the
  pick: one pick's worth of games.

Across ladders (:func:`plan_picks`) no ladder starves: the per-bot cap on
queued matches is shared by every ladder, so the sweep takes one pick at a
time from the ladder whose bots have played the fewest games there on
average, until no ladder can seat another match.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from .elo import is_provisional
from .selectors import MatchmakingCandidate

RATING_SCALE = 200.0
UNIFORM_SHARE = 0.1
BALANCE_RATIO = 1.1
BALANCE_SLACK = 1


def opponent_weight(seed_rating: float, rating: float) -> float:
    return 1.0 / (1.0 + ((rating - seed_rating) / RATING_SCALE) ** 2)


def queue_picks(*, target: int, queued: int, size: int) -> int:
    """How many picks of ``size`` matches each (a series' games) to queue now.

    Only whole picks that fit under ``target`` with the ``queued`` matches;
    a series larger than the whole target still goes when nothing is queued,
    or a ladder whose series outgrow the target would never play.
    """
    room = target - queued
    if room <= 0:
        return 0
    if queued == 0:
        return max(1, room // size)
    return room // size


def pick_seating(
    candidates: Sequence[MatchmakingCandidate],
    *,
    seats: int,
    max_queued: int,
    rng: random.Random,
    slack: float = BALANCE_SLACK,
) -> list[MatchmakingCandidate] | None:
    """The candidates of the next match in seat order, or None if too few may play.

    ``slack``: games an opponent may be ahead beyond BALANCE_RATIO times the
    seed's; a pick of many games (a series) needs that many.
    """
    eligible = [c for c in candidates if c.queued < max_queued]
    if len(eligible) < seats:
        return None
    # Ties broken at random: equal bots take turns instead of the lowest id first.
    seed = min(eligible, key=lambda c: (c.games, rng.random()))
    others = [c for c in eligible if c is not seed]
    limit = seed.games * BALANCE_RATIO + slack
    median = sorted(c.games for c in others)[len(others) // 2] if others else 0
    if limit < median:
        # A seed far behind (a newcomer, bots that arrived together) meets the
        # field, not only the few bots as far behind as itself; the field, the
        # bots not far behind the median, stays in balance among itself.
        field = [c.games for c in others if c.games * BALANCE_RATIO + slack >= median]
        limit = min(field) * BALANCE_RATIO + slack
    pool = [c for c in others if c.games <= limit]
    settled = [c for c in others if not is_provisional(c.games)]
    if is_provisional(seed.games) and 2 * len(settled) >= len(others):
        # A provisional seed is placed against settled ratings while they are the
        # bulk of the ladder (a few settled bots would otherwise play every match).
        settled_pool = [c for c in pool if not is_provisional(c.games)]
        if len(settled_pool) >= seats - 1:
            pool = settled_pool
    if len(pool) < seats - 1:
        pool = sorted(others, key=lambda c: c.games)[: seats - 1]
    opponents = []
    for _ in range(seats - 1):
        if rng.random() < UNIFORM_SHARE:
            chosen = rng.choice(pool)
        else:
            weights = [opponent_weight(seed.rating, c.rating) for c in pool]
            chosen = rng.choices(pool, weights=weights)[0]
        pool.remove(chosen)
        opponents.append(chosen)
    # Opponents take the other seats at random (the nearest-rated must not always sit first).
    rng.shuffle(opponents)
    seat = seed.games % seats
    return [*opponents[:seat], seed, *opponents[seat:]]


@dataclass
class LadderQueue:
    """One open ladder as the fill sweep sees it (mutable: the plan counts as it goes)."""

    ladder_id: int
    seats: int
    #: The entered, qualified versions that may play there, with their counts.
    candidates: list[MatchmakingCandidate]
    #: Matches queued on this ladder now.
    queued: int
    #: Matches per pick: a series' games (``Ladder.pick_games``).
    pick_size: int = 1
    #: Rated units per pick, the games it adds to each of its bots (``Ladder.pick_units``).
    pick_units: int = 1

    @property
    def games_per_bot(self) -> float:
        """How much this ladder has been served: its bots' average games there."""
        if not self.candidates:
            return 0.0
        return sum(c.games for c in self.candidates) / len(self.candidates)

    @property
    def house_only(self) -> bool:
        return all(c.is_house for c in self.candidates)


def plan_picks(
    ladders: Sequence[LadderQueue],
    *,
    target: int,
    max_queued: int,
    house_only_games: int,
    rng: random.Random,
) -> list[tuple[LadderQueue, list[MatchmakingCandidate]]]:
    """The seatings to queue now on every ladder, in the order to queue them.

    One pick at a time, from the ladder whose bots have the fewest games there
    on average (ties at random), while it has room under ``target`` and can
    seat bots under ``max_queued``. A version's queued count is shared by all
    its ladders, so a pick anywhere counts against its cap everywhere. A
    ladder of house bots only stops once each has ``house_only_games``.
    """
    shared: dict[int, list[MatchmakingCandidate]] = defaultdict(list)
    for queue in ladders:
        for candidate in queue.candidates:
            shared[candidate.version_id].append(candidate)
    room = {
        queue.ladder_id: queue_picks(target=target, queued=queue.queued, size=queue.pick_size)
        for queue in ladders
    }
    active = [queue for queue in ladders if room[queue.ladder_id] > 0]
    plan: list[tuple[LadderQueue, list[MatchmakingCandidate]]] = []
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
                slack=BALANCE_SLACK * queue.pick_units,
            )
        )
        if seating is None:
            active.remove(queue)
            continue
        plan.append((queue, seating))
        for candidate in seating:
            candidate.games += queue.pick_units
            for same_version in shared[candidate.version_id]:
                same_version.queued += 1
        queue.queued += queue.pick_size
        room[queue.ladder_id] -= 1
        if room[queue.ladder_id] <= 0:
            active.remove(queue)
    return plan
