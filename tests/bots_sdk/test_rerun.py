"""``rerun``: a recorded seat's requests put to a bot again, and its first different answer.

Games are played by the real referee (sandboxed bots, as ``play`` runs them),
their logs written in both forms, then rerun through the CLI as a user runs it
(a subprocess) or through :func:`bots_sdk.rerun.rerun`.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bots_sdk.launcher import BotSpec, build_bot, house_bot, resolve_bot, sandbox_problem
from bots_sdk.protocol import Limits
from bots_sdk.referee import GameRecord, play_series
from bots_sdk.rerun import RerunError, read_log, rerun
from vegas_engine import describe

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        sandbox_problem() is not None, reason=f"sandbox unavailable: {sandbox_problem()}"
    ),
]

REPO = Path(__file__).resolve().parents[2]
KEY = bytes(range(32))
LIMITS = Limits(startup_ms=20_000, decision_ms=5_000, bank_ms=120_000)

#: An SDK bot whose choices come from its seeded rng; CHANGE_AT (1-based) makes it answer
#: that decision otherwise (the next legal action), as an edited version of it would.
SEEDED = """\
import sys
from bots_sdk import Bot, run

CHANGE_AT = {change_at}


class Seeded(Bot):
    name = "seeded"
    decisions = 0

    def act(self, observation):
        self.decisions += 1
        legal = observation["legal_actions"]
        index = self.rng.randrange(len(legal))
        if self.decisions == CHANGE_AT:
            index = (index + 1) % len(legal)
            print("changed my mind at", self.decisions, file=sys.stderr)
            self.note("the new idea")
        return legal[index]


if __name__ == "__main__":
    run(Seeded)
"""

#: Crashes at its 4th decision: the recorded seat then forfeits, its fallback plays on.
CRASH = "        if self.decisions == 4:\n            raise SystemExit(3)\n"
CRASHER = SEEDED.replace("        self.decisions += 1\n", "        self.decisions += 1\n" + CRASH)


#: Without the SDK: its answer hangs on every byte it was sent since ``new_game`` (that
#: message, each request with its id, observation and times), so it answers a rerun the
#: same only if every request is the one the referee sent.
HASHER = """\
import hashlib, json, sys, time

SLEEP_AT = {sleep_at}
seen = hashlib.sha256()
requests = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "new_game":
        seen = hashlib.sha256()
    seen.update(line.encode())
    if message["type"] == "hello":
        print(json.dumps({{"type": "ready", "protocol": 1}}), flush=True)
    elif message["type"] == "request":
        requests += 1
        if requests == SLEEP_AT:
            time.sleep(message["time_left_ms"] / 1000 + 0.5)
        legal = message["observation"]["legal_actions"]
        index = int(seen.hexdigest(), 16) % len(legal)
        reply = {{"type": "action", "id": message["id"], "action": legal[index]}}
        print(json.dumps(reply), flush=True)
    elif message["type"] == "shutdown":
        break
"""


@pytest.fixture(scope="module")
def public_dir() -> Iterator[Path]:
    """A folder the bot user can read (pytest's tmp_path is private to root)."""
    folder = Path(tempfile.mkdtemp(prefix="vegas-rerun-test-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def bot_file(folder: Path, name: str, source: str) -> BotSpec:
    path = folder / name
    path.write_text(source)
    path.chmod(0o644)
    return build_bot(resolve_bot(str(path)))


def seeded(folder: Path, name: str, change_at: int = 0) -> BotSpec:
    return bot_file(folder, name, SEEDED.format(change_at=change_at))


def played(specs: list[BotSpec], rules: str, seed: int) -> GameRecord:
    (record,) = play_series(specs, [(describe(rules, len(specs)), seed)], LIMITS, bot_seed_key=KEY)
    return record


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "bots_sdk", "rerun", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )


def written(folder: Path, name: str, log: dict[str, Any], *, zipped: bool = False) -> Path:
    path = folder / name
    data = json.dumps(log).encode()
    path.write_bytes(gzip.compress(data) if zipped else data)
    return path


def test_the_same_bot_answers_every_decision_as_recorded_in_both_forms(public_dir: Path) -> None:
    bot = seeded(public_dir, "same.py")
    record = played([bot, house_bot("greedy")], "classic", 11)
    events = written(public_dir, "same-events.json", record.log)
    moves = written(public_dir, "same-moves.json.gz", record.moves_log, zipped=True)
    for path in (events, moves):
        run = cli(str(path), "--seat", "0", str(public_dir / "same.py"))
        assert run.returncode == 0, run.stdout + run.stderr
        decisions = len(record.seats[0].decision_ms)
        assert f"answered all {decisions} decisions of seat 0" in run.stdout


def test_a_changed_decision_is_the_one_reported_with_both_answers(public_dir: Path) -> None:
    seeded(public_dir, "v1.py")
    record = played([seeded(public_dir, "v1.py"), house_bot("greedy")], "classic", 12)
    path = written(public_dir, "changed.json", record.moves_log)
    seeded(public_dir, "v2.py", change_at=3)
    run = cli(str(path), "--seat", "0", str(public_dir / "v2.py"), "--json")
    assert run.returncode == 1, run.stdout + run.stderr
    report = json.loads(run.stdout)
    (difference,) = report["differences"]
    assert difference["decision"] == 3
    assert report["compared"] == 3
    trace = record.moves_log["referee"]["seats"][0]["trace"]
    assert difference["move"] == trace[2]["move"]
    assert difference["request"] == trace[2]["request"]
    recorded_seat, recorded_action = record.moves_log["moves"][difference["move"]]
    assert (recorded_seat, difference["recorded"]) == (0, recorded_action)
    legal = difference["legal_actions"]
    assert difference["answered"] == legal[(legal.index(recorded_action) + 1) % len(legal)]
    assert difference["note"] == "the new idea"
    assert "changed my mind at 3" in difference["stderr"]
    # In words, and every difference with --all (the rest agree: the rng is unchanged).
    words = cli(str(path), "--seat", "0", str(public_dir / "v2.py"), "--all")
    assert words.returncode == 1
    assert f"decision 3 of seat 0 (move {difference['move']}" in words.stdout
    assert f"recorded: {recorded_action}" in words.stdout
    assert f"v2: {difference['answered']}" in words.stdout
    assert "1 different of" in words.stdout


def test_the_bot_seed_decides_whether_a_seeded_bot_answers_the_same(public_dir: Path) -> None:
    bot = seeded(public_dir, "rng.py")
    record = played([house_bot("greedy"), bot, house_bot("random")], "royale", 13)
    log = record.moves_log
    assert rerun(log, 1, bot).same
    assert rerun(log, 2, house_bot("random")).same
    other_seed = log["referee"]["seats"][1]["bot_seed"] ^ 1
    assert not rerun(log, 1, bot, bot_seed=other_seed).same
    # Without the seat's seed (another player's download) it must be given.
    private = json.loads(json.dumps(log))
    del private["referee"]["seats"][1]["bot_seed"]
    with pytest.raises(RerunError, match="bot seed"):
        rerun(private, 1, bot)
    assert rerun(private, 1, bot, bot_seed=log["referee"]["seats"][1]["bot_seed"]).same


def test_the_card_games_simultaneous_choices_are_rerun_exactly(public_dir: Path) -> None:
    bot = seeded(public_dir, "cards.py")
    record = played([bot, house_bot("montecarlo"), house_bot("random")], "cardgame", 14)
    for seat, spec in ((0, bot), (2, house_bot("random"))):
        result = rerun(record.moves_log, seat, spec)
        assert result.same
        assert result.compared == len(record.seats[seat].decision_ms) > 5


def test_a_js_kit_without_the_sdk_reruns_sandboxed(public_dir: Path) -> None:
    folder = public_dir / "jskit"
    made = subprocess.run(
        [sys.executable, "-m", "bots_sdk", "new", str(folder), "--lang", "js"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        check=True,
    )
    assert made.returncode == 0
    for path in [folder, *folder.iterdir()]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    kit = build_bot(resolve_bot(str(folder)))
    record = played([house_bot("gambler"), kit], "sixdice", 15)
    path = written(public_dir, "js.json", record.log)
    run = cli(str(path), "--seat", "1", str(folder))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "answered all" in run.stdout


def test_a_seat_that_faulted_is_compared_up_to_its_fault(public_dir: Path) -> None:
    crasher = bot_file(public_dir, "crasher.py", CRASHER.format(change_at=0))
    record = played([crasher, house_bot("greedy")], "classic", 16)
    assert record.seats[0].fault is not None
    good = seeded(public_dir, "good.py")
    result = rerun(record.moves_log, 0, good)
    assert result.same
    assert result.answered == result.compared == 3
    assert any("faulted at its decision 4" in remark for remark in result.remarks)
    # The same from the events form, which has no trace to go by.
    untraced = json.loads(json.dumps(record.log))
    del untraced["referee"]["seats"][0]["trace"]
    assert rerun(untraced, 0, good).compared == 3


def test_the_bot_faulting_now_is_the_difference(public_dir: Path) -> None:
    bot = seeded(public_dir, "fine.py")
    record = played([bot, house_bot("greedy")], "classic", 17)
    crasher = bot_file(public_dir, "crash-now.py", CRASHER.format(change_at=0))
    result = rerun(record.moves_log, 0, crasher, every_difference=True)
    (difference,) = result.differences
    assert difference.decision == 4
    assert difference.answered is None
    assert difference.fault is not None
    assert difference.fault.kind.value == "crashed"  # exit status 3


@pytest.mark.parametrize(
    ("make", "args", "message"),
    [
        (lambda folder: folder / "missing.json", ["--seat", "0", "random"], "cannot read it"),
        (
            lambda folder: written_text(folder, "not.json", "hello"),
            ["--seat", "0", "random"],
            "not JSON",
        ),
        (
            lambda folder: written_text(folder, "bare.json", json.dumps({"log_schema": 1})),
            ["--seat", "0", "random"],
            "not a game log",
        ),
    ],
    ids=["missing", "not-json", "not-a-log"],
)
def test_bad_input_exits_2_with_what_to_change(
    public_dir: Path, make: Any, args: list[str], message: str
) -> None:
    path = make(public_dir)
    run = cli(str(path), *args)
    assert run.returncode == 2
    assert message in run.stderr
    assert "Traceback" not in run.stderr


def written_text(folder: Path, name: str, text: str) -> Path:
    (folder / name).write_text(text)
    return folder / name


def test_a_seat_the_game_does_not_have_or_an_engine_log_is_refused(public_dir: Path) -> None:
    record = played([house_bot("random"), house_bot("greedy")], "classic", 18)
    path = written(public_dir, "two.json", record.moves_log)
    run = cli(str(path), "--seat", "2", "random")
    assert run.returncode == 2
    assert "--seat 2: the game has seats 0-1" in run.stderr
    engine_only = {k: v for k, v in record.moves_log.items() if k != "referee"}
    with pytest.raises(RerunError, match="no referee section"):
        rerun(engine_only, 0, house_bot("random"))


def test_a_play_log_file_holds_a_game_a_line(public_dir: Path) -> None:
    first = played([house_bot("random"), house_bot("greedy")], "classic", 19)
    second = played([house_bot("greedy"), house_bot("random")], "classic", 20)
    path = public_dir / "play.jsonl"
    path.write_text(json.dumps(first.log) + "\n" + json.dumps(second.log) + "\n")
    assert read_log(str(path), game=2)["seed"] == 20
    with pytest.raises(RerunError, match="holds 2 games: pick one with --game 1-2"):
        read_log(str(path), game=3)
    assert rerun(read_log(str(path), game=2), 1, house_bot("random")).same


@pytest.mark.parametrize("rules", ["cardgame", "royale", "classic"])
def test_every_request_is_the_one_the_referee_sent(public_dir: Path, rules: str) -> None:
    hasher = bot_file(public_dir, "hasher.py", HASHER.format(sleep_at=0))
    specs = [hasher, house_bot("montecarlo"), house_bot("random")]
    record = played(specs, rules, 21)
    result = rerun(record.moves_log, 0, hasher)
    assert result.same, result.differences
    assert result.compared == len(record.seats[0].decision_ms) > 5
    # From the events form, without the trace's request ids: ids counted from 1, as a
    # fresh process's are.
    untraced = json.loads(json.dumps(record.log))
    del untraced["referee"]["seats"][0]["trace"]
    assert rerun(untraced, 0, hasher).same


def test_a_bot_slower_than_its_time_left_waits_with_wait_ms(public_dir: Path) -> None:
    fast = bot_file(public_dir, "hash-fast.py", HASHER.format(sleep_at=0))
    limits = Limits(startup_ms=20_000, decision_ms=2_000, bank_ms=60_000)
    description = describe("classic", 2)
    (record,) = play_series([fast, house_bot("greedy")], [(description, 22)], limits)
    assert not record.faults
    slow = bot_file(public_dir, "hash-slow.py", HASHER.format(sleep_at=2))
    timed_out = rerun(record.moves_log, 0, slow)
    (difference,) = timed_out.differences
    assert difference.decision == 2
    assert difference.fault is not None and difference.fault.kind.value == "timeout"
    # Waiting longer, the request still says the time the seat had: the same answers.
    assert rerun(record.moves_log, 0, slow, wait_ms=60_000).same
