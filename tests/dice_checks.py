"""Reading each seat's rolls from game logs, to check what duplicate deals promise."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from typing import Any

#: round, seat, and the seat's k-th roll in that round (from 0)
RollKey = tuple[int, int, int]


def rolls_by_seat(events: Sequence[dict[str, Any]]) -> dict[RollKey, list[int]]:
    """Every seat roll of a game log: its faces, all kinds together, sorted."""
    rolls: dict[RollKey, list[int]] = {}
    made: Counter[tuple[int, int]] = Counter()
    round_number = 0
    for event in events:
        if event["type"] == "round_start":
            round_number = event["round"]
        elif event["type"] == "roll":
            seat = event["seat"]
            k = made[round_number, seat]
            made[round_number, seat] += 1
            rolls[round_number, seat, k] = sorted(
                face for faces in event["dice"].values() for face in faces
            )
    return rolls


def compare_seat_dice(games: Sequence[dict[RollKey, list[int]]]) -> Counter[str]:
    """Assert that one seed's games gave each seat the same dice; count what was compared.

    The k-th roll of a seat in a round shows the same dice in every game when
    it rolls as many dice, and a subset of them when it rolls fewer.
    """
    compared: Counter[str] = Counter()
    for one, other in itertools.combinations(games, 2):
        for key in one.keys() & other.keys():
            a, b = one[key], other[key]
            if len(a) == len(b):
                assert a == b, (key, a, b)
                compared["same size"] += 1
            else:
                small, large = sorted((a, b), key=len)
                assert not Counter(small) - Counter(large), (key, a, b)
                compared["fewer dice"] += 1
    return compared
