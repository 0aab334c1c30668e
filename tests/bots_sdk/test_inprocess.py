"""Seats played by a thread of the referee's process (bots_sdk.inprocess), beside bots."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from bots_sdk import protocol
from bots_sdk.faults import FaultKind
from bots_sdk.inprocess import InProcessSeat, SeatChannel
from bots_sdk.launcher import house_bot, in_process
from bots_sdk.protocol import Limits, MessageType
from bots_sdk.referee import Match
from vegas_engine import describe

LIMITS = Limits(startup_ms=5_000, decision_ms=5_000, bank_ms=60_000)


class Scripted(InProcessSeat):
    """Answers every request with its first legal action; keeps what it was sent."""

    def __init__(self, name: str = "scripted", *, answer: bool = True) -> None:
        super().__init__(name)
        self.answer = answer
        self.received: list[str] = []

    def serve(self, channel: SeatChannel) -> None:
        while True:
            message = channel.receive(timeout=0.05)
            if message is None:
                continue
            self.received.append(message["type"])
            if message["type"] == MessageType.HELLO:
                channel.send(protocol.ready(self.name))
            elif message["type"] == MessageType.REQUEST and self.answer:
                legal = message["observation"]["legal_actions"]
                channel.send(protocol.action(message["id"], legal[0]))
            elif message["type"] == MessageType.SHUTDOWN:
                return


class Failing(InProcessSeat):
    def serve(self, channel: SeatChannel) -> None:
        while (message := channel.receive(timeout=0.05)) is None:
            pass
        assert message["type"] == MessageType.HELLO
        channel.send(protocol.ready(self.name))
        raise RuntimeError("the seat's database went away")


def seat_threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name.startswith("seat-")]


def play(seat: InProcessSeat, limits: Limits = LIMITS, seed: int = 3) -> Any:
    with Match([in_process(seat), house_bot("greedy")], limits) as match:
        return match.play(describe("classic", 2), seed, [0, 1])


def test_an_in_process_seat_plays_a_whole_game_like_a_bot() -> None:
    seat = Scripted()
    record = play(seat)
    mine = record.seats[0]
    assert mine.fault is None
    assert record.seats[1].fault is None
    assert [entry["seat"] for entry in record.result] != []
    # The protocol as a process gets it: hello first, a request per decision, the end.
    assert seat.received[0] == MessageType.HELLO
    assert seat.received.count(MessageType.REQUEST) == len(mine.decision_ms) > 0
    assert seat.received[-1] == MessageType.SHUTDOWN
    assert MessageType.GAME_OVER in seat.received
    assert seat_threads() == []  # the thread returned with the match


def test_the_same_seed_plays_the_same_game_as_a_bot_would() -> None:
    record = play(Scripted())
    again = play(Scripted())
    assert record.result == again.result


def test_a_seat_that_never_answers_times_out_and_the_game_goes_on() -> None:
    seat = Scripted(answer=False)
    record = play(seat, Limits(startup_ms=5_000, decision_ms=50, bank_ms=60_000))
    fault = record.seats[0].fault
    assert fault is not None and fault.kind is FaultKind.TIMEOUT
    assert fault.request is not None and fault.request["id"] == 1
    assert record.seats[1].fault is None  # the other seat played the game out
    assert seat_threads() == []


def test_a_seat_that_fails_is_a_seat_that_ended_and_its_error_is_kept() -> None:
    record = play(Failing("failing"))
    fault = record.seats[0].fault
    assert fault is not None
    assert fault.kind is FaultKind.CRASHED and "exited with status 1" in fault.message
    assert "RuntimeError: the seat's database went away" in fault.stderr_tail
    assert seat_threads() == []


@pytest.mark.parametrize("seed", [1, 2])
def test_two_in_process_seats_at_one_table(seed: int) -> None:
    first, second = Scripted("one"), Scripted("two")
    with Match([in_process(first), in_process(second)], LIMITS) as match:
        record = match.play(describe("classic", 2), seed, [0, 1])
    assert [seat.fault for seat in record.seats] == [None, None]
    assert first.received[-1] == second.received[-1] == MessageType.SHUTDOWN
