"""Replay: re-run a game from its log and check every event."""

from __future__ import annotations

import json

from .chance import ChanceMode
from .errors import IllegalActionError, InvalidPositionError, ReplayMismatchError
from .log import MOVES_SCHEMA_VERSION, description_of, play_moves, seed_of
from .position import copy
from .registry import rule_system
from .state import JsonDict, SeatResult, State


def replay(log: JsonDict) -> State:
    """Re-play ``log`` (already checked by :func:`vegas_engine.log.check`).

    Decisions that were not forced are fed to a fresh state, and so are the
    outcomes of ``chance`` events (a game played with explicit chance); a game
    that started from a ``position`` event starts there again. Every event the
    engine produces must equal the log's event at the same index. The first
    difference raises :class:`ReplayMismatchError` naming that event.

    A moves-form log has no events to compare: its moves are played and must
    give its result (:func:`vegas_engine.log.play_moves`; a move that cannot be
    played, or another result, raises :class:`CorruptLogError`).
    """
    if log["log_schema"] == MOVES_SCHEMA_VERSION:
        return play_moves(log)
    description = description_of(log)
    events = log["events"]
    explicit = any(event.get("type") == "chance" for event in events)
    chance = ChanceMode.EXPLICIT if explicit else ChanceMode.TAPE
    system = rule_system(description.rules)
    if events and events[0].get("type") == "position":
        try:
            state = system.from_position(
                description, seed_of(log), copy(events[0]["position"]), True, chance
            )
        except InvalidPositionError as error:
            raise ReplayMismatchError(0, events[0], f"a bad position: {error}") from None
    else:
        state = system.new_state(description, seed_of(log), True, chance)
    produced = state.events()
    assert produced is not None
    expected = log["events"]
    for index, event in enumerate(expected):
        if index >= len(produced) and event["type"] == "decision" and not event["forced"]:
            try:
                state.apply_action(event["action"], event["seat"])
            except IllegalActionError as error:
                raise ReplayMismatchError(index, event, f"an illegal action: {error}") from None
        elif index >= len(produced) and event["type"] == "chance":
            try:
                state.apply_chance(event["outcome"])
            except IllegalActionError as error:
                raise ReplayMismatchError(index, event, f"an impossible outcome: {error}") from None
        actual = produced[index] if index < len(produced) else None
        # Compare as JSON text: Python's == takes true and 1.0 for 1, a log may not.
        if _canonical(actual) != _canonical(event):
            raise ReplayMismatchError(index, event, actual)
    if len(produced) > len(expected):
        raise ReplayMismatchError(len(expected), None, produced[len(expected)])
    return state


def _canonical(event: object) -> str:
    return json.dumps(event, sort_keys=True)


def final_result(state: State) -> list[SeatResult]:
    result = state.result()
    assert result is not None, "a replayed log always ends with game_end"
    return result
