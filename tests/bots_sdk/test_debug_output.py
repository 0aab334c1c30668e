"""Per-decision debug output: each seat's trace in the log (notes, stderr, caps).

Real bots through the real referee, sandboxed (and bare, where the SDK's local
runs take that path): an SDK bot in Python and a JavaScript bot without the SDK.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bots_sdk.faults import FaultKind
from bots_sdk.launcher import BotSpec, build_bot, house_bot, resolve_bot, sandbox_problem
from bots_sdk.protocol import MAX_NOTE_BYTES, Limits
from bots_sdk.referee import (
    DECISION_STDERR_BYTES,
    GAME_STDERR_BYTES,
    GameRecord,
    Match,
    bot_seed,
    play_series,
)
from tests.bots_sdk.botkit import sdk_bot
from tests.bots_sdk.test_protocol import RECORDER, validator
from vegas_engine import describe, new_game

pytestmark = pytest.mark.skipif(
    sandbox_problem() is not None, reason=f"sandbox unavailable: {sandbox_problem()}"
)

KEY = bytes(range(32))
LIMITS = Limits(startup_ms=20_000, decision_ms=5_000, bank_ms=120_000)

NOTER = """\
import sys
from bots_sdk import Bot, run


class Noter(Bot):
    name = "noter"

    def act(self, observation):
        legal = observation["legal_actions"]
        choice = legal[self.rng.randrange(len(legal))]
        print("considering", len(legal), "actions", file=sys.stderr)
        self.note(f"{len(legal)} legal")
        self.note(f"picks {choice}")
        return choice


if __name__ == "__main__":
    run(Noter)
"""

#: A bot without the SDK, in JavaScript: MODE picks what it does with its notes and stderr.
JS_BOT = """\
"use strict";
const MODE = process.env.MODE || "ok";
let requests = 0;
let pending = "";
const send = (message) => process.stdout.write(JSON.stringify(message) + "\\n");
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  pending += chunk;
  for (let end; (end = pending.indexOf("\\n")) >= 0; ) {
    const message = JSON.parse(pending.slice(0, end));
    pending = pending.slice(end + 1);
    if (message.type === "hello") send({ type: "ready", protocol: 1, name: "js-" + MODE });
    else if (message.type === "request") {
      requests += 1;
      const legal = message.observation.legal_actions;
      const action = legal[requests % legal.length];
      const flood = MODE === "flood" ? "x".repeat(5000) : "";
      if (MODE === "accents") process.stderr.write(Buffer.from([0xff, 0x41, 0x42]));
      if (MODE === "accents") process.stderr.write("\\u00e9".repeat(600));
      else process.stderr.write(`request ${message.id} stderr ${flood}\\n`);
      const reply = { type: "action", id: message.id, action, note: `picks ${action}` };
      if (MODE === "long_note") reply.note = `picks ${action}|` + "\\u00e9".repeat(200);
      if (MODE === "number_note" && requests === 3) reply.note = 42;
      if (MODE === "null_note") reply.note = null;
      send(reply);
    } else if (message.type === "shutdown") process.exit(0);
  }
});
process.stdin.on("end", () => process.exit(0));
"""


@pytest.fixture(scope="module")
def public_dir() -> Iterator[Path]:
    """A folder the bot user can read (pytest's tmp_path is private to root)."""
    folder = Path(tempfile.mkdtemp(prefix="vegas-debug-test-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def write(folder: Path, name: str, source: str, *, trusted: bool = False) -> BotSpec:
    (folder / name).write_text(source)
    (folder / name).chmod(0o644)
    return build_bot(resolve_bot(str(folder / name), trusted=trusted))


def write_file(folder: Path, name: str, source: str) -> BotSpec:
    """A bare (trusted) bot from one Python file."""
    (folder / name).write_text(source)
    return resolve_bot(str(folder / name), trusted=True)


def js_bot(folder: Path, mode: str) -> BotSpec:
    spec = write(folder, "main.js", JS_BOT)
    return BotSpec(
        name=f"js-{mode}", bot_dir=spec.bot_dir, main=spec.main, runtime="js", env={"MODE": mode}
    )


def seat_of(record: GameRecord, player: int) -> dict[str, Any]:
    seats = record.moves_log["referee"]["seats"]
    return next(seat for seat in seats if seat["player"] == player)


def check_moves(record: GameRecord, seat: dict[str, Any]) -> None:
    """Every entry's move is a move of this seat that names the action its note names,
    and was decided among as many legal actions as the bot's stderr says."""
    log = record.moves_log
    moves = log["moves"]
    entries = {entry["move"]: entry for entry in seat["trace"]}
    state = new_game(record.description, record.seed)
    for index, (mover, action) in enumerate(moves):
        entry = entries.pop(index, None)
        if entry is not None:
            assert mover == seat["seat"]
            assert entry["note"].endswith(f"picks {action}")
            counted = re.fullmatch(r"considering (\d+) actions\n", entry["stderr"])
            if counted:
                assert int(counted[1]) == len(state.legal_actions(mover))
        state.apply_action(action, mover)
    assert not entries, "trace entries beyond the moves"


def validate(record: GameRecord) -> None:
    validator("referee-log").validate(record.moves_log["referee"])


@pytest.mark.parametrize("trusted", [False, True], ids=["sandboxed", "bare"])
def test_an_sdk_bots_notes_and_stderr_are_traced_at_its_moves(
    public_dir: Path, trusted: bool
) -> None:
    """The card game: every seat decides at once and the moves go in seat order."""
    noter = write(public_dir, "noter.py", NOTER, trusted=trusted)
    players = [noter, house_bot("greedy"), house_bot("random")]
    games = [(describe("cardgame", 3), seed) for seed in (41, 42)]
    records = play_series(players, games, LIMITS, bot_seed_key=KEY)
    for record in records:
        assert not record.faults, [fault.describe() for fault in record.faults]
        validate(record)
        mine = seat_of(record, 0)
        assert mine["bot_seed"] == bot_seed(record.seed, mine["seat"], key=KEY)
        assert len(mine["trace"]) == mine["decisions"] > 5
        assert [entry["request"] for entry in mine["trace"]] == sorted(
            entry["request"] for entry in mine["trace"]
        )
        for entry in mine["trace"]:
            assert re.fullmatch(r"\d+ legal\npicks .+", entry["note"])
            assert re.fullmatch(r"considering \d+ actions\n", entry["stderr"])
            assert entry["ms"] > 0 and entry["truncated"] is False
        check_moves(record, mine)
        # A house bot is traced too: no note, no stderr.
        greedy = seat_of(record, 1)
        assert greedy["trace"] and {e["note"] + e["stderr"] for e in greedy["trace"]} == {""}
    assert seat_of(records[0], 0)["seat"] != seat_of(records[1], 0)["seat"]


def test_a_js_bots_notes_and_stderr_are_traced_at_its_moves(public_dir: Path) -> None:
    spec = js_bot(public_dir, "ok")
    record = play_series([house_bot("random"), spec], [(describe("classic", 2), 7)], LIMITS)[0]
    assert not record.faults, [fault.describe() for fault in record.faults]
    validate(record)
    mine = seat_of(record, 1)
    check_moves(record, mine)
    assert [entry["stderr"] for entry in mine["trace"]] == [
        f"request {entry['request']} stderr \n" for entry in mine["trace"]
    ]
    assert seat_of(record, 0)["bot_seed"] is not None


def test_a_stderr_flood_is_cut_per_decision_and_per_game(public_dir: Path) -> None:
    spec = js_bot(public_dir, "flood")
    record = play_series([spec, house_bot("random")], [(describe("classic", 2), 8)], LIMITS)[0]
    assert not record.faults, [fault.describe() for fault in record.faults]
    trace = seat_of(record, 0)["trace"]
    full = GAME_STDERR_BYTES // DECISION_STDERR_BYTES
    assert len(trace) > full
    for entry in trace[:full]:
        assert entry["truncated"] is True and len(entry["stderr"]) == DECISION_STDERR_BYTES
        assert entry["stderr"].startswith(f"request {entry['request']} stderr xxx")
    for entry in trace[full:]:
        assert (entry["stderr"], entry["truncated"]) == ("", True)
    assert sum(len(entry["stderr"].encode()) for entry in trace) == GAME_STDERR_BYTES
    # The notes are kept all the same.
    check_moves(record, seat_of(record, 0))


def test_a_long_note_is_cut_at_a_character_boundary(public_dir: Path) -> None:
    spec = js_bot(public_dir, "long_note")
    record = play_series([spec, house_bot("random")], [(describe("classic", 2), 9)], LIMITS)[0]
    assert not record.faults, [fault.describe() for fault in record.faults]
    trace = seat_of(record, 0)["trace"]
    assert trace
    moves = record.moves_log["moves"]
    for entry in trace:
        picked, accents = entry["note"].split("|")
        assert picked == f"picks {moves[entry['move']][1]}"
        assert set(accents) == {"\u00e9"} and entry["truncated"] is True
        size = len(entry["note"].encode())
        assert MAX_NOTE_BYTES - 1 <= size <= MAX_NOTE_BYTES  # no room for one more é


def test_a_note_that_is_not_a_string_is_a_garbage_reply(public_dir: Path) -> None:
    spec = js_bot(public_dir, "number_note")
    with Match([spec, house_bot("random")], LIMITS) as match:
        record = match.play(describe("classic", 2), 10, [0, 1])
    fault = record.seats[0].fault
    assert fault is not None and fault.kind is FaultKind.GARBAGE
    assert fault.message == '"note" must be a string (or left out), got 42'
    trace = seat_of(record, 0)["trace"]
    assert [entry["request"] for entry in trace] == [1, 2, 3]
    last = trace[-1]
    # The faulty reply was read (it has a time) and its stderr kept; its move is the
    # fallback policy's, at the seat.
    assert last["note"] == "" and last["ms"] is not None
    assert last["stderr"] == "request 3 stderr \n"
    assert record.moves_log["moves"][last["move"]][0] == 0
    validate(record)


def test_a_null_note_is_no_note(public_dir: Path) -> None:
    spec = js_bot(public_dir, "null_note")
    record = play_series([spec, house_bot("random")], [(describe("classic", 2), 11)], LIMITS)[0]
    assert not record.faults
    assert {entry["note"] for entry in seat_of(record, 0)["trace"]} == {""}


def test_a_seat_that_never_started_has_no_seed_and_no_trace(tmp_path: Path) -> None:
    missing = BotSpec(name="gone", bot_dir=tmp_path, main=None, executable="nothing", trusted=True)
    record = play_series([missing, house_bot("random")], [(describe("classic", 2), 12)])[0]
    seat = seat_of(record, 0)
    assert seat["fault"]["kind"] == "launch_failed"
    assert (seat["bot_seed"], seat["trace"]) == (None, [])
    validate(record)


def test_no_bot_ever_receives_another_bots_notes_or_stderr(tmp_path: Path) -> None:
    """Everything a bot reads is the referee's messages, whose observations are the
    engine's: a recorder at the table sees none of its neighbour's debug output."""
    secret = "a plan nobody else may read"
    source = NOTER.replace('self.note(f"{len(legal)} legal")', f"self.note({secret!r})")
    source = source.replace('"considering"', repr(secret))
    noter = write_file(tmp_path, "noter.py", source)
    recorder = sdk_bot(tmp_path, RECORDER, name="recorder")
    games = [(describe("cardgame", 2), 51), (describe("classic", 2), 52)]
    records = play_series([noter, recorder], games, LIMITS)
    for record in records:
        assert not record.faults
        trace = seat_of(record, 0)["trace"]
        assert trace and all(secret in e["note"] and secret in e["stderr"] for e in trace)
    received = (tmp_path / "received.jsonl").read_text()
    assert '"type":"request"' in received.replace(" ", "")
    assert secret not in received and "picks" not in received


def test_in_the_events_form_a_move_is_the_nth_decision_not_forced(public_dir: Path) -> None:
    """The events form has no moves: move k of a trace is its k-th decision event that
    was not forced (chance events count too, where a game logs them)."""
    noter = write(public_dir, "noter.py", NOTER, trusted=True)
    games = [(describe(rules, 3), 61) for rules in ("cardgame", "royale")]
    for record in play_series([house_bot("greedy"), noter, house_bot("random")], games, LIMITS):
        chosen = [
            [event["seat"], event["action"]]
            for event in record.log["events"]
            if event["type"] == "decision" and not event["forced"]
        ]
        assert chosen == record.moves_log["moves"]
        trace = seat_of(record, 1)["trace"]
        assert trace == record.log["referee"]["seats"][seat_of(record, 1)["seat"]]["trace"]
        for entry in trace:
            assert entry["note"].endswith(f"picks {chosen[entry['move']][1]}")


def test_stderr_that_is_no_utf8_or_cut_inside_a_character_is_kept_readable(
    public_dir: Path,
) -> None:
    """A bad byte becomes U+FFFD; the cut at 1 KiB falls inside an é, which is left out."""
    spec = js_bot(public_dir, "accents")
    record = play_series([spec, house_bot("random")], [(describe("classic", 2), 13)], LIMITS)[0]
    assert not record.faults
    trace = seat_of(record, 0)["trace"]
    assert trace
    for entry in trace[: GAME_STDERR_BYTES // DECISION_STDERR_BYTES]:
        # 3 bytes and 510 é fill 1023 bytes: the last byte kept is half an é, left out.
        assert entry["stderr"] == "\ufffdAB" + "\u00e9" * 510 and entry["truncated"] is True
