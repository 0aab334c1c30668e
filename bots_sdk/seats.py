"""Read the observation's seat-keyed objects by seat number.

JSON keys are strings, so a casino's dice are ``{"0": 2, "neutral": 1}``.
These helpers turn them into lists indexed by seat, or dictionaries keyed by
owner (a seat ``int``, or ``"neutral"`` / ``"grey"``), so a bot never builds
or parses a key itself::

    from bots_sdk.seats import by_seat, neutral

    for casino in observation["casinos"]:
        dice = by_seat(casino["dice"], observation["seats"])   # [2, 0, 3]
        mine, theirs = dice[observation["seat"]], neutral(casino["dice"])

Stdlib only, not even :mod:`typing` at run time: bots import it at start-up.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing is slow
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping
    from typing import TypeVar

    T = TypeVar("T")
    D = TypeVar("D")

#: The neutral (white) dice's owner key.
NEUTRAL = "neutral"
#: Royale's grey dice's owner key.
GREY = "grey"


def key(seat: int) -> str:
    """The JSON key of ``seat`` (``2`` -> ``"2"``)."""
    return str(seat)


def owner(key: str) -> int | str:
    """The owner a key names: a seat as an ``int``, else ``"neutral"`` or ``"grey"``."""
    return int(key) if key.isdigit() else key


def of_seat(mapping: Mapping[str, T], seat: int, default: D) -> T | D:
    """``mapping``'s value for ``seat``, or ``default`` when the seat has none."""
    return mapping.get(str(seat), default)


def by_seat(mapping: Mapping[str, int], seats: int) -> list[int]:
    """A count per seat (dice, Biggies): ``{"0": 2, "2": 3, "neutral": 1}`` -> ``[2, 0, 3]``.

    Seats missing from ``mapping`` count 0; other owners are left out.
    """
    return [mapping.get(str(seat), 0) for seat in range(seats)]


def lists_by_seat(mapping: Mapping[str, list[T]], seats: int) -> list[list[T]]:
    """A list per seat (a card-game casino's ``cards``); a new empty list when missing."""
    return [list(mapping.get(str(seat), ())) for seat in range(seats)]


def neutral(mapping: Mapping[str, int]) -> int:
    """The neutral dice's count in ``mapping`` (0 when none)."""
    return mapping.get(NEUTRAL, 0)


def owners(mapping: Mapping[str, T]) -> dict[int | str, T]:
    """``mapping`` keyed by owner: ``{"0": 2, "neutral": 1}`` -> ``{0: 2, "neutral": 1}``."""
    return {owner(name): value for name, value in mapping.items()}


def others(observation: Mapping[str, object]) -> Iterator[int]:
    """The other seats, in playing order from the observer's left (seat + 1, ...)."""
    seats = observation["seats"]
    seat = observation["seat"]
    assert isinstance(seats, int) and isinstance(seat, int)
    return ((seat + step) % seats for step in range(1, seats))


__all__ = [
    "GREY",
    "NEUTRAL",
    "by_seat",
    "key",
    "lists_by_seat",
    "neutral",
    "of_seat",
    "others",
    "owner",
]
