"""The referee's per-player limits (a slow seat among fast ones) and its progress
callback (the events so far, as the game is played). Real processes, trusted mode."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import jsonschema
import pytest

from bots_sdk import sandbox
from bots_sdk.faults import FaultKind
from bots_sdk.launcher import BotSpec, house_bot, launch_bot
from bots_sdk.protocol import Limits
from bots_sdk.referee import Match
from tests.bots_sdk.botkit import raw_bot
from vegas_engine import State, describe
from vegas_engine.log import events_of
from vegas_engine.state import JsonDict

FAST = Limits(startup_ms=3000, decision_ms=100, bank_ms=10_000)
PATIENT = Limits(startup_ms=3000, decision_ms=1500, bank_ms=60_000)
SCHEMA = Path(__file__).resolve().parents[2] / "docs" / "protocol" / "referee-log.schema.json"


def test_a_player_with_limits_of_its_own_may_think_longer_than_the_others(
    tmp_path: Path,
) -> None:
    """A bot taking 150 ms a decision forfeits under the match's 100 ms, not under its own
    1.5 s; the others keep the match's limits, and the log says whose differ."""
    slow = raw_bot(tmp_path, "bank", at=0)  # sleeps 150 ms before each answer
    hellos: dict[str, Limits] = {}

    def launching(spec: BotSpec, limits: Limits) -> sandbox.BotProcess:
        hellos[spec.name] = limits
        return launch_bot(spec, limits)

    players = [house_bot("random"), slow]
    with Match(players, FAST, launcher=launching) as match:
        strict = match.play(describe("classic", 2), 5, [0, 1])
    assert strict.seats[1].fault is not None
    assert strict.seats[1].fault.kind is FaultKind.TIMEOUT
    assert strict.seats[1].fault.message == "no reply within 100 ms"

    with Match(players, FAST, launcher=launching, player_limits={1: PATIENT}) as match:
        record = match.play(describe("classic", 2), 5, [1, 0])  # the slow bot at seat 0
    assert hellos == {"random": FAST, "bank": PATIENT}
    assert [seat.fault for seat in record.seats] == [None, None]
    assert min(record.seats[0].decision_ms) > FAST.decision_ms
    seats = record.log["referee"]["seats"]
    assert seats[0]["limits"] == PATIENT.to_json() and "limits" not in seats[1]
    assert record.log["referee"]["limits"] == FAST.to_json()
    schema = json.loads(SCHEMA.read_text())
    jsonschema.validators.validator_for(schema)(schema).validate(record.log["referee"])


def test_player_limits_name_players_of_the_match() -> None:
    with pytest.raises(ValueError, match="players 0-1 only"):
        Match([house_bot("random"), house_bot("greedy")], FAST, player_limits={2: PATIENT})


def test_progress_shows_the_events_so_far_before_each_decision_and_at_the_end() -> None:
    seen: list[tuple[int, list[JsonDict]]] = []

    def progress(game_id: int, state: State) -> None:
        assert state.events() is None, "the referee keeps moves: events are made when wanted"
        seen.append((game_id, list(events_of(state))))

    players = [house_bot("random"), house_bot("greedy")]
    with Match(players, FAST, on_progress=progress) as match:
        record = match.play(describe("classic", 2), 3, [0, 1])
        again = match.play(describe("classic", 2), 4, [1, 0])
    first = [events for game, events in seen if game == record.game_id]
    second = [events for game, events in seen if game == again.game_id]
    events = record.log["events"]
    decisions = sum(event["type"] == "decision" for event in events)
    forced = sum(event.get("forced", False) for event in events)
    # Once before each decision the referee asks for (forced ones are not asked), once at the end.
    assert len(first) == decisions - forced + 1
    assert first[0][0]["type"] == "round_start" and first[-1] == events
    assert second[-1] == again.log["events"]
    # Each call sees the one before it and more: the replay only grows.
    for before, after in itertools.pairwise(first):
        assert after[: len(before)] == before and len(after) > len(before)
