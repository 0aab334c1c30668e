"""Each seat's dice are fixed by the seed alone: what duplicate deals rest on.

A duplicate deal plays one seed once per seat rotation, so the bots at a seat
change and so does the play. A seat's k-th roll of a round must still show the
same dice: all of them when it rolls as many dice, the start of the same row
when it rolls fewer.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from vegas_engine import describe
from vegas_engine.log import game_log
from vegas_engine.policies import Policy, greedy_policy, play, random_policy
from vegas_engine.rules.rolls import RollTape

from ..dice_checks import compare_seat_dice, rolls_by_seat


@pytest.mark.parametrize(
    ("rules", "seats"),
    [("classic", 4), ("classic", 2), ("boulevard", 3), ("sixdice", 5), ("royale", 4)],
)
@pytest.mark.parametrize("seed", [3, 2024])
def test_a_seat_rolls_the_same_dice_whatever_the_others_play(
    rules: str, seats: int, seed: int
) -> None:
    description = describe(rules, seats)
    lineups: list[list[Policy]] = [
        [greedy_policy if seat % 2 else random_policy for seat in range(seats)],
        [random_policy if seat % 2 else greedy_policy for seat in range(seats)],
        [greedy_policy] * seats,
    ]
    games = [
        rolls_by_seat(game_log(play(description, seed, lineup))["events"]) for lineup in lineups
    ]

    assert games[0] != games[1], "different play must give different games for this to test"
    compared = compare_seat_dice(games)
    # Every first roll of a round is a full hand: always comparable, always equal.
    assert compared["same size"] >= seats * 2
    assert compared["fewer dice"] > 0


def test_a_tape_is_fixed_by_the_generator_and_a_shorter_roll_reads_the_start_of_its_row() -> None:
    tape = RollTape(random.Random(7), seats=3, width=8, rows=16)
    again = RollTape(random.Random(7), seats=3, width=8, rows=16)

    assert [tape.roll(1, row, 8) for row in range(16)] == [
        again.roll(1, row, 8) for row in range(16)
    ]
    assert tape.roll(2, 5, 3) == tape.roll(2, 5, 8)[:3]
    assert tape.roll(0, 0, 8) != tape.roll(1, 0, 8)
    assert all(0 <= face <= 5 for row in range(16) for face in tape.roll(0, row, 8))


def test_rows_and_streams_past_the_tape_are_fixed_by_the_seed_too() -> None:
    tape = RollTape(random.Random(7), seats=3, width=8, rows=16)
    again = RollTape(random.Random(7), seats=3, width=8, rows=16)
    other_seed = RollTape(random.Random(8), seats=3, width=8, rows=16)

    for stream, row, count in ((0, 16, 8), (1, 40, 5), (4, 0, 2), (2, 0, 9)):
        faces = tape.roll(stream, row, count)
        assert len(faces) == count
        assert faces == again.roll(stream, row, count)
    assert tape.roll(4, 0, 8) != other_seed.roll(4, 0, 8)
    assert tape.roll(0, 16, 8) != tape.roll(0, 17, 8)


def test_faces_are_uniform() -> None:
    tape = RollTape(random.Random(1), seats=6, width=8, rows=16)
    counts = Counter(
        face for seat in range(6) for row in range(400) for face in tape.roll(seat, row, 8)
    )
    total = sum(counts.values())
    assert sorted(counts) == [0, 1, 2, 3, 4, 5]
    # 19,200 faces: each within 5 standard deviations (about 1.4% of the total) of a sixth.
    assert all(abs(count / total - 1 / 6) < 0.014 for count in counts.values()), counts
