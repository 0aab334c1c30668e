"""A recorded game as its seats met it: each decision with the request the referee sent.

The referee asks every seat due to move before it applies any answer (the card
game's seats choose at once), and each request carries ``observe(state, seat)``
at that point. Playing a log's moves again the same way gives every decision's
observation exactly, which is what ``rerun`` feeds a bot and what the
platform's replay shows a bot's owner.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from vegas_engine import observe
from vegas_engine.log import moves_form, start_of
from vegas_engine.state import JsonDict


@dataclass(frozen=True)
class RecordedDecision:
    """One decision a seat was asked for, and what was played."""

    #: Index of the move in the log's moves form (``moves[move]``), as a trace names it.
    move: int
    #: How many events the game had before the move: its ``decision`` event's index.
    event: int
    seat: int
    #: The observation the referee sent with the request.
    observation: JsonDict
    #: The action played: the bot's answer, or the referee's fallback after a fault.
    action: str


def recorded_decisions(
    log: JsonDict, seats: Sequence[int] | None = None
) -> Iterator[RecordedDecision]:
    """The decisions of ``seats`` (default: every seat) in the order they were played.

    ``log`` is a game log in either form. Raises the engine's errors
    (``CorruptLogError``, ``IllegalActionError``) for a log whose moves cannot be
    played.
    """
    game = moves_form(log)
    state = start_of(game)
    wanted = None if seats is None else set(seats)
    asked: list[int] = []  # the seats of the round of requests under way
    sent: dict[int, JsonDict] = {}
    moves: list[list[Any]] = game["moves"]
    for index, (seat, action) in enumerate(moves):
        if seat is None:
            state.apply_chance(action)
            continue
        if seat not in asked:
            asked = list(state.to_move())
            sent = {s: observe(state, s) for s in asked if wanted is None or s in wanted}
        if seat in asked:  # else not this seat's turn: apply_action says so
            asked.remove(seat)
            if wanted is None or seat in wanted:
                events = state.events()
                assert events is not None  # start_of logs events
                yield RecordedDecision(index, len(events), seat, sent[seat], action)
        state.apply_action(action, seat)
