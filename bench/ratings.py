"""Ratings benchmark: how well the platform's Elo and matchmaking rank bots of known strength.

    python3 bench/ratings.py            # 200 bots, 20,000 games, 3 seeds (about 17 minutes)
    python3 bench/ratings.py --quick    # 1 seed, 5,000 matches, mixed tables (about a minute)
    python3 bench/ratings.py --seating 2-5 --model luck-heavy --deal-games 0   # one part
    python3 bench/ratings.py --seating 2 --deal-games 0   # 2 seats: deals beside games (5 minutes)

A synthetic ladder of 200 bots with hidden strengths, played by the
platform's own pure code: the scheduler (``matchmaking.plan_picks``: seeds,
rating-weighted draws, the games-balance rule, the per-bot cap of queued
runs, a queue of ARENA_LADDER_QUEUE_TARGET matches and two workers, so
matches are rated some picks after they were made) and the Elo
(``elo.rating_changes``, as ``services.ratings_apply`` applies it: once per
match, in finish order, the shown Elo stretched by ``elo.stretch`` as the
ladder's results call for; ``--no-stretch``: as before, the same ranks),
refitted on the whole history as the platform's sweep refits a ladder
(``refit.refit_due``: every 50 rated units, or 2% more if that is more;
``refit.fit``, newcomers among settled ratings keeping their Elo,
``refit.refitted``; ``--no-refit``: Elo alone).
Each pick is a series, as the platform plays it: ``Ladder.series_games``
(12) games or fewer (``matchmaking.series_units``),
seated as ``match_create_series`` seats them (rotated), a worker taking a
whole series and playing its games in order, the two workers' games
finishing in turn, each game rated as it finishes; a "match" is a game.
Every run is made twice, with the default series and with single games
(``--series``), and a summary prints them side by side. Outcomes follow
one of two models:

* **skill-heavy**: Plackett-Luce with log-strengths spread wide;
* **luck-heavy**: Thurstone (strength plus normal noise), the noise large.

Tables have a ladder's fixed seat count (2 or 4) or 2-5 seats at random.

**Duplicate deals.** A 2-seat ladder plays duplicate deals by default, and
the bench plays it both ways (``--play deals``, ``--play games``): a pick
is a series of whole deals (``Ladder.pick_games`` and ``pick_units``:
``series_games // 2`` deals, through the same ``plan_picks`` and
``series_units``, which count a deal as one unit), played lane by lane as
``match_create_series`` plays them, each deal rated once as its last game
finishes, on its bots' money totals (``deals.deal_totals`` and
``deal_ranks``, then ``elo.rating_changes``, as ``services.ratings_apply``
rates a deal). A game's luck is split into the deal's, drawn once per seat
per deal (the dice: it stays with the seat while the bots swap), and the
play's, fresh each game; the two sum to the model's luck exactly (normal:
two normals; Gumbel: -log Gamma(1+b) and -log Beta(1, b)), so a single game
is the same either way, and a seat's performance is its money. The deal's
share is set so that the engine's own close pair (greedy against greedy 10%
random, ENGINE_SINGLE single games -> ENGINE_DEALS games in deals) is as
hard to call in the model: a strength gap for the single games, then the
share for the deals (skill-heavy 58%, luck-heavy 76% of the variance); the
run prints the pair played on the ladder's code. Checkpoints and
newcomers' 20 and 40 count games (a deal is 2), not deals; held-out
results are deals too.

On the very same rated units (games, or deals) it fits, for comparison:
Elo with a fixed K of 8 and 16, OpenSkill's Plackett-Luce (a TrueSkill-like
online Bayesian rating), an offline Plackett-Luce maximum-likelihood fit and
``bots_sdk.rating.fit``.

Per checkpoint (1k, 5k, 20k games) it prints, averaged over the seeds:
Spearman rho of ratings against the hidden strengths (with the standard error
of the platform's mean over the seeds, and the worst seed's gap between the
offline fit and the platform; at 1k also the ideal fit's: ``IdealFit``, each
bot's posterior mean under the outcome model itself, the field's prior and
every opponent's true strength known, which no rating knows); the accuracy of the
ratings on held-out matches (each pair of seats: the higher rating ahead?);
the calibration slope of the displayed Elo (logistic regression of held-out
pair results on the Elo difference: 1 means the differences mean what Elo
says, above 1 compressed, below 1 too spread); the games per bot max/min
(worst seed). Then newcomers on the settled ladder: the placement error
(|percentile of the rating among the field - percentile of the strength|) of
strong bots arriving alone (one after another) and as a cohort of ten, after
20 and 40 rated matches (± the standard error over the seeds), beside the
same for an offline fit of each newcomer on the same games (against the
field's offline fit) and for the ideal fit of those games (its maximum
likelihood: a prior would pull these strong bots to the middle), and the
share of a cohort's first 20 games among itself.

Under each 2-seat deals run, the pairing ceiling: a fresh field plays the
first checkpoint's games in rounds of deals, paired at random or Swiss
(neighbours by the offline fit so far), fitted offline, and a few rounds
more, and by the ideal fit at the first checkpoint: a yardstick for how far
pairing can rank from so few deals, and how many more it would take.

Last, duplicate deals on the real engine (classic): the games needed to tell
a greedy bot from a greedy bot that plays 10% or 25% of its moves at random,
or from a random bot, in single games and in duplicate deals, at 2-4 seats,
and in deals scored by their money margin (which no ladder does).

It prints numbers beside the issue's targets and never fails on one.
"""

from __future__ import annotations

import sys
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
# bench/platform.py would shadow the standard library's `platform` module.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != BENCH_DIR]
sys.path[:0] = [str(REPO), str(REPO / "platform")]

import argparse
import copy
import math
import os
import random
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
import django

django.setup()

from django.conf import settings

from arena.ladders import elo
from arena.ladders.deals import DealSeat, deal_ranks, deal_totals
from arena.ladders.models import DEFAULT_SERIES_GAMES
from bots_sdk.referee import rotations
from vegas_engine import describe
from vegas_engine.policies import Policy, greedy_policy, play, random_policy
from arena.ladders.matchmaking import LadderQueue, plan_picks
from arena.ladders.refit import (
    REFIT_GROWTH,
    REFIT_MIN_UNITS,
    refit_due,
    refitted,
)
from bots_sdk.rating import PairTotals
from bots_sdk.rating import fit_totals as fit
from arena.ladders.selectors import MatchmakingCandidate
from bots_sdk.rating import fit as sdk_fit

FIELD = 200
CHECKPOINTS = (1_000, 5_000, 20_000)
TARGET = settings.ARENA_LADDER_QUEUE_TARGET
MAX_QUEUED = settings.ARENA_BOT_MAX_QUEUED
WORKERS = 2
NEWCOMERS = 10
#: Strong newcomers: 20 alone one after another, two cohorts of 10 (alternate ones).
NEWCOMER_PERCENTILES = tuple(0.80 + 0.01 * i for i in range(2 * NEWCOMERS))
PLACEMENT_AT = (20, 40)
HELD_OUT = 3_000
ELO_C = math.log(10) / 400  # Elo points to natural log-odds

# Outcome models, tuned so that a fixed K of 16 lands near the figures.
SKILL_SPREAD = 0.9  # Plackett-Luce log-strength = SKILL_SPREAD * z
LUCK_SPREAD = 0.45  # Thurstone performance = LUCK_SPREAD * z + N(0, 1)

Ranks = list[int]

#: A numpy array of any shape and type (strengths, ratings, held-out results).
Array = npt.NDArray[Any]


@dataclass(frozen=True)
class Luck:
    """A game's luck at each seat, split: the deal's (the dice) and the play's.

    The deal part is drawn once per seat for a whole duplicate deal, so it
    follows the seat: the bots swap seats, the dice stay. The play part is
    fresh in every game. Their sum has the model's one-game luck exactly,
    so a single game plays as ``Model.play``.
    """

    #: Share of the luck's variance that is the deal's.
    share: float
    deal: Callable[[int, np.random.Generator], Array]
    play: Callable[[int, np.random.Generator], Array]


@dataclass(frozen=True)
class Noise:
    """A seat's luck in one rated unit, as the ideal fit weighs it."""

    #: Its distribution function P(luck < x), at each x of an array.
    below: Callable[[Array], Array]
    #: A range that holds all of it but a negligible share.
    low: float
    high: float


@dataclass(frozen=True)
class Model:
    name: str
    #: Ranks (1 best) of the table's seats, from their hidden strengths.
    play: Callable[[Array, np.random.Generator], Ranks]
    #: A seat's performance: ``spread`` * strength + luck (its money in a deal).
    spread: float
    #: The luck split with a given share of deal luck.
    split: Callable[[float], Luck]
    #: A game's luck at a seat (all of it: ``play`` draws it).
    noise: Noise


def _ranks_of(performance: Array) -> Ranks:
    order = np.argsort(-performance)
    ranks = np.empty(len(order), dtype=int)
    ranks[order] = np.arange(1, len(order) + 1)
    return [int(r) for r in ranks]


def _plackett_luce(z: Array, rng: np.random.Generator) -> Ranks:
    # Gumbel noise on log-strengths draws a Plackett-Luce ranking.
    return _ranks_of(SKILL_SPREAD * z + rng.gumbel(size=len(z)))


def _thurstone(z: Array, rng: np.random.Generator) -> Ranks:
    return _ranks_of(LUCK_SPREAD * z + rng.normal(size=len(z)))


def _trigamma(x: float) -> float:
    """The variance of -log of a Gamma(x) variable (recurrence, then the asymptotic series)."""
    total = 0.0
    while x < 8:
        total += 1 / (x * x)
        x += 1
    inv = 1 / x
    return total + inv + inv**2 / 2 + inv**3 / 6 - inv**5 / 30 + inv**7 / 42 - inv**9 / 30


def _gumbel_split(share: float) -> Luck:
    """Gumbel luck = -log Exp(1) = -log Gamma(1+b) - log Beta(1, b), independent parts.

    (Gamma(1) = Beta(1, b) * Gamma(1+b).) The deal part's variance is
    trigamma(1+b), a ``share`` of the Gumbel's trigamma(1): b by bisection.
    """
    low, high = 1e-9, 1e9
    for _ in range(200):
        b = math.sqrt(low * high)
        low, high = (b, high) if _trigamma(1 + b) > share * _trigamma(1) else (low, b)
    b = math.sqrt(low * high)
    return Luck(
        share,
        lambda n, rng: -np.log(rng.gamma(1 + b, size=n)),
        # Beta(1, b) is 1 - U^(1/b).
        lambda n, rng: -np.log1p(-(rng.random(n) ** (1 / b))),
    )


def _normal_split(share: float) -> Luck:
    deal, play = math.sqrt(share), math.sqrt(1 - share)
    return Luck(
        share, lambda n, rng: deal * rng.normal(size=n), lambda n, rng: play * rng.normal(size=n)
    )


_NORMAL_X = np.linspace(-10.0, 10.0, 20_001)
_NORMAL_BELOW = np.array([0.5 * math.erfc(-x / math.sqrt(2)) for x in _NORMAL_X])

NORMAL_NOISE = Noise(lambda x: np.interp(x, _NORMAL_X, _NORMAL_BELOW), -8.0, 8.0)
#: Gumbel luck on log-strengths: a Plackett-Luce ranking.
GUMBEL_NOISE = Noise(lambda x: np.exp(-np.exp(-x)), -4.0, 20.0)
MODELS = (
    Model("skill-heavy", _plackett_luce, SKILL_SPREAD, _gumbel_split, GUMBEL_NOISE),
    Model("luck-heavy", _thurstone, LUCK_SPREAD, _normal_split, NORMAL_NOISE),
)
SEATINGS = {"2": (2,), "4": (4,), "2-5": (2, 3, 4, 5)}


# --------------------------------------------------------------------------- the ladder


#: Money per unit of performance: a deal ranks its bots on money totals, in whole units.
MONEY = 1_000_000


@dataclass
class Deal:
    """A duplicate deal: its dice (each seat's deal luck) and the seats played so far."""

    luck: Array
    left: int
    seats: list[DealSeat] = field(default_factory=list)

    def play(
        self,
        players: list[int],
        strength: Array,
        model: Model,
        luck: Luck,
        nrng: np.random.Generator,
    ) -> None:
        """One game: each seat's money is its performance, the seat's deal luck shared."""
        performance = model.spread * strength + self.luck + luck.play(len(players), nrng)
        self.seats.extend(
            DealSeat(p, round(MONEY * x), False) for p, x in zip(players, performance, strict=True)
        )
        self.left -= 1

    def standings(self) -> tuple[list[int], Ranks]:
        """The players (game 1's seat order) and their ranks, as ``ratings_apply`` ranks a deal."""
        totals = deal_totals(self.seats)
        return [t.player for t in totals], deal_ranks(totals)


def play_deal(
    model: Model, luck: Luck, table: list[int], strength: Sequence[float], nrng: np.random.Generator
) -> Ranks:
    """A whole deal of ``table`` (seat order of game 1): its ranks, by player in that order."""
    deal = Deal(luck.deal(len(table), nrng), len(table))
    for seating in rotations(len(table), len(table)):
        players = [table[i] for i in seating]
        deal.play(players, np.array([strength[p] for p in players]), model, luck, nrng)
    return deal.standings()[1]


@dataclass
class Run:
    """A pick as one worker run plays it: a series' games (players by seat, deal), in play order."""

    bots: list[int]
    games: deque[tuple[list[int], Deal | None]]


@dataclass
class Ladder:
    """The platform's scheduler and Elo on a synthetic field (copyable: newcomers fork it)."""

    strength: list[float]
    seats: tuple[int, ...]
    model: Model
    rng: random.Random
    nrng: np.random.Generator
    #: ``Ladder.series_games``: games per pick (1: single games).
    series: int = 1
    #: ``Ladder.duplicate_deals``, with the luck split of its deals.
    luck: Luck | None = None
    candidates: list[MatchmakingCandidate] = field(default_factory=list)
    rating: list[float] = field(default_factory=list)
    rated: list[int] = field(default_factory=list)
    #: Games in each bot's rated units (``rated`` counts a deal once).
    rated_games: list[int] = field(default_factory=list)
    #: Games played.
    games: int = 0
    #: Runs queued (their games QUEUED) and running (taken by a worker, games RUNNING).
    waiting: deque[Run] = field(default_factory=deque)
    running: list[Run] = field(default_factory=list)
    turn: int = 0
    #: Every rated unit, a game or a deal: (players by seat, ranks).
    played: list[tuple[list[int], Ranks]] = field(default_factory=list)
    #: Stretch the shown Elo as ``ratings_apply`` does (``elo.stretch``; off: ``--no-stretch``).
    stretching: bool = True
    #: ``Ladder.elo_scale`` and ``Ladder.calibration``.
    scale: float = 1.0
    calibration: elo.Calibration = field(default_factory=elo.Calibration)
    #: Refit the ratings on the whole history when ``refit.refit_due``, as the platform's
    #: sweep does (``services.ladder_refit``; off: Elo alone, ``--no-refit``).
    refitting: bool = False
    #: ``Ladder.refit_units``: the units the last refit read.
    refit_units: int = 0
    #: What the refit reads of the history: every rated unit's pairs.
    totals: PairTotals[int] = field(default_factory=PairTotals)

    def add(self, strength: float) -> int:
        player = len(self.strength)
        self.strength.append(strength)
        self.candidates.append(MatchmakingCandidate(player, elo.INITIAL_RATING, 0, 0))
        self.rating.append(elo.INITIAL_RATING)
        self.rated.append(0)
        self.rated_games.append(0)
        return player

    def fill(self) -> None:
        # Ladder.pick_games and pick_units: whole deals on a duplicate ladder (fixed seats).
        deals = max(1, self.series // self.seats[0])
        queue = LadderQueue(
            ladder_id=0,
            seats=self.rng.choice(self.seats),
            candidates=self.candidates,
            # Matches QUEUED: a run's games are RUNNING once a worker took it.
            queued=sum(len(run.games) for run in self.waiting),
            target=TARGET,
            pick_size=deals * self.seats[0] if self.luck else self.series,
            pick_units=deals if self.luck else self.series,
            duplicate_deals=self.luck is not None,
        )
        for pick in plan_picks([queue], max_queued=MAX_QUEUED, house_only_games=0, rng=self.rng):
            bots = [c.version_id for c in pick.seating]
            games: list[tuple[list[int], Deal | None]]
            if self.luck:
                # As match_create_series plays deals: lane by lane, game k of each deal
                # seating the bots rotated by k - 1 (match_create_deal).
                seats = len(bots)
                units = [Deal(self.luck.deal(seats, self.nrng), seats) for _ in range(pick.units)]
                games = [([bots[i] for i in s], d) for s in rotations(seats, seats) for d in units]
            else:
                # As match_create_series seats a series' games: rotated by game.
                games = [([bots[i] for i in s], None) for s in rotations(len(bots), pick.units)]
            self.waiting.append(Run(bots, deque(games)))
            # One pick at a time when mixed, so each gets its own seat count.
            queue.seats = self.rng.choice(self.seats)

    def step(self) -> tuple[list[int], Ranks] | None:
        """Queue up to the target, then finish the next game a worker plays; rate its unit.

        Each worker plays its run's games in order; games take equal time, so
        the runs in play finish a game each in turn. A deal is rated once, as
        its last game finishes (None until then); a single game at once.
        """
        self.fill()
        while len(self.running) < WORKERS and self.waiting:
            self.running.append(self.waiting.popleft())
        self.turn = (self.turn + 1) % len(self.running)
        run = self.running[self.turn]
        players, deal = run.games.popleft()
        self.games += 1
        strength = np.array([self.strength[p] for p in players])
        unit: tuple[list[int], Ranks] | None
        if deal is None:
            unit = players, self.model.play(strength, self.nrng)
        else:
            assert self.luck
            deal.play(players, strength, self.model, self.luck, self.nrng)
            unit = None if deal.left else deal.standings()
        if unit:
            standings = list(zip(*unit, strict=True))
            shown = {player: self.rating[player] for player in players}
            if self.stretching:
                self.calibration += elo.unit_calibration(standings, shown)
            rated = {player: self.rated[player] for player in players}
            changes = elo.rating_changes(standings, shown, rated, self.scale)
            for player, change in changes.items():
                self.rating[player] += change
                self.rated[player] += 1
                self.rated_games[player] += 1 if deal is None else len(players)
                # The scheduler sees the working Elo (matchmaking_candidates).
                self.candidates[player].rating = elo.working_rating(self.rating[player], self.scale)
            self.played.append(unit)
            self.totals.add(standings)
            stretch = elo.stretch(self.calibration)
            if self.refitting and refit_due(self.totals.units, self.refit_units):
                self.refit()
            elif stretch is not None:
                # As ratings_apply stretches a ladder: every rating about INITIAL_RATING.
                self.scale *= stretch
                self.rating = [
                    elo.INITIAL_RATING + stretch * (r - elo.INITIAL_RATING) for r in self.rating
                ]
                self.calibration = elo.Calibration()
        if not run.games:
            # A run counts once against each of its bots' cap until it ends.
            self.running.remove(run)
            for player in set(run.bots):
                self.candidates[player].queued -= 1
        return unit

    def refit(self) -> None:
        """As ``services.ladder_refit``: the ratings become the fit of every unit rated so far.

        At once (on the platform the results rated while it runs keep their
        Elo steps on top of it): every bot started at INITIAL_RATING, its prior.
        """
        players = range(len(self.strength))
        start = {p: elo.working_rating(self.rating[p], self.scale) for p in players}
        fitted = fit(self.totals, dict.fromkeys(players, elo.INITIAL_RATING), start)
        chosen = refitted({p: self.rated[p] for p in players})
        self.rating = [fitted[p] if p in chosen else start[p] for p in players]
        self.scale, self.calibration = 1.0, elo.Calibration()
        self.refit_units = self.totals.units
        for candidate, rating in zip(self.candidates, self.rating, strict=True):
            candidate.rating = rating


def new_ladder(
    model: Model,
    seats: tuple[int, ...],
    seed: int,
    series: int,
    luck: Luck | None = None,
    stretching: bool = True,
    refitting: bool = True,
) -> Ladder:
    nrng = np.random.default_rng(seed)
    ladder = Ladder(
        [],
        seats,
        model,
        random.Random(seed),
        nrng,
        series,
        luck,
        stretching=stretching,
        refitting=refitting,
    )
    for z in nrng.normal(size=FIELD):
        ladder.add(float(z))
    return ladder


# --------------------------------------------------------------------------- other raters


def fixed_k_elo(matches: Sequence[tuple[list[int], Ranks]], players: int, k: float) -> Array:
    rating = [elo.INITIAL_RATING] * players
    for table, ranks in matches:
        seats = [elo.SeatRating(p, rating[p], r, k) for p, r in zip(table, ranks, strict=True)]
        for p, change in zip(table, elo.seat_changes(seats), strict=True):
            rating[p] += change
    return np.array(rating)


def openskill(matches: Sequence[tuple[list[int], Ranks]], players: int) -> Array:
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    state = [model.rating() for _ in range(players)]
    for table, ranks in matches:
        teams = model.rate([[state[p]] for p in table], ranks=list(ranks))
        for p, team in zip(table, teams, strict=True):
            state[p] = team[0]
    return np.array([s.mu for s in state])


def plackett_luce_fit(
    matches: Sequence[tuple[list[int], Ranks]], players: int, iterations: int = 300
) -> Array:
    """Offline Plackett-Luce maximum likelihood, Hunter's MM, in Elo points.

    A virtual win and loss of each player against a fixed player of strength 1
    keeps it finite.
    """
    members, stages, winners = [], [], []
    stage = 0
    for table, ranks in matches:
        order = [p for _, p in sorted(zip(ranks, table, strict=True))]
        for t in range(len(order) - 1):
            members.extend(order[t:])
            stages.extend([stage] * (len(order) - t))
            winners.append(order[t])
            stage += 1
    m, s = np.array(members, dtype=int), np.array(stages, dtype=int)
    wins = np.bincount(np.array(winners, dtype=int), minlength=players) + 1.0
    w = np.ones(players)
    for _ in range(iterations):
        totals = np.bincount(s, weights=w[m], minlength=stage)
        exposure = np.bincount(m, weights=1.0 / totals[s], minlength=players)
        w = wins / (exposure + 2.0 / (w + 1.0))
        w /= math.exp(np.mean(np.log(w)))
    return elo.INITIAL_RATING + np.log(w) / ELO_C


def sdk_elo(matches: Sequence[tuple[list[int], Ranks]], players: int) -> Array:
    games = [list(zip(table, ranks, strict=True)) for table, ranks in matches]
    return np.array(sdk_fit(games, players))


# --------------------------------------------------------------------------- measures


def spearman(a: Array, b: Array) -> float:
    ra, rb = np.argsort(np.argsort(a)), np.argsort(np.argsort(b))
    return float(np.corrcoef(ra, rb)[0, 1])


@dataclass(frozen=True)
class HeldOut:
    """Pairs of seats the raters never saw: (i, j, 1 if i finished ahead).

    Of single matches, or of deals on a duplicate ladder.
    """

    i: Array
    j: Array
    ahead: Array

    @staticmethod
    def draw(ladder: Ladder, seed: int) -> HeldOut:
        rng, nrng = random.Random(seed + 10_000), np.random.default_rng(seed + 10_000)
        i, j, ahead = [], [], []
        for _ in range(HELD_OUT):
            table = rng.sample(range(FIELD), rng.choice(ladder.seats))
            if ladder.luck:
                ranks = play_deal(ladder.model, ladder.luck, table, ladder.strength, nrng)
            else:
                ranks = ladder.model.play(np.array([ladder.strength[p] for p in table]), nrng)
            for a in range(len(table)):
                for b in range(a + 1, len(table)):
                    i.append(table[a])
                    j.append(table[b])
                    ahead.append(1.0 if ranks[a] < ranks[b] else 0.0)
        return HeldOut(np.array(i), np.array(j), np.array(ahead))

    def accuracy(self, rating: Array) -> float:
        diff = np.sign(rating[self.i] - rating[self.j])
        right = np.where(diff == 0, 0.5, (diff > 0) == (self.ahead == 1))
        return float(np.mean(right))

    def slope(self, rating: Array) -> float:
        """The logistic slope of the held-out results on Elo differences (1: calibrated)."""
        x = ELO_C * (rating[self.i] - rating[self.j])
        beta = 1.0
        for _ in range(50):
            p = 1.0 / (1.0 + np.exp(-beta * x))
            gradient = float(np.sum((self.ahead - p) * x))
            curvature = float(np.sum(p * (1 - p) * x * x))
            if curvature <= 0:
                return float("inf")
            beta += gradient / curvature
            if beta > 50:
                return float("inf")
        return beta


@dataclass
class Checkpoint:
    rho: dict[str, float]
    accuracy: dict[str, float]
    slope: dict[str, float]
    balance: float


RATERS = ("platform", "K=16", "K=8", "openskill", "PL fit", "sdk fit", "ideal")
#: Raters whose numbers are not Elo: no calibration slope.
NOT_ELO = ("openskill", "ideal")


def measure(ladder: Ladder, held: HeldOut, with_sdk: bool, with_ideal: bool) -> Checkpoint:
    """The ratings now, and the other raters' on the units rated so far.

    ``with_ideal``: also ``IdealFit.field``, the yardstick of how far these units allow.
    """
    played = ladder.played
    truth = np.array(ladder.strength[:FIELD])
    found = {
        "platform": np.array(ladder.rating[:FIELD]),
        "K=16": fixed_k_elo(played, len(ladder.strength), 16)[:FIELD],
        "K=8": fixed_k_elo(played, len(ladder.strength), 8)[:FIELD],
        "openskill": openskill(played, len(ladder.strength))[:FIELD],
        "PL fit": plackett_luce_fit(played, len(ladder.strength))[:FIELD],
    }
    if with_sdk:
        found["sdk fit"] = sdk_elo(played, len(ladder.strength))[:FIELD]
    if with_ideal:
        ideal = IdealFit(ladder.model, ladder.strength, ladder.luck, ladder.seats[0])
        found["ideal"] = ideal.field(played)
    games = [c.games for c in ladder.candidates[:FIELD]]
    return Checkpoint(
        rho={name: spearman(r, truth) for name, r in found.items()},
        accuracy={name: held.accuracy(r) for name, r in found.items()},
        slope={name: held.slope(r) for name, r in found.items() if name not in NOT_ELO},
        balance=max(games) / max(1, min(games)),
    )


@dataclass
class Placement:
    #: Placement error of each newcomer after 20 and 40 rated matches.
    error: dict[int, list[float]] = field(default_factory=lambda: {n: [] for n in PLACEMENT_AT})
    #: The same for an offline fit on the same matches: the newcomer's maximum
    #: likelihood strength against the field's offline fit (how far the games allow).
    offline: dict[int, list[float]] = field(default_factory=lambda: {n: [] for n in PLACEMENT_AT})
    #: The same for the ideal fit (``IdealFit.most_likely``): the model and every opponent's
    #: true strength known, which no rating knows.
    ideal: dict[int, list[float]] = field(default_factory=lambda: {n: [] for n in PLACEMENT_AT})
    #: Share of the cohort's first 20 matches' opponents that were newcomers too.
    among_themselves: list[float] = field(default_factory=list)
    #: Each seed's mean placement error after 20 and 40 (for the standard error).
    seed_means: dict[int, list[float]] = field(
        default_factory=lambda: {n: [] for n in PLACEMENT_AT}
    )

    def close_seed(self, first: dict[int, int]) -> None:
        """Record the mean of the errors added since ``first`` (their counts then)."""
        for n in PLACEMENT_AT:
            self.seed_means[n].append(_mean(self.error[n][first[n] :]))

    def counts(self) -> dict[int, int]:
        return {n: len(self.error[n]) for n in PLACEMENT_AT}


def _placement_error(field: Array, rating: float, truth: Array, strength: float) -> float:
    by_rating = float(np.mean(field < rating))
    by_strength = float(np.mean(truth < strength))
    return abs(by_rating - by_strength)


def _newcomer_fit(
    matches: Sequence[tuple[list[int], Ranks]], player: int, fixed: Sequence[float]
) -> float:
    """The Plackett-Luce maximum likelihood Elo of ``player`` from its matches, others fixed.

    The same virtual win and loss against a player of the mean as the offline fit.
    """
    stages = []  # (won, log-strengths of the others still in)
    for table, ranks in matches:
        order = [p for _, p in sorted(zip(ranks, table, strict=True))]
        for t in range(order.index(player) + 1):
            if t < len(order) - 1:
                behind = [ELO_C * (fixed[p] - elo.INITIAL_RATING) for p in order[t:] if p != player]
                stages.append((order[t] == player, np.array(behind)))
    theta = 0.0
    for _ in range(40):
        gradient, curvature = 1 - 2 / (1 + math.exp(-theta)), 2 * _p1p(theta)
        for won, others in stages:
            share = 1 / (1 + float(np.sum(np.exp(others - theta))))
            gradient += won - share
            curvature += share * (1 - share)
        # At most 2 log-odds (350 Elo) a step: a full Newton step from a lopsided
        # record overshoots to where every probability rounds to 0 or 1 (no curvature).
        theta += max(-2.0, min(2.0, gradient / curvature))
    return elo.INITIAL_RATING + theta / ELO_C


#: The ideal fit's strengths (the field's standard deviations, as ``Ladder.strength``).
IDEAL_GRID = np.linspace(-5.0, 5.0, 1001)
#: Points of a seat's performance the ideal fit integrates over.
IDEAL_PERFORMANCES = 1201
#: Deals drawn to know a whole deal's luck at a seat.
DEAL_NOISE_SAMPLES = 400_000


def _deal_noise(luck: Luck, seats: int) -> Noise:
    """A player's luck over a whole deal of ``seats`` games: the play's, summed.

    The deal's part (the dice) adds the same to every total: each player
    sits in every seat once. Drawn from its own generator, so the ladder's
    draws stay as they were.
    """
    rng = np.random.default_rng(0)
    draws = luck.play(seats * DEAL_NOISE_SAMPLES, rng).reshape(-1, seats).sum(axis=1)
    draws.sort()
    return Noise(
        lambda x: np.searchsorted(draws, x) / len(draws), float(draws[0]), float(draws[-1])
    )


class IdealFit:
    """What a ladder's rated units say of a player, as no rating can know it.

    Under the outcome model itself, every opponent's true strength known. A
    seat's performance in a unit is ``gain`` * strength + ``noise`` (a deal's
    total adds up a game at every seat: the strength once a game, the dice
    cancelled), and a unit's likelihood is that of its whole ranking: over
    the player's own performance x, the chance that those ranked ahead of it
    finished above x in their order and the others below x in theirs (an
    equal rank counts as behind, in table order: ties of money are rare).
    Knowing the others' strengths, the player's own units are all that tells
    of it, so this is about how far those units allow.
    """

    def __init__(
        self, model: Model, strength: Sequence[float], luck: Luck | None = None, seats: int = 2
    ) -> None:
        """``luck``: units are duplicate deals of ``seats``, their luck split so."""
        self.gain, self.noise = model.spread, model.noise
        if luck is not None:
            self.gain, self.noise = self.gain * seats, _deal_noise(luck, seats)
        self.strength = strength
        self.edges = np.linspace(
            self.gain * IDEAL_GRID[0] + self.noise.low,
            self.gain * IDEAL_GRID[-1] + self.noise.high,
            IDEAL_PERFORMANCES + 1,
        )
        # Row z: the chance of the player's performance in each cell if its strength is z
        # (differences of the distribution function: no density to estimate).
        self.own = self._cells(self.gain * IDEAL_GRID[:, None])

    def _cells(self, centre: float | Array) -> Array:
        """The chance of a performance about ``centre`` in each cell."""
        return np.diff(self.noise.below(self.edges - centre), axis=-1)

    def _in_order(self, seats: Sequence[int], above: bool) -> Array:
        """At each performance x: P(every one of ``seats`` above x, or below it, in their order).

        ``seats`` best first. A running sum from the one furthest from x in,
        each cell's chance times that of the ones further out, less half of
        x's own cell.
        """
        chance = np.ones(IDEAL_PERFORMANCES)
        for other in seats if above else reversed(seats):
            step = self._cells(self.gain * self.strength[other]) * chance
            chance = (np.cumsum(step[::-1])[::-1] if above else np.cumsum(step)) - step / 2
        return chance

    def loglik(self, units: Sequence[tuple[list[int], Ranks]], player: int) -> Array:
        """The log-likelihood of ``player``'s ``units`` at each strength of IDEAL_GRID."""
        total = np.zeros(len(IDEAL_GRID))
        for table, ranks in units:
            mine = ranks[table.index(player)]
            others = sorted((r, seat) for seat, r in enumerate(ranks) if table[seat] != player)
            ahead = [table[seat] for r, seat in others if r < mine]
            behind = [table[seat] for r, seat in others if r >= mine]
            chance = self._in_order(ahead, above=True) * self._in_order(behind, above=False)
            total += np.log(self.own @ chance + 1e-300)
        return total

    def most_likely(self, units: Sequence[tuple[list[int], Ranks]], player: int) -> float:
        """The maximum likelihood strength: no prior, as a strong newcomer should be placed."""
        loglik = self.loglik(units, player)
        best = int(np.argmax(loglik))
        if 0 < best < len(IDEAL_GRID) - 1:
            # The parabola through the best point and its neighbours: between grid points.
            left, mid, right = loglik[best - 1 : best + 2]
            bend = left - 2 * mid + right
            shift = 0.5 * (left - right) / bend if bend < 0 else 0.0
            return float(IDEAL_GRID[best] + shift * (IDEAL_GRID[1] - IDEAL_GRID[0]))
        return float(IDEAL_GRID[best])

    def field(self, played: Sequence[tuple[list[int], Ranks]]) -> Array:
        """Each field bot's posterior mean strength from its own units.

        The field's strengths are drawn from a standard normal (``new_ladder``):
        that is the prior, known here too, and the mean ranks a bot of five
        units better than a maximum likelihood that is infinite for five wins.
        """
        units: list[list[tuple[list[int], Ranks]]] = [[] for _ in range(FIELD)]
        for unit in played:
            for player in set(unit[0]):
                if player < FIELD:
                    units[player].append(unit)
        found = np.zeros(FIELD)
        for player, own in enumerate(units):
            log_posterior = self.loglik(own, player) - IDEAL_GRID**2 / 2
            weight = np.exp(log_posterior - log_posterior.max())
            found[player] = float(weight @ IDEAL_GRID / weight.sum())
        return found


def _p1p(theta: float) -> float:
    p = 1 / (1 + math.exp(-theta))
    return p * (1 - p)


def newcomers(ladder: Ladder, cohort: bool, into: Placement) -> None:
    """Strong newcomers join the settled ladder together (cohort) or one after another."""
    ladder = copy.deepcopy(ladder)
    truth = np.array(ladder.strength[:FIELD])
    offline_field = plackett_luce_fit(ladder.played, len(ladder.strength))
    strengths = [float(np.quantile(truth, q)) for q in NEWCOMER_PERCENTILES]
    ideal_fit = IdealFit(ladder.model, ladder.strength, ladder.luck, ladder.seats[0])
    groups = [strengths[0::2], strengths[1::2]] if cohort else [[s] for s in strengths]
    for group in groups:
        joined = {ladder.add(s) for s in group}
        waiting = {p: list(PLACEMENT_AT) for p in joined}
        opponents = {p: [0, 0] for p in joined}  # (newcomers, all) in the first 20 matches
        own: dict[int, list[tuple[list[int], Ranks]]] = {p: [] for p in joined}
        for _ in range(100_000):
            if not any(waiting.values()):
                break
            unit = ladder.step()
            if unit is None:
                continue
            table, ranks = unit
            for p in joined.intersection(table):
                own[p].append((table, ranks))
                if ladder.rated_games[p] <= 20:
                    others = [q for q in table if q != p]
                    opponents[p][0] += sum(q in joined for q in others)
                    opponents[p][1] += len(others)
                # After n games: n/2 deals of 2 seats.
                if waiting[p] and ladder.rated_games[p] >= waiting[p][0]:
                    at = waiting[p].pop(0)
                    strength = ladder.strength[p]
                    field_now = np.array(ladder.rating[:FIELD])
                    into.error[at].append(
                        _placement_error(field_now, ladder.rating[p], truth, strength)
                    )
                    # Newcomers met on the way count at their current ratings.
                    fixed = [*offline_field, *ladder.rating[len(offline_field) :]]
                    offline = _newcomer_fit(own[p], p, fixed)
                    into.offline[at].append(
                        _placement_error(offline_field[:FIELD], offline, truth, strength)
                    )
                    ideal = ideal_fit.most_likely(own[p], p)
                    into.ideal[at].append(_placement_error(truth, ideal, truth, strength))
        if cohort:
            into.among_themselves.extend(n / max(1, total) for n, total in opponents.values())


#: Rounds the pairing ceiling plays past the first checkpoint: 1.6 times its games at 1k.
CEILING_MORE_ROUNDS = 3


@dataclass
class Ceiling:
    """The pairing ceiling's rho, per seed: (paired at random, Swiss)."""

    #: The offline fit, by games played.
    offline: dict[int, tuple[list[float], list[float]]]
    #: ``IdealFit.field`` of the first ``games``.
    ideal: tuple[list[float], list[float]] = field(default_factory=lambda: ([], []))


def pairing_ceiling(
    model: Model, luck: Luck, seeds: Sequence[int], games: int, more_rounds: int
) -> Ceiling:
    """How far pairing can rank from ``games`` of 2-seat deals: rho of the offline fit.

    A fresh field plays rounds, every bot one deal a round, paired at random
    or Swiss (neighbours by the offline fit of every deal so far, the even
    pairs that tell most), and is fitted offline after each round from
    ``games`` on, ``more_rounds`` rounds past it: how many more games the
    same rho would take; and by the ideal fit at ``games``. Not a proof for
    every rule, a yardstick for the scheduler's.
    """
    rounds = games // FIELD  # a round: FIELD / 2 deals of 2 games
    ceiling = Ceiling({FIELD * r: ([], []) for r in range(rounds, rounds + more_rounds + 1)})
    for seed in seeds:
        for swiss in (0, 1):
            nrng, rng = np.random.default_rng(seed), random.Random(seed)
            strength = [float(z) for z in nrng.normal(size=FIELD)]
            played: list[tuple[list[int], Ranks]] = []
            fitted = np.full(FIELD, elo.INITIAL_RATING)
            for round_ in range(rounds + more_rounds):
                order = list(range(FIELD))
                rng.shuffle(order)  # ties (the first round's) at random
                if swiss and round_:
                    order.sort(key=lambda p: -fitted[p])
                for a, b in zip(order[0::2], order[1::2], strict=True):
                    table = [a, b] if rng.random() < 0.5 else [b, a]
                    played.append((table, play_deal(model, luck, table, strength, nrng)))
                if swiss or round_ + 1 >= rounds:
                    fitted = plackett_luce_fit(played, FIELD)
                if round_ + 1 >= rounds:
                    ceiling.offline[FIELD * (round_ + 1)][swiss].append(
                        spearman(fitted, np.array(strength))
                    )
                if round_ + 1 == rounds:
                    ideal = IdealFit(model, strength, luck).field(played)
                    ceiling.ideal[swiss].append(spearman(ideal, np.array(strength)))
    return ceiling


# --------------------------------------------------------------------------- duplicate deals


def _epsilon_greedy(epsilon: float) -> Policy:
    def policy(state: Any, seat: int, rng: random.Random) -> Any:
        if rng.random() < epsilon:
            return random_policy(state, seat, rng)
        return greedy_policy(state, seat, rng)

    return policy


#: Pairs of bots (A, B): close ones, then a lopsided one.
DEAL_PAIRS: tuple[tuple[str, Policy, str, Policy], ...] = (
    ("greedy", greedy_policy, "greedy 10% random", _epsilon_greedy(0.1)),
    ("greedy", greedy_policy, "greedy 25% random", _epsilon_greedy(0.25)),
    ("greedy", greedy_policy, "random", random_policy),
)


#: The deal margin's scale per game: A's money over a deal less B's, squashed by
#: tanh(margin / (scale * games)), as duplicate bridge's IMPs squash a board's points.
MARGIN_SCALE = 50_000


def _unit_scores(
    a: Policy, b: Policy, seats: int, units: int, deal: bool
) -> tuple[list[float], list[float]]:
    """A's score against B (1 ahead, 0.5 level, 0 behind) per single game or per deal.

    The table: A, B and, past two seats, greedy bots. A single game seats them
    rotated by its seed; a deal plays one seed in every rotation and compares
    money totals, as a duplicate ladder ranks a deal. Also, per deal, the
    score its money margin would give (``MARGIN_SCALE``; none for single games).
    """
    table = [a, b, *([greedy_policy] * (seats - 2))]
    scores, by_margin = [], []
    for unit in range(units):
        seed = 1_000_003 * unit + seats
        every = list(rotations(seats, seats))
        rotated = every if deal else [every[unit % seats]]
        money = [0, 0]
        for seating in rotated:
            # seating[i]: the player at seat i.
            state = play(
                describe("classic", seats, {}), seed, [table[p] for p in seating], log=False
            )
            result = state.result()
            assert result is not None  # played to the end
            seat_of = {player: seat for seat, player in enumerate(seating)}
            if deal:
                money[0] += result[seat_of[0]].money
                money[1] += result[seat_of[1]].money
            else:
                money = [-result[seat_of[0]].rank, -result[seat_of[1]].rank]
        scores.append(1.0 if money[0] > money[1] else 0.5 if money[0] == money[1] else 0.0)
        if deal:
            margin = (money[0] - money[1]) / (MARGIN_SCALE * seats)
            by_margin.append((1 + math.tanh(margin)) / 2)
    return scores, by_margin


def games_to_tell_apart(scores: Sequence[float], games_per_unit: int) -> float:
    """Games until A's mean score is 1.96 standard errors from 0.5 (a 95% call)."""
    mean = _mean(scores)
    sd = float(np.std(scores))
    if mean == 0.5:
        return float("inf")
    return games_per_unit * (1.96 * sd / abs(mean - 0.5)) ** 2


def _score(scores: Sequence[float]) -> str:
    """Mean and standard error."""
    return f"{_mean(scores):.3f}±{float(np.std(scores)) / math.sqrt(len(scores)):.3f}"


def _ratio(more: float, fewer: float) -> str:
    """How many times fewer games, or "-" when the fewer is none (every unit alike)."""
    return f"{more / fewer:6.1f}" if fewer else f"{'-':>6}"


def measure_deals(games: int) -> None:
    _say(
        f"\nduplicate deals: games to tell A from B at 95% (classic; {games} games each way; "
        "past 2 seats the others are greedy); by margin: deals scored by their money margin "
        f"(tanh of margin / ${MARGIN_SCALE:,} a game), not by who is ahead"
    )
    _say(
        f"  {'seats':>5}  {'A':<8} {'B':<18} {'A score':>24} {'single':>8} {'deals':>8} "
        f"{'ratio':>6} {'margin':>8} {'ratio':>6}"
    )
    for seats in (2, 3, 4):
        for name_a, a, name_b, b in DEAL_PAIRS:
            single, _ = _unit_scores(a, b, seats, games, deal=False)
            deals, by_margin = _unit_scores(a, b, seats, games // seats, deal=True)
            n_single, n_deals = games_to_tell_apart(single, 1), games_to_tell_apart(deals, seats)
            n_margin = games_to_tell_apart(by_margin, seats)
            scores = f"{_score(single)}, {_score(deals)}"
            _say(
                f"  {seats:>5}  {name_a:<8} {name_b:<18} {scores:>24} {n_single:8.0f} "
                f"{n_deals:8.0f} {_ratio(n_single, n_deals)} {n_margin:8.0f} "
                f"{_ratio(n_deals, n_margin)}"
            )


#: The deals part's own measure on the engine (``measure_deals``, classic, 2 seats, greedy
#: against greedy 10% random, 2,000 games each way): games to tell them apart.
ENGINE_SINGLE, ENGINE_DEALS = 402, 89
CALIBRATION_DRAWS = 500_000


def _edge(units: float) -> float:
    """The win rate p that ``games_to_tell_apart`` tells from a coin in ``units`` units.

    p - 1/2 = 1.96 sqrt(p (1 - p) / units), solved for p.
    """
    t = 1.96 / math.sqrt(units)
    return 0.5 + t / (2 * math.sqrt(1 + t * t))


def _deal_share(model: Model, engine: tuple[int, int]) -> tuple[float, float]:
    """The share of deal luck, and the pair's strength gap, that reproduce the engine's pair.

    The gap d (in performance) makes a single game as hard to call as on the
    engine (``engine``: single games, games in deals); the share then makes
    a deal of 2 seats as easy to call as there. In a deal each seat's deal
    luck reaches both bots, once each, so it cancels from the money totals:
    A is ahead iff 2d + A's play luck of both games - B's > 0. The share of
    deal luck by bisection on common random numbers.
    """
    rng = np.random.default_rng(0)
    whole = model.split(0.5)
    one_game: Array = (whole.deal(CALIBRATION_DRAWS, rng) + whole.play(CALIBRATION_DRAWS, rng)) - (
        whole.deal(CALIBRATION_DRAWS, rng) + whole.play(CALIBRATION_DRAWS, rng)
    )
    gap = -float(np.quantile(one_game, 1 - _edge(engine[0])))
    wanted = _edge(engine[1] / 2)
    low, high = 0.0, 0.999
    for _ in range(30):
        share = (low + high) / 2
        luck, draws = model.split(share), np.random.default_rng(1)
        play = sum(sign * luck.play(CALIBRATION_DRAWS, draws) for sign in (1, 1, -1, -1))
        # More deal luck, less play luck left in the totals: a deal calls easier.
        low, high = (share, high) if float(np.mean(2 * gap + play > 0)) < wanted else (low, share)
    return (low + high) / 2, gap


def calibrate(
    models: Sequence[Model], engine: tuple[int, int], units: int = 100_000
) -> dict[str, float]:
    """Each model's share of deal luck, checked on the ladder's own code for deals."""
    _say(
        "\nduplicate deals on 2 seats: each game's luck split into the deal's (each seat's, "
        "shared by the deal's games: the dice) and the play's, the deal's share set so that "
        f"the engine's close pair (greedy, greedy 10% random: {engine[0]} single games "
        f"-> {engine[1]} games in deals) is as close here"
    )
    shares = {}
    for model in models:
        share, gap = _deal_share(model, engine)
        shares[model.name] = share
        luck, nrng = model.split(share), np.random.default_rng(2)
        pair = [gap / model.spread, 0.0]
        single = [1.0 if model.play(np.array(pair), nrng)[0] == 1 else 0.0 for _ in range(units)]
        deals = [
            1.0 if play_deal(model, luck, [0, 1], pair, nrng)[0] == 1 else 0.0
            for _ in range(units // 2)
        ]
        n_single, n_deals = games_to_tell_apart(single, 1), games_to_tell_apart(deals, 2)
        _say(
            f"  {model.name:<11} deal luck {share:.0%} of the variance; the pair "
            f"{pair[0]:.2f} sd of strength apart: {n_single:.0f} single games -> "
            f"{n_deals:.0f} in deals ({units:,} games each way, on the ladder's code)"
        )
    return shares


# --------------------------------------------------------------------------- report


def _say(text: str) -> None:
    print(text, flush=True)


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


def _standard_error(values: Sequence[float]) -> str:
    """Of the mean of ``values``, one per seed (the seeds' spread); "-" from one seed."""
    if len(values) < 2:
        return "-"
    return f"{float(np.std(values, ddof=1)) / math.sqrt(len(values)):.3f}"


def run(
    model: Model,
    seating: str,
    series: int,
    luck: Luck | None,
    seeds: Sequence[int],
    checkpoints: Sequence[int],
    sdk: bool,
    stretching: bool = True,
    refitting: bool = True,
) -> tuple[list[list[Checkpoint]], Placement, Placement]:
    per_checkpoint: list[list[Checkpoint]] = [[] for _ in checkpoints]
    alone, cohort = Placement(), Placement()
    for seed in seeds:
        ladder = new_ladder(model, SEATINGS[seating], seed, series, luck, stretching, refitting)
        held = HeldOut.draw(ladder, seed)
        for index, matches in enumerate(checkpoints):
            while ladder.games < matches:
                ladder.step()
            # The ideal fit where games are fewest, the checkpoint furthest from the targets.
            checkpoint = measure(ladder, held, sdk and seed == seeds[0], index == 0)
            per_checkpoint[index].append(checkpoint)
        for placement, together in ((alone, False), (cohort, True)):
            first = placement.counts()
            newcomers(ladder, together, placement)
            placement.close_seed(first)
    return per_checkpoint, alone, cohort


TARGET_RHO = {"skill-heavy": (0.89, 0.965, 0.985), "luck-heavy": (0.77, 0.92, 0.955)}


def _pair(results: tuple[list[float], list[float]]) -> str:
    """Two raters' means ± their standard errors over the seeds, a / b."""
    return " / ".join(f"{_mean(r):.3f}±{_standard_error(r)}" for r in results)


def _column(values: Sequence[float]) -> str:
    """A rater's mean in a 9-wide column; "-" where it was not measured."""
    return f"{_mean(values):9.3f}" if values else f"{'-':>9}"


def _picks(series: int, deals: bool) -> str:
    if deals:
        return f"deals, series of {max(1, series // 2)}"
    return "single games" if series == 1 else f"series of {series}"


def report(
    model: Model,
    seating: str,
    series: int,
    deals: bool,
    checkpoints: Sequence[int],
    results: list[list[Checkpoint]],
    alone: Placement,
    cohort: Placement,
) -> None:
    _say(f"\n{model.name}, {seating} seats, {_picks(series, deals)}")
    shown = [name for name in RATERS if name in results[0][0].rho]
    header = "  ".join(f"{name:>9}" for name in shown)
    _say(
        f"  {'games':>7}  rho: {header}  platform±  target  PL-platform | acc: platform  PL fit "
        f"| slope: platform  PL fit  sdk fit | games max/min"
    )
    for index, matches in enumerate(checkpoints):
        runs = results[index]
        rho = "  ".join(_column([r.rho[n] for r in runs if n in r.rho]) for n in shown)
        # The platform's rho varies by .03 or so from seed to seed at 1k matches.
        spread = _standard_error([r.rho["platform"] for r in runs])
        target = TARGET_RHO[model.name][CHECKPOINTS.index(matches)] if matches in CHECKPOINTS else 0
        acc = [_mean([r.accuracy[n] for r in runs]) for n in ("platform", "PL fit")]
        slope = [
            _mean([r.slope[n] for r in runs if n in r.slope])
            for n in ("platform", "PL fit", "sdk fit")
        ]
        # The worst seed: the targets hold in every run, not on average.
        balance = max(r.balance for r in runs)
        gap = max(r.rho["PL fit"] - r.rho["platform"] for r in runs)
        _say(
            f"  {matches:>7}       {rho}  {spread:>9}  {target:>6.3f}  {gap:>+11.3f} |"
            f"      {acc[0]:.3f}   {acc[1]:.3f} |"
            f"          {slope[0]:5.2f}  {slope[1]:6.2f}  {slope[2]:7.2f} "
            f"| {balance:.2f}"
        )
    for label, placement in (("alone", alone), ("cohort", cohort)):
        errors = "  ".join(
            f"after {n}: {_mean(placement.error[n]):.3f}"
            f"±{_standard_error(placement.seed_means[n])} "
            f"(offline {_mean(placement.offline[n]):.3f}, ideal {_mean(placement.ideal[n]):.3f})"
            for n in PLACEMENT_AT
        )
        extra = (
            f"  (first 20 games among themselves: {_mean(placement.among_themselves):.0%})"
            if placement.among_themselves
            else ""
        )
        _say(f"  newcomers {label:<6} placement error {errors}   target .10/.08{extra}")


Outcome = tuple[list[list[Checkpoint]], Placement, Placement]


def summary(
    outcomes: dict[tuple[str, str, int, bool], Outcome], checkpoints: Sequence[int]
) -> None:
    """The key figures of each run, series beside single games (worst seed where marked)."""
    at = "/".join(f"{m // 1000}k" for m in checkpoints)
    _say(
        f"\nsummary (platform Elo; rho at {at}; the PL fit's gap, slope and games max/min: "
        "worst seed; newcomers after 20/40 games; the ideal fit's rho)"
    )
    _say(
        f"  {'model':<11} {'seats':>5} {'picks':<20} {'rho':<17} {'gap to PL':<17} "
        f"{'slope':<15} {'games max/min':<15} {'alone':<11} {'cohort':<11} "
        f"ideal at {checkpoints[0] // 1000}k"
    )
    for (model, seating, series, deals), (results, alone, cohort) in outcomes.items():
        rho = "/".join(f"{_mean([r.rho['platform'] for r in runs]):.3f}" for runs in results)
        gap = "/".join(
            f"{max(r.rho['PL fit'] - r.rho['platform'] for r in runs):+.3f}" for runs in results
        )
        slope = "/".join(f"{_mean([r.slope['platform'] for r in runs]):.2f}" for runs in results)
        balance = "/".join(f"{max(r.balance for r in runs):.2f}" for runs in results)
        placed = [
            "/".join(f"{_mean(p.error[n]):.3f}" for n in PLACEMENT_AT) for p in (alone, cohort)
        ]
        _say(
            f"  {model:<11} {seating:>5} {_picks(series, deals):<20} {rho:<17} {gap:<17} "
            f"{slope:<15} {balance:<15} {placed[0]:<11} {placed[1]:<11} "
            f"{_mean([r.rho['ideal'] for r in results[0]]):.3f}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="1 seed, 5k matches, 2-5 seats")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--seating", choices=sorted(SEATINGS), action="append")
    parser.add_argument("--model", choices=[m.name for m in MODELS], action="append")
    parser.add_argument(
        "--series",
        type=int,
        action="append",
        help=f"games per pick, Ladder.series_games (default {DEFAULT_SERIES_GAMES} and 1)",
    )
    parser.add_argument(
        "--play",
        choices=("deals", "games"),
        action="append",
        help="on 2 seats, duplicate deals (the default there) and/or single games (default both)",
    )
    parser.add_argument(
        "--deal-calibration",
        type=int,
        nargs=2,
        default=(ENGINE_SINGLE, ENGINE_DEALS),
        metavar=("SINGLE", "DEALS"),
        help="the engine pair's games to tell apart, single and in deals, that the deal luck "
        f"reproduces (default {ENGINE_SINGLE} {ENGINE_DEALS})",
    )
    parser.add_argument("--sdk", action="store_true", help="also bots_sdk.rating.fit (slow)")
    parser.add_argument(
        "--no-stretch",
        dest="stretch",
        action="store_false",
        help="leave the shown Elo unstretched (elo.stretch), as before (same ranks, other slopes)",
    )
    parser.add_argument(
        "--no-refit",
        dest="refit",
        action="store_false",
        help="Elo alone: no refit of the ratings on the whole history (refit.refit_due)",
    )
    parser.add_argument(
        "--deal-games", type=int, default=2000, help="games per pair and seat count (0: skip)"
    )
    args = parser.parse_args(argv)
    seeds = range(1 if args.quick else args.seeds)
    checkpoints = CHECKPOINTS[:2] if args.quick else CHECKPOINTS
    seatings = args.seating or (["2-5"] if args.quick else list(SEATINGS))
    models = [m for m in MODELS if not args.model or m.name in args.model]
    began = time.perf_counter()
    _say(
        f"ratings benchmark: {FIELD} bots, {len(seeds)} seed(s), queue {TARGET}, "
        f"{WORKERS} workers, at most {MAX_QUEUED} runs queued per bot, seeds {list(seeds)}, "
        + (
            f"ratings refitted every {REFIT_MIN_UNITS} rated units or {REFIT_GROWTH:.0%} more"
            if args.refit
            else "Elo alone (no refit)"
        )
    )
    serieses = args.series or [DEFAULT_SERIES_GAMES, 1]
    plays = args.play or ["deals", "games"]
    shares: dict[str, float] = {}
    if "2" in seatings and "deals" in plays:
        shares = calibrate(models, tuple(args.deal_calibration))
    outcomes: dict[tuple[str, str, int, bool], Outcome] = {}
    for model in models:
        for seating in seatings:
            # Duplicate deals on fixed 2-seat ladders only, where they are the default.
            for deals in [d for d in (True, False) if (d and seating == "2") or not d]:
                if ("deals" if deals else "games") not in plays and seating == "2":
                    continue
                luck = model.split(shares[model.name]) if deals else None
                for series in serieses:
                    outcome = run(
                        model,
                        seating,
                        series,
                        luck,
                        seeds,
                        checkpoints,
                        args.sdk,
                        args.stretch,
                        args.refit,
                    )
                    report(model, seating, series, deals, checkpoints, *outcome)
                    outcomes[(model.name, seating, series, deals)] = outcome
                if luck is not None:
                    ceiling = pairing_ceiling(
                        model, luck, seeds, checkpoints[0], CEILING_MORE_ROUNDS
                    )
                    _say(
                        "  pairing ceiling, offline fit of rounds of deals paired at random "
                        "/ Swiss: "
                        + ", ".join(
                            f"{games / 1000:g}k games {_pair(results)}"
                            for games, results in ceiling.offline.items()
                        )
                        + f"; the ideal fit at {checkpoints[0] / 1000:g}k games "
                        + _pair(ceiling.ideal)
                    )
    summary(outcomes, checkpoints)
    if args.deal_games:
        measure_deals(args.deal_games // (4 if args.quick else 1))
    _say(f"\ntotal {time.perf_counter() - began:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
