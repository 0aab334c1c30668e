"""A bare-bones random playout of `classic` with 4 seats: the speed reference.

This is not the engine. It plays only the classic 4-seat game (8 dice per
seat, the 54 notes, casinos stocked in order until they hold $50,000, unwon
notes to the bottom of the pile, start player passing left, 4 rounds, payout
with cancelling ties) with a random choice of face, written as lean as plain
Python allows: no options, no log, no validation, no state object, no action
strings. ``bench/engine.py`` times it side by side with the engine to show
how far the engine is from what plain Python can do.

Run on its own, it prints its games per second::

    python3 bench/bare_classic.py [seconds]
"""

from __future__ import annotations

import argparse
import random
import time
from collections import deque
from collections.abc import Callable, Sequence

# The 54 notes of classic (RULES.md): value x count.
NOTES: tuple[int, ...] = (
    (10_000,) * 6
    + (20_000,) * 8
    + (30_000,) * 8
    + (40_000,) * 6
    + (50_000,) * 6
    + (60_000,) * 5
    + (70_000,) * 5
    + (80_000,) * 5
    + (90_000,) * 5
)
SEATS = 4
DICE = 8
ROUNDS = 4
MINIMUM = 50_000

Choice = Callable[[Sequence[int]], int]

# Dice as the engine draws them (vegas_engine/rules/rolls.py): at each round's
# start a tape of ROWS rolls of DICE faces per seat; a byte below 252 is a face.
ROWS = 2 * DICE
FACE_OF_BYTE = bytes(byte % 6 for byte in range(256))
DROPPED = bytes(range(252, 256))


def play_game(seed: int, choice: Choice) -> tuple[list[int], int]:
    """Play one game; ``choice`` picks a face among those rolled (a real choice only).

    Returns each seat's money and the number of real decisions (rolls showing
    more than one face), which is what the engine's callers see too: a roll
    with a single face is forced and asks nobody.
    """
    rng = random.Random(seed)
    notes = list(NOTES)
    rng.shuffle(notes)
    pile = deque(notes)
    popleft = pile.popleft
    money = [0, 0, 0, 0]
    decisions = 0
    start = 0
    for _ in range(ROUNDS):
        stocked = []
        for _casino in range(6):
            here = []
            total = 0
            while total < MINIMUM and pile:
                note = popleft()
                here.append(note)
                total += note
            stocked.append(here)
        counts = [
            [0, 0, 0, 0],
            [0, 0, 0, 0],
            [0, 0, 0, 0],
            [0, 0, 0, 0],
            [0, 0, 0, 0],
            [0, 0, 0, 0],
        ]
        hands = [DICE, DICE, DICE, DICE]
        left = DICE * SEATS
        rng.getrandbits(64)  # the tape's key (only rolls past the tape use it)
        tape = b""
        while len(tape) < SEATS * ROWS * DICE:
            missing = SEATS * ROWS * DICE - len(tape)
            tape += rng.randbytes(missing + 4).translate(FACE_OF_BYTE, DROPPED)
        next_row = [0, 0, 0, 0]
        seat = start
        while left:
            hand = hands[seat]
            if hand:
                start_of_row = (seat * ROWS + next_row[seat]) * DICE
                next_row[seat] += 1
                rolled = list(tape[start_of_row : start_of_row + hand])
                # A set of the ints 0..5 iterates in ascending order in CPython,
                # so this is the sorted list of faces, and cheaper than sorted().
                faces = list(set(rolled))
                if len(faces) > 1:
                    face = choice(faces)
                    decisions += 1
                else:
                    face = faces[0]
                placed = rolled.count(face)
                counts[face][seat] += placed
                hands[seat] = hand - placed
                left -= placed
            seat = (seat + 1) % SEATS
        for casino in range(6):
            row = counts[casino]
            here = stocked[casino]
            here.sort(reverse=True)
            # Equal counts cancel; the rest are paid from the highest note down.
            ranked = sorted(
                [
                    (count, owner)
                    for owner, count in enumerate(row)
                    if count and row.count(count) == 1
                ],
                reverse=True,
            )
            paid = min(len(ranked), len(here))
            for place in range(paid):
                money[ranked[place][1]] += here[place]
            pile.extend(here[paid:])
        start = (start + 1) % SEATS
    return money, decisions


def main() -> None:
    parser = argparse.ArgumentParser(description="The bare classic loop on its own.")
    parser.add_argument("seconds", nargs="?", type=float, default=2.0, help="how long to play")
    seconds = parser.parse_args().seconds
    choice = random.Random(1).choice
    games = decisions = 0
    began = time.perf_counter()
    while time.perf_counter() - began < seconds:
        decisions += play_game(games, choice)[1]
        games += 1
    elapsed = time.perf_counter() - began
    print(
        f"bare classic, 4 seats: {games / elapsed:,.0f} games/s, "
        f"{decisions / elapsed:,.0f} decisions/s ({games} games in {elapsed:.2f} s)"
    )


if __name__ == "__main__":
    main()
