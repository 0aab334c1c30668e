"""``python -m bots_sdk``: new, play, tournament, validate, as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.bots_sdk.botkit import raw_bot
from vegas_engine.log import loads
from vegas_engine.replay import replay

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bots_sdk", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        timeout=120,
        check=False,
    )


def test_new_writes_a_starter_bot_that_plays(tmp_path: Path) -> None:
    made = cli("new", str(tmp_path / "lucky_seven"))
    assert made.returncode == 0, made.stderr
    main = tmp_path / "lucky_seven" / "main.py"
    assert main.is_file() and "class LuckySeven(Bot)" in main.read_text()
    assert len(main.read_text().splitlines()) < 60  # one short file
    again = cli("new", str(tmp_path / "lucky_seven"))
    assert again.returncode == 2 and "exists" in again.stderr
    played = cli(
        "play", str(tmp_path / "lucky_seven"), "random",
        "--rules", "classic", "--players", "2", "--no-sandbox", "--json",
    )  # fmt: skip
    assert played.returncode == 0, played.stderr
    (game,) = json.loads(played.stdout)["games"]
    assert game["players"] == ["lucky_seven", "random"]
    assert not any(seat["forfeited"] for seat in game["seats"])
    validated = cli("validate", str(tmp_path / "lucky_seven"), "--no-sandbox")
    assert validated.returncode == 0, validated.stdout + validated.stderr
    assert validated.stdout.startswith("ok: lucky_seven")


def test_play_human_output_json_and_logs(tmp_path: Path) -> None:
    log = tmp_path / "games.jsonl"
    played = cli(
        "play", "greedy", "random", "--rules", "classic", "--players", "3",
        "--seed", "4", "--games", "3", "--log", str(log), "--no-sandbox",
    )  # fmt: skip
    assert played.returncode == 0, played.stderr
    out = played.stdout
    assert "filled with the house bot random" in out
    assert out.count("game ") >= 3 and "totals over 3 games" in out
    assert "seat 0 (greedy)" in out and "random#2" in out
    logs = [loads(line) for line in log.read_text().splitlines()]
    assert [entry["seed"] for entry in logs] == [4, 5, 6]
    for entry in logs:
        replay(entry)
        assert len(entry["referee"]["seats"]) == 3


def test_play_reports_a_faulty_bot(tmp_path: Path) -> None:
    bot = raw_bot(tmp_path, "illegal", at=2)
    played = cli(
        "play", str(bot.bot_dir / str(bot.main)), "random",
        "--rules", "classic", "--players", "2", "--no-sandbox",
    )  # fmt: skip
    assert played.returncode == 0
    assert "FORFEITED" in played.stdout and "illegal_action" in played.stdout


def test_tournament_table_and_json() -> None:
    run = cli(
        "tournament", "greedy", "random", "random",
        "--rules", "classic", "--players", "2", "--games", "4", "--no-sandbox",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "12/12 games" in run.stderr  # the progress bar
    repeat, *lines = run.stdout.splitlines()
    assert repeat.startswith("seed ") and "repeat this run with --seed" in repeat
    assert "Elo (95% CI)" in lines[0]
    assert lines[1].startswith("greedy ")  # best Elo first
    assert "±" in lines[1]
    as_json = cli(
        "tournament", "greedy", "random",
        "--rules", "classic", "--players", "2", "--games", "4", "--no-sandbox", "--json",
    )  # fmt: skip
    standings = json.loads(as_json.stdout)["standings"]
    assert [s["games"] for s in standings] == [4, 4]
    assert standings[0]["elo_low"] <= standings[0]["elo"] <= standings[0]["elo_high"]


def test_validate_fails_with_request_reply_and_stderr(tmp_path: Path) -> None:
    bot = raw_bot(tmp_path, "garbage", at=2)
    run = cli("validate", str(bot.bot_dir / str(bot.main)), "--no-sandbox")
    assert run.returncode == 1
    assert run.stdout.startswith("FAILED: bot_garbage")
    assert "garbage:" in run.stdout and "'id': 2" in run.stdout  # the request
    assert "i would like to place 3 please" in run.stdout  # the reply
    assert "fault now: garbage" in run.stdout  # the stderr tail
    as_json = cli("validate", str(bot.bot_dir / str(bot.main)), "--no-sandbox", "--json")
    report = json.loads(as_json.stdout)
    assert as_json.returncode == 1 and not report["ok"]
    assert report["seat"]["fault"]["request"]["id"] == 2


def test_bad_input_exits_2(tmp_path: Path) -> None:
    missing = cli("play", str(tmp_path / "nope.py"), "--rules", "classic", "--players", "2")
    assert missing.returncode == 2 and "no such file" in missing.stderr
    rules = cli("play", "random", "--rules", "poker", "--players", "2", "--no-sandbox")
    assert rules.returncode == 2 and "unknown rule system" in rules.stderr
    seats = cli("play", "random", "--rules", "classic", "--players", "9", "--no-sandbox")
    assert seats.returncode == 2 and "seats" in seats.stderr


def test_a_run_prints_its_seed_and_key_and_repeats_exactly_with_them() -> None:
    first = cli("play", "greedy", "random", "--rules", "classic", "--players", "2", "--json")
    assert first.returncode == 0, first.stderr
    played = json.loads(first.stdout)
    assert played["seed"] >= 0 and len(bytes.fromhex(played["bot_seed_key"])) == 32
    again = cli(
        "play", "greedy", "random", "--rules", "classic", "--players", "2", "--json",
        "--seed", str(played["seed"]), "--bot-seed-key", played["bot_seed_key"],
    )  # fmt: skip
    # The same dice and the same bot seeds: the same game, move for move.
    results = [game["result"] for game in json.loads(again.stdout)["games"]]
    assert results == [game["result"] for game in played["games"]]
    other = cli("play", "greedy", "random", "--rules", "classic", "--players", "2", "--json")
    assert json.loads(other.stdout)["seed"] != played["seed"]
    bad = cli("play", "greedy", "--rules", "classic", "--players", "2", "--bot-seed-key", "zz")
    assert bad.returncode == 2 and "--bot-seed-key" in bad.stderr


NOTING_BOT = """\
import sys
from bots_sdk import Bot, run


class Noting(Bot):
    def act(self, observation):
        legal = observation["legal_actions"]
        print(f"weighing {len(legal)} actions", file=sys.stderr)
        self.note(f"chose {legal[-1]}")
        return legal[-1]


if __name__ == "__main__":
    run(Noting)
"""


def test_play_shows_notes_and_stderr_decision_by_decision_and_logs_them(tmp_path: Path) -> None:
    (tmp_path / "noting.py").write_text(NOTING_BOT)
    log = tmp_path / "games.jsonl"
    common = ["--rules", "classic", "--players", "2", "--seed", "8", "--no-sandbox"]
    bot = str(tmp_path / "noting.py")
    plain = cli("play", bot, "greedy", *common)
    assert plain.returncode == 0, plain.stderr
    assert "(seat 0 sent notes or stderr: --debug shows them" in plain.stdout
    assert "note:" not in plain.stdout

    debug = cli("play", bot, "greedy", *common, "--debug", "--log", str(log))
    assert debug.returncode == 0, debug.stderr
    (entry,) = [loads(line) for line in log.read_text().splitlines()]
    trace = entry["referee"]["seats"][0]["trace"]
    assert trace and "trace" in entry["referee"]["seats"][1]  # greedy's: no notes
    out = debug.stdout
    assert "seat 0 (noting), decision by decision:" in out and "seat 1 (greedy)," not in out
    # Each decision: the move it made, then its note and stderr, in order.
    for step in trace:
        action = step["note"].removeprefix("chose ")
        shown = f"    move {step['move']}: {action} ("
        assert out.count(shown) == 1
        block = out[out.index(shown) :].splitlines()
        assert block[1] == f"      note: {step['note']}"
        assert block[2] == f"      stderr: {step['stderr'].rstrip()}"
        assert step["stderr"].startswith("weighing ")
    as_json = cli("play", bot, "greedy", *common, "--debug", "--json")
    (game,) = json.loads(as_json.stdout)["games"]
    assert [step["note"] for step in game["seats"][0]["trace"]] == [s["note"] for s in trace]
