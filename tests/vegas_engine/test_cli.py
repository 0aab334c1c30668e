"""``python -m vegas_engine``: rules, play, replay, and how it reports bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import vegas_engine
from vegas_engine import log as game_logs

pytestmark = pytest.mark.slow

BOULEVARD_MODULES = ("big_notes", "neutral_dice", "biggies", "kickers", "rainbow", "slot_machine")


def cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "vegas_engine", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def assert_clean_error(run: subprocess.CompletedProcess[str], code: int, *names: str) -> str:
    """Exit ``code``, no traceback, and an error line naming every one of ``names``."""
    assert run.returncode == code, (run.returncode, run.stdout, run.stderr)
    assert "Traceback" not in run.stderr and "Traceback" not in run.stdout
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    message = next(line for line in lines if "error" in line.lower())
    for name in names:
        assert name in message, (name, message)
    return message


# -------------------------------------------------------------------- rules


def test_rules_lists_the_systems_their_options_and_seats() -> None:
    run = cli("rules")
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "classic" in out and "boulevard" in out
    assert "seats 2-5" in out and "seats 2-6" in out
    assert "neutral_dice" in out
    for name in BOULEVARD_MODULES:
        assert name in out


def test_rules_json_is_the_registry() -> None:
    run = cli("rules", "--json")
    assert run.returncode == 0, run.stderr
    systems = {system["id"]: system for system in json.loads(run.stdout)}
    assert {"classic", "boulevard"} <= set(systems)
    assert systems["classic"]["seats"] == [2, 3, 4, 5]
    assert systems["boulevard"]["seats"] == [2, 3, 4, 5, 6]
    assert systems["classic"]["rounds"] == systems["boulevard"]["rounds"] == 4
    neutral = next(o for o in systems["classic"]["options"] if o["name"] == "neutral_dice")
    assert neutral["default"] is False and neutral["seats"] == [2, 3, 4]
    assert neutral["allowed"] == [False, True]
    modules = {o["name"]: o for o in systems["boulevard"]["options"]}
    assert all(modules[name]["default"] is True for name in BOULEVARD_MODULES)


# --------------------------------------------------------------- play/replay


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """A boulevard game with options and per-seat policies, its log and JSON output."""
    log = tmp_path_factory.mktemp("cli") / "game.json"
    run = cli(
        "play",
        "--rules",
        "boulevard",
        "--players",
        "3",
        "--seed",
        "41",
        "--option",
        "rainbow=false",
        "--option",
        "slot_machine=off",
        "--option",
        "kickers",
        "--policy",
        "greedy",
        "--policy",
        "random",
        "--policy",
        "greedy",
        "--log",
        log,
        "--json",
    )
    assert run.returncode == 0, run.stderr
    return log, json.loads(run.stdout)


def test_play_with_options_policies_and_log(played: tuple[Path, dict[str, Any]]) -> None:
    log_path, output = played
    assert output["game"]["rules"] == "boulevard" and output["game"]["seats"] == 3
    assert output["game"]["seed"] == 41
    assert output["game"]["options"]["rainbow"] is False
    assert output["game"]["options"]["slot_machine"] is False
    assert output["game"]["options"]["kickers"] is True
    assert output["policies"] == ["greedy", "random", "greedy"]
    assert sorted(r["seat"] for r in output["result"]) == [0, 1, 2]
    log = json.loads(log_path.read_text())
    assert log["options"] == output["game"]["options"]
    assert log["seed"] == 41 and log["seats"] == 3
    assert log["events"][-1] == {"type": "game_end", "result": output["result"]}
    assert not any(e.get("casino") == 7 for e in log["events"])
    assert not any(e["type"] == "stock" and "rainbow" in e["notes"] for e in log["events"])


def test_play_human_output() -> None:
    run = cli("play", "--rules", "classic", "--players", "4", "--seed", "7")
    assert run.returncode == 0, run.stderr
    assert "classic, 4 seats, seed 7" in run.stdout
    assert run.stdout.count("seat ") >= 4 and "$" in run.stdout


def test_play_is_deterministic() -> None:
    args = ("play", "--rules", "classic", "--players", "2", "--seed", "3", "--json")
    assert cli(*args).stdout == cli(*args).stdout


def test_replay_of_a_played_log_succeeds(played: tuple[Path, dict[str, Any]]) -> None:
    log_path, output = played
    run = cli("replay", log_path, "--json")
    assert run.returncode == 0, run.stderr
    replayed = json.loads(run.stdout)
    assert replayed["ok"] is True
    assert replayed["result"] == output["result"]
    assert replayed["events"] == len(json.loads(log_path.read_text())["events"])
    human = cli("replay", log_path)
    assert human.returncode == 0, human.stderr
    assert "replay ok" in human.stdout
    for seat in output["result"]:
        assert f"${seat['money']:,}" in human.stdout


def test_replay_of_a_moves_log_plays_its_moves(
    played: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    log_path, output = played
    events = json.loads(log_path.read_text())
    state = vegas_engine.new_game(
        vegas_engine.describe(events["rules"], events["seats"], events["options"]),
        events["seed"],
        log="moves",
    )
    for event in events["events"]:
        if event["type"] == "decision" and not event["forced"]:
            state.apply_action(event["action"], event["seat"])
    moves = tmp_path / "moves.json"
    moves.write_text(game_logs.dumps(game_logs.game_log(state)))
    run = cli("replay", moves, "--json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == {
        "ok": True,
        "events": len(events["events"]),
        "result": output["result"],
    }
    decisions = sum(e["type"] == "decision" and not e["forced"] for e in events["events"])
    assert f"replay ok: {decisions} moves play to the log's result" in cli("replay", moves).stdout
    tampered = {**game_logs.game_log(state), "result": output["result"][::-1]}
    moves.write_text(game_logs.dumps(tampered))
    failed = cli("replay", moves)
    assert failed.returncode != 0 and "result" in failed.stderr


# ------------------------------------------------------------ corrupted logs


def _corrupt(tmp_path: Path, text: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "bad.json"
    path.write_text(text)
    return cli("replay", path)


def _first_free_decision(log: dict[str, Any]) -> int:
    return next(
        i for i, e in enumerate(log["events"]) if e["type"] == "decision" and not e["forced"]
    )


def test_truncated_log_is_reported(played: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    text = played[0].read_text()
    inside_a_string = text.index('"type"') + 3
    for cut in (len(text) // 2, len(text) - 5, 1, inside_a_string):
        message = assert_clean_error(_corrupt(tmp_path, text[:cut]), 1, "truncated")
        assert message.count("\n") == 0


def test_log_without_its_end_is_reported_as_truncated(
    played: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    log = json.loads(played[0].read_text())
    log["events"] = log["events"][:-40]
    assert_clean_error(_corrupt(tmp_path, json.dumps(log)), 1, "truncated", "game_end")


def test_non_json_log_is_reported(tmp_path: Path) -> None:
    assert_clean_error(_corrupt(tmp_path, "this is not a log"), 1, "not JSON")
    assert_clean_error(_corrupt(tmp_path, "[1, 2, 3]"), 1, "JSON object")
    path = tmp_path / "binary.json"
    path.write_bytes(b"\xff\xfe\xfa\x00\x01")
    assert_clean_error(cli("replay", path), 1, "corrupt")


@pytest.mark.parametrize(
    ("field", "value", "names"),
    [
        ("log_schema", 99, ["log_schema"]),
        ("seats", "three", ["seats"]),
        ("seats", 9, ["seats", "2, 3, 4, 5, 6"]),
        ("rules", "chess", ["chess", "classic", "boulevard"]),
        ("options", {"turbo": True}, ["turbo", "slot_machine"]),
        ("seed", -5, ["seed"]),
        ("events", {}, ["events"]),
    ],
)
def test_wrong_schema_field_is_reported(
    played: tuple[Path, dict[str, Any]], tmp_path: Path, field: str, value: Any, names: list[str]
) -> None:
    log = json.loads(played[0].read_text())
    log[field] = value
    assert_clean_error(_corrupt(tmp_path, json.dumps(log)), 1, *names)


def test_missing_header_field_is_reported(
    played: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    log = json.loads(played[0].read_text())
    del log["seed"]
    assert_clean_error(_corrupt(tmp_path, json.dumps(log)), 1, "seed", "missing")


def test_bad_event_is_reported(played: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    log = json.loads(played[0].read_text())
    log["events"][3]["type"] = "teleport"
    assert_clean_error(_corrupt(tmp_path, json.dumps(log)), 1, "events[3]", "teleport")
    log = json.loads(played[0].read_text())
    index = _first_free_decision(log)
    del log["events"][index]["action"]
    assert_clean_error(_corrupt(tmp_path, json.dumps(log)), 1, f"events[{index}]", "action")


def test_edited_decision_is_reported(played: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    log = json.loads(played[0].read_text())
    index = _first_free_decision(log)
    roll = log["events"][index - 1]
    assert roll["type"] == "roll"
    faces = sorted({f for faces in roll["dice"].values() for f in faces})
    original = log["events"][index]["action"]
    other = next(f"place {f}" for f in faces if f"place {f}" != original)
    log["events"][index]["action"] = other
    message = assert_clean_error(_corrupt(tmp_path, json.dumps(log)), 1, "replay differs")
    assert f"event {index + 1}" in message  # the next event no longer matches
    log["events"][index]["action"] = "place 9"
    message = assert_clean_error(_corrupt(tmp_path, json.dumps(log)), 1, f"event {index}")
    assert "illegal" in message


def test_edited_outcome_is_reported(played: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    log = json.loads(played[0].read_text())
    log["events"][-1]["result"][0]["money"] += 10_000
    index = len(log["events"]) - 1
    assert_clean_error(_corrupt(tmp_path, json.dumps(log)), 1, f"event {index}")
    log = json.loads(played[0].read_text())
    roll = next(i for i, e in enumerate(log["events"]) if e["type"] == "roll")
    log["events"][roll]["dice"]["die"][0] = 7
    assert_clean_error(_corrupt(tmp_path, json.dumps(log)), 1, f"event {roll}")


def test_missing_log_file_is_reported(tmp_path: Path) -> None:
    assert_clean_error(cli("replay", tmp_path / "nowhere.json"), 2, "nowhere.json")


# --------------------------------------------------------- bad arguments


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (["--rules", "poker", "--players", "4"], ["poker", "classic", "boulevard"]),
        (["--rules", "classic", "--players", "7"], ["7", "2, 3, 4, 5"]),
        (["--rules", "classic", "--players", "6"], ["6", "2, 3, 4, 5"]),
        (["--rules", "boulevard", "--players", "7"], ["7", "2, 3, 4, 5, 6"]),
        (["--rules", "classic", "--players", "4", "--option", "turbo"], ["turbo", "neutral_dice"]),
        (
            ["--rules", "classic", "--players", "4", "--option", "neutral_dice=maybe"],
            ["neutral_dice", "true", "false"],
        ),
        (
            ["--rules", "classic", "--players", "5", "--option", "neutral_dice"],
            ["neutral_dice", "2, 3, 4"],
        ),
        (
            ["--rules", "classic", "--players", "3", "--policy", "greedy", "--policy", "random"],
            ["3", "2"],
        ),
        (["--rules", "classic", "--players", "3", "--policy", "genius"], ["genius", "greedy"]),
    ],
)
def test_bad_play_arguments_exit_2_naming_the_allowed_values(
    args: list[str], names: list[str]
) -> None:
    assert_clean_error(cli("play", "--seed", "1", *args), 2, *names)


def test_argument_syntax_errors_exit_2() -> None:
    run = cli("play", "--rules", "classic", "--players", "four", "--seed", "1")
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "--players" in run.stderr
    run = cli("play", "--rules", "classic", "--seed", "1")
    assert run.returncode == 2 and "--players" in run.stderr
    run = cli("juggle")
    assert run.returncode == 2 and "rules" in run.stderr and "replay" in run.stderr


def _retype(log: dict[str, Any], how: str) -> None:
    """Change one value's JSON type but not its Python ``==`` value."""
    events = log["events"]
    if how == "seat true":
        decision = next(
            e for e in events if e["type"] == "decision" and e["seat"] == 1 and not e["forced"]
        )
        decision["seat"] = True
    elif how == "money as floats":
        round_end = next(e for e in events if e["type"] == "round_end")
        round_end["money"] = [float(value) for value in round_end["money"]]
    else:
        assert how == "round as true"
        events[0]["round"] = True


@pytest.mark.parametrize("how", ["seat true", "money as floats", "round as true"])
def test_log_with_retyped_values_is_reported(
    played: tuple[Path, dict[str, Any]], tmp_path: Path, how: str
) -> None:
    log = json.loads(played[0].read_text())
    _retype(log, how)
    assert json.dumps(log) != played[0].read_text().strip()
    run = _corrupt(tmp_path, json.dumps(log))
    assert run.returncode != 0, "a log that is not the engine's log replayed as valid"
    assert "Traceback" not in run.stderr
