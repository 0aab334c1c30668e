"""Each seat's dice for a round, fixed when the round starts: what duplicate deals rest on.

Rolls are not drawn from the game's generator as they happen, or every roll
would depend on how many dice everybody rolled before it. When a round
starts, the generator fills one tape per seat, and a seat's k-th roll of the
round reads row k of its own tape. So a seed gives each seat the same rolls
whatever the other seats do, and a duplicate deal (one seed played once per
seat rotation) gives every bot the same dice from every seat. A roll of fewer
dice reads the start of its row: the dice it keeps are the same.

Rows beyond the tape (kicked dice go back to the hand, so a seat may roll more
often than it has dice), and streams other than the seats' rolls, come from a
generator seeded with the round's key, the stream and the row: still fixed by
the seed alone, whatever the play.
"""

from __future__ import annotations

import random

# A byte below 252 is a face (byte % 6, so 0-5 are equally likely); 252-255 are dropped.
_FACE_OF_BYTE = bytes(byte % 6 for byte in range(256))
_DROPPED = bytes(range(252, 256))


def _faces(rng: random.Random, count: int) -> bytes:
    """``count`` faces 0-5 from ``rng``."""
    faces = b""
    while len(faces) < count:
        faces += rng.randbytes(count - len(faces) + 4).translate(_FACE_OF_BYTE, _DROPPED)
    return faces[:count]


class RollTape:
    """The dice of one round: ``rows`` rolls of up to ``width`` dice per seat.

    Immutable, so clones of a state share it; the state counts each seat's rolls.
    ``faces``, ``rows`` and ``width`` are public for a hot path that reads a
    seat's row itself (DiceGame._next_turn); they are never written after
    ``__init__``.
    """

    __slots__ = ("_key", "_seats", "faces", "rows", "width")

    def __init__(self, rng: random.Random, seats: int, width: int, rows: int) -> None:
        self._key = rng.getrandbits(64)
        self._seats = seats
        self.width = width
        self.rows = rows
        #: Row ``r`` of seat ``s`` is ``faces[(s * rows + r) * width:][:width]``.
        self.faces = _faces(rng, seats * rows * width)

    def roll(self, stream: int, row: int, count: int) -> bytes:
        """Faces 0-5 of roll ``row`` (0-based) of ``stream``: a seat, or seats + k for others."""
        if stream < self._seats and row < self.rows and count <= self.width:
            start = (stream * self.rows + row) * self.width
            return self.faces[start : start + count]
        return _faces(random.Random(f"{self._key}:{stream}:{row}"), count)


#: The tape of a state that has not started a round yet.
NO_TAPE = RollTape(random.Random(0), 0, 0, 0)
