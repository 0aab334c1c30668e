"""Every way a bot can fail: recorded with its exact cause, the game completes for
the others, and no process is left behind. Real processes, trusted mode."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from bots_sdk import sandbox
from bots_sdk.faults import FaultKind
from bots_sdk.launcher import BotSpec, house_bot, launch_bot
from bots_sdk.protocol import Limits
from bots_sdk.referee import GameRecord, Match
from tests.bots_sdk.botkit import gone, processes_with, raw_bot
from vegas_engine import describe

pytestmark = pytest.mark.slow

FAST = Limits(startup_ms=3000, decision_ms=400, bank_ms=10_000)


def play_one(
    spec: BotSpec, limits: Limits = FAST, seat: int = 1, seed: int = 11
) -> tuple[GameRecord, list[int], Match]:
    """One 3-seat classic game: the bot under test against two house random bots."""
    pids: list[int] = []

    def recording(spec: BotSpec, limits: Limits) -> sandbox.BotProcess:
        process = launch_bot(spec, limits)
        pids.append(process.pid)
        return process

    players = [house_bot("random"), house_bot("random")]
    players.insert(seat, spec)
    with Match(players, limits, launcher=recording) as match:
        record = match.play(describe("classic", 3), seed, [0, 1, 2])
    return record, pids, match


def check_forfeit(record: GameRecord, seat: int = 1) -> None:
    """The game completed, the faulty seat is last and forfeited, the others clean."""
    assert record.log["events"][-1]["type"] == "game_end"
    result = {entry["seat"]: entry for entry in record.result}
    assert result[seat]["forfeited"] and result[seat]["rank"] == 3
    others = sorted(entry["rank"] for s, entry in result.items() if s != seat)
    assert others in ([1, 2], [1, 1])
    assert [s.seat for s in record.seats if s.fault is not None] == [seat]
    fault = record.seats[seat].fault
    assert fault is not None
    assert record.log["referee"]["seats"][seat]["fault"]["kind"] == fault.kind.value


def check_no_leftovers(pids: list[int], marker: str) -> None:
    assert pids and all(gone(pid) for pid in pids)
    assert processes_with(marker) == []


@pytest.mark.parametrize(
    ("mode", "kind", "exit_code", "sig"),
    [
        ("crash", FaultKind.CRASHED, 3, None),
        ("signal", FaultKind.CRASHED, None, signal.SIGSEGV),
        ("exit", FaultKind.EXITED, 0, None),
        ("child_crash", FaultKind.CRASHED, 4, None),
    ],
)
def test_process_ends_mid_game(
    tmp_path: Path, mode: str, kind: FaultKind, exit_code: int | None, sig: int | None
) -> None:
    spec = raw_bot(tmp_path, mode, at=3)
    record, pids, _ = play_one(spec)
    check_forfeit(record)
    fault = record.seats[1].fault
    assert fault is not None
    assert fault.kind is kind
    assert fault.request is not None and fault.request["id"] == 3
    assert fault.request["type"] == "request"
    assert fault.exit_code == exit_code and fault.signal == sig
    assert f"fault now: {mode}" in fault.stderr_tail
    assert fault.resources["memory_peak_bytes"]
    assert len(record.seats[1].decision_ms) == 2
    check_no_leftovers(pids, str(tmp_path))


def test_timeout_per_decision(tmp_path: Path) -> None:
    record, pids, _ = play_one(raw_bot(tmp_path, "timeout", at=2))
    check_forfeit(record)
    fault = record.seats[1].fault
    assert fault is not None and fault.kind is FaultKind.TIMEOUT
    assert fault.request is not None and fault.request["id"] == 2
    assert fault.request["time_left_ms"] == FAST.decision_ms
    assert fault.elapsed_ms is not None and fault.elapsed_ms >= FAST.decision_ms
    assert fault.signal == signal.SIGKILL  # the referee killed it
    assert "fault now: timeout" in fault.stderr_tail
    check_no_leftovers(pids, str(tmp_path))


def test_time_bank_exhausted(tmp_path: Path) -> None:
    # 150 ms per decision against a 400 ms bank: the third decision has 100 ms.
    limits = Limits(startup_ms=3000, decision_ms=300, bank_ms=400)
    record, pids, _ = play_one(raw_bot(tmp_path, "bank", at=0), limits)
    check_forfeit(record)
    fault = record.seats[1].fault
    assert fault is not None and fault.kind is FaultKind.TIME_BANK
    assert fault.request is not None and fault.request["id"] == 3
    assert fault.request["time_left_ms"] < limits.decision_ms
    assert fault.request["bank_left_ms"] == fault.request["time_left_ms"]
    assert len(record.seats[1].decision_ms) == 2
    check_no_leftovers(pids, str(tmp_path))


@pytest.mark.parametrize(
    ("mode", "kind", "sent"),
    [
        ("garbage", FaultKind.GARBAGE, "i would like to place 3 please"),
        ("wrong_id", FaultKind.GARBAGE, '"id": 5'),
        ("illegal", FaultKind.ILLEGAL_ACTION, '"action": "place 9"'),
    ],
)
def test_bad_reply(tmp_path: Path, mode: str, kind: FaultKind, sent: str) -> None:
    record, pids, _ = play_one(raw_bot(tmp_path, mode, at=4))
    check_forfeit(record)
    fault = record.seats[1].fault
    assert fault is not None and fault.kind is kind
    assert fault.request is not None and fault.request["id"] == 4
    assert fault.sent is not None and sent in fault.sent
    assert len(record.seats[1].decision_ms) == 4  # the bad reply came in time
    if kind is FaultKind.ILLEGAL_ACTION:
        assert "place 9" in fault.message
    check_no_leftovers(pids, str(tmp_path))


@pytest.mark.parametrize("mode", ["early", "early_flood"])
def test_a_line_before_its_request_answers_nothing(tmp_path: Path, mode: str) -> None:
    """A line written before its request is a fault at that request, never its
    reply; of a flood, the referee reads one small piece."""
    record, pids, _ = play_one(raw_bot(tmp_path, mode, at=2))
    check_forfeit(record)
    fault = record.seats[1].fault
    assert fault is not None and fault.kind is FaultKind.GARBAGE
    assert fault.message == "wrote to stdout before request 3 was sent"
    assert fault.request is not None and fault.request["id"] == 3
    assert fault.elapsed_ms is None  # never sent, never timed
    assert fault.sent is not None and fault.sent.startswith('{"type": "action", "id": 3, ')
    assert len(record.seats[1].decision_ms) == 2
    check_no_leftovers(pids, str(tmp_path))


def test_a_line_between_games_is_a_fault_at_the_next_request(tmp_path: Path) -> None:
    spec = raw_bot(tmp_path, "stray")
    with Match([spec, house_bot("random")], FAST) as match:
        first = match.play(describe("classic", 2), 1, [0, 1])
        time.sleep(0.5)  # the stray line is written by now, before the next game
        second = match.play(describe("classic", 2), 2, [0, 1])
    assert first.seats[0].fault is None
    fault = second.seats[0].fault
    assert fault is not None and fault.kind is FaultKind.GARBAGE
    assert fault.request is not None and fault.game_id == 2
    assert fault.message == f"wrote to stdout before request {fault.request['id']} was sent"
    assert fault.sent == '{"type": "action", "id": 0, "action": "good game"}\n'
    assert second.seats[0].decision_ms == []
    assert processes_with(str(tmp_path)) == []


def test_line_too_long(tmp_path: Path) -> None:
    record, pids, _ = play_one(raw_bot(tmp_path, "long_line", at=2))
    check_forfeit(record)
    fault = record.seats[1].fault
    assert fault is not None and fault.kind is FaultKind.LINE_TOO_LONG
    assert fault.request is not None and fault.request["id"] == 2
    assert fault.sent is not None and fault.sent.startswith("xxxx")
    # Cut while reading, well before the decision's deadline or the 100 kB end.
    assert fault.elapsed_ms is not None and fault.elapsed_ms < FAST.decision_ms
    check_no_leftovers(pids, str(tmp_path))


def test_output_limit_per_game(tmp_path: Path) -> None:
    limits = Limits(startup_ms=3000, decision_ms=400, bank_ms=10_000, max_output_bytes=8000)
    record, pids, _ = play_one(raw_bot(tmp_path, "flood", at=2), limits)
    check_forfeit(record)
    fault = record.seats[1].fault
    assert fault is not None and fault.kind is FaultKind.OUTPUT_LIMIT
    # Replies 2, 3 (about 3 kB each) fit; the fourth passes 8000 bytes in all.
    assert fault.request is not None and fault.request["id"] == 4
    assert "8000" in fault.message
    check_no_leftovers(pids, str(tmp_path))


def test_closing_stdout(tmp_path: Path) -> None:
    record, pids, _ = play_one(raw_bot(tmp_path, "close_stdout", at=2))
    check_forfeit(record)
    fault = record.seats[1].fault
    assert fault is not None and fault.kind is FaultKind.CLOSED_STDOUT
    assert fault.request is not None and fault.request["id"] == 2
    assert fault.signal == signal.SIGKILL
    check_no_leftovers(pids, str(tmp_path))


def test_slow_startup(tmp_path: Path) -> None:
    limits = Limits(startup_ms=300, decision_ms=400, bank_ms=10_000)
    record, pids, _ = play_one(raw_bot(tmp_path, "slow_start"), limits)
    check_forfeit(record)
    fault = record.seats[1].fault
    assert fault is not None and fault.kind is FaultKind.STARTUP_TIMEOUT
    assert fault.request is None and "300 ms" in fault.message
    assert "raw bot starting" in fault.stderr_tail
    assert record.seats[1].decision_ms == []
    check_no_leftovers(pids, str(tmp_path))


def test_bad_handshake(tmp_path: Path) -> None:
    record, pids, _ = play_one(raw_bot(tmp_path, "bad_hello"))
    check_forfeit(record)
    fault = record.seats[1].fault
    assert fault is not None and fault.kind is FaultKind.BAD_HANDSHAKE
    assert "protocol 99" in fault.message and fault.sent is not None
    check_no_leftovers(pids, str(tmp_path))


def test_launch_failed(tmp_path: Path) -> None:
    spec = BotSpec(
        name="ghost", bot_dir=tmp_path, main=None, executable="no-such-program", trusted=True
    )
    record, _, _ = play_one(spec)
    check_forfeit(record)
    fault = record.seats[1].fault
    assert fault is not None and fault.kind is FaultKind.LAUNCH_FAILED
    assert "no-such-program" in fault.message


def test_first_seat_and_every_seat_fault(tmp_path: Path) -> None:
    """All seats crash at once: the game still completes, everyone forfeits."""
    specs = [raw_bot(tmp_path / str(seat), "crash", at=1) for seat in range(2)]
    with Match(specs, FAST) as match:
        record = match.play(describe("classic", 2), 5, [0, 1])
    assert all(entry["forfeited"] and entry["rank"] == 1 for entry in record.result)
    assert record.log["events"][-1]["type"] == "game_end"
    assert processes_with(str(tmp_path)) == []


def test_faulty_bot_restarts_for_the_next_game(tmp_path: Path) -> None:
    """In a series, a bot that faulted gets a fresh process for the next game."""
    spec = raw_bot(tmp_path, "crash", at=3)
    with Match([spec, house_bot("random")], FAST) as match:
        first = match.play(describe("classic", 2), 1, [0, 1])
        second = match.play(describe("classic", 2), 2, [1, 0])
    assert first.seats[0].fault is not None
    assert second.seats[1].startup_ms is not None  # started again
    # Requests count over a process's life: the new process faults at its third too.
    assert second.seats[1].fault is not None
    assert second.seats[1].fault.request is not None
    assert second.seats[1].fault.request["id"] == 3
    assert len(match.outcomes[0]) == 2
    assert processes_with(str(tmp_path)) == []


def test_simultaneous_decision_one_seat_times_out(tmp_path: Path) -> None:
    """cardgame asks both seats at once: one times out, the other's reply counts."""
    spec = raw_bot(tmp_path, "timeout", at=2)
    with Match([spec, house_bot("random")], FAST) as match:
        record = match.play(describe("cardgame", 2), 3, [0, 1])
    fault = record.seats[0].fault
    assert fault is not None and fault.kind is FaultKind.TIMEOUT
    assert fault.request is not None and fault.request["id"] == 2
    assert record.seats[1].fault is None and record.seats[1].decision_ms
    assert record.result[0]["forfeited"] and record.result[1]["rank"] == 1
    assert processes_with(str(tmp_path)) == []


def test_games_per_process_restarts_bots(tmp_path: Path) -> None:
    spec = raw_bot(tmp_path, "ok", at=0)
    pids: list[int] = []

    def recording(spec: BotSpec, limits: Limits) -> sandbox.BotProcess:
        process = launch_bot(spec, limits)
        pids.append(process.pid)
        return process

    with Match([spec, house_bot("random")], FAST, launcher=recording, games_per_process=2) as match:
        records = [match.play(describe("classic", 2), seed, [0, 1]) for seed in range(5)]
    assert [r.seats[0].startup_ms is not None for r in records] == [
        True, False, True, False, True,
    ]  # fmt: skip
    assert len(pids) == 6 and all(gone(pid) for pid in pids)
    assert all(o.exit_code == 0 and not o.killed for o in match.outcomes[0])
    assert processes_with(str(tmp_path)) == []


def test_seed_once_per_process_gives_a_seed_seen_a_fresh_process(tmp_path: Path) -> None:
    """A duplicate deal's games share a seed: no process may play two of them."""
    spec = raw_bot(tmp_path, "ok", at=0)
    pids: list[int] = []

    def recording(spec: BotSpec, limits: Limits) -> sandbox.BotProcess:
        process = launch_bot(spec, limits)
        pids.append(process.pid)
        return process

    # Two deals of a 2-seat classic game, played lane by lane: game 1 of each deal,
    # then game 2 (seats swapped) of each.
    games = [(1, [0, 1]), (2, [0, 1]), (1, [1, 0]), (2, [1, 0]), (3, [0, 1])]
    with Match(
        [spec, house_bot("random")], FAST, launcher=recording, seed_once_per_process=True
    ) as match:
        records = [match.play(describe("classic", 2), seed, seating) for seed, seating in games]
    started = [
        [seat.startup_ms is not None for seat in sorted(r.seats, key=lambda s: s.player)]
        for r in records
    ]
    assert started == [[True, True], [False, False], [True, True], [False, False], [False, False]]
    assert len(pids) == 4 and all(gone(pid) for pid in pids)

    # Without the option (the SDK's tournaments), one process plays them all.
    with Match([spec, house_bot("random")], FAST) as match:
        records = [match.play(describe("classic", 2), seed, seating) for seed, seating in games]
    assert [r.seats[0].startup_ms is not None for r in records] == [True] + [False] * 4
