"""Elo ratings from multi-player games, with bootstrap confidence intervals.

A game of N seats counts as every pair of its players playing each other:
the better rank scores 1, an equal rank 0.5. Ratings are the maximum
likelihood of the Bradley-Terry model (Elo's logistic curve, 400 points = 10x
odds), fitted with Hunter's MM iteration. One virtual draw of each player
against a fixed reference keeps the fit finite when one player won every
game, without squeezing a large field (the prior weighs one game per player,
whatever the field's size). The interval
resamples whole games (bootstrap), so it accounts for games not being
independent pairs.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

#: One game: (player, rank) for each seat.
Game = Sequence[tuple[int, int]]

ELO_MEAN = 1500.0


@dataclass(frozen=True)
class Rating:
    elo: float
    low: float
    high: float

    @property
    def margin(self) -> float:
        """Half the width of the interval (the ``±`` shown)."""
        return (self.high - self.low) / 2


def fit(games: Sequence[Game], players: int, iterations: int = 200) -> list[float]:
    """Elo of each player; the mean is :data:`ELO_MEAN`."""
    # One virtual draw of each player against a fixed reference player keeps the
    # fit finite. A draw between every two players instead weighed as much as
    # N(N-1)/2 games and squeezed the ratings of a large field together.
    wins = [0.5] * players
    met: list[dict[int, float]] = [{} for _ in range(players)]
    for game in games:
        for (a, rank_a), (b, rank_b) in combinations(game, 2):
            if a == b:
                continue
            score = 1.0 if rank_a < rank_b else 0.5 if rank_a == rank_b else 0.0
            wins[a] += score
            wins[b] += 1 - score
            met[a][b] = met[a].get(b, 0.0) + 1
            met[b][a] = met[b].get(a, 0.0) + 1
    strength = [1.0] * players
    for _ in range(iterations):
        # The reference player has strength 1.
        strength = [
            wins[i] / (1 / (s + 1) + sum(n / (s + strength[j]) for j, n in met[i].items()))
            for i, s in enumerate(strength)
        ]
    if not players:
        return []
    # Ratings are relative: centre them on ELO_MEAN.
    elo = [400 * math.log10(s) for s in strength]
    shift = ELO_MEAN - sum(elo) / players
    return [e + shift for e in elo]


def ratings(
    games: Sequence[Game], players: int, *, samples: int = 200, seed: int = 0
) -> list[Rating]:
    """Elo with a 95% bootstrap interval for each player."""
    point = fit(games, players)
    if not games or players < 2:
        return [Rating(elo, elo, elo) for elo in point]
    rng = random.Random(seed)
    draws: list[list[float]] = [[] for _ in range(players)]
    for _ in range(samples):
        resample = [games[rng.randrange(len(games))] for _ in games]
        for player, elo in enumerate(fit(resample, players, iterations=60)):
            draws[player].append(elo)
    result = []
    for player, elo in enumerate(point):
        ordered = sorted(draws[player])
        low = ordered[int(0.025 * (samples - 1))]
        high = ordered[int(0.975 * (samples - 1))]
        result.append(Rating(elo, min(low, elo), max(high, elo)))
    return result
