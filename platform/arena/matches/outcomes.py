"""What the referee reports of a seat: shared by the player (play.py) and the writes."""

from __future__ import annotations

from dataclasses import dataclass

from .models import ForfeitCause


@dataclass(frozen=True)
class SeatOutcome:
    """How one seat ended, as reported by the referee."""

    seat: int
    money: int
    rank: int
    forfeit: ForfeitCause | None = None
