"""The pre-flight: a game no bot can tell from any other, its draws recorded.

A bot that recognised its pre-flight could play legally there only (the
old pre-flight always seated it at seat 1 of its first game) and forfeit
on the ladders. The seat, seed and opponents are drawn from the system's
random source; what the bot reads is recorded here by the bot itself.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bots_sdk.games import GameSetup
from bots_sdk.launcher import BotSpec, house_bot
from bots_sdk.preflight import OPPONENTS, draw_opponents, draw_seat, preflight
from tests.bots_sdk.test_cli import cli

# A plain-protocol bot that writes every line it reads to $RECORD. With $HOSTILE it
# plays legally only at the old pre-flight's tell, seat 1 of game 1, and cheats elsewhere.
RECORDER = """\
import json, os, sys
record = open(os.environ["RECORD"], "a")
hostile = os.environ.get("HOSTILE") == "1"
for line in sys.stdin:
    record.write(line)
    record.flush()
    message = json.loads(line)
    if message["type"] == "hello":
        reply = {"type": "ready", "protocol": 1}
    elif message["type"] == "request":
        legal = message["observation"]["legal_actions"]
        tell = (message["observation"]["seat"], message["game_id"]) == (1, 1)
        action = legal[0] if tell or not hostile else "place 9"
        reply = {"type": "action", "id": message["id"], "action": action}
    elif message["type"] == "shutdown":
        break
    else:
        continue
    print(json.dumps(reply), flush=True)
"""

CLASSIC_4 = GameSetup("classic", 4)


def recorder(tmp_path: Path, *, hostile: bool = False) -> tuple[BotSpec, Path]:
    """The recording bot (trusted, bare) and the file it writes."""
    (tmp_path / "main.py").write_text(RECORDER)
    record = tmp_path / "received.jsonl"
    env = {"RECORD": str(record), "HOSTILE": "1" if hostile else "0"}
    return BotSpec(name="recorder", bot_dir=tmp_path, trusted=True, env=env), record


def received(record: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in record.read_text().splitlines()]


def test_the_seat_and_the_opponents_are_drawn_over_every_choice() -> None:
    assert {draw_seat(4) for _ in range(400)} == {0, 1, 2, 3}
    drawn = [spec.name for _ in range(100) for spec in draw_opponents(3)]
    assert set(drawn) == set(OPPONENTS)


def test_the_bot_is_told_the_seat_and_game_id_the_report_records(tmp_path: Path) -> None:
    bot, record = recorder(tmp_path)

    report = preflight(bot, CLASSIC_4, seat=2, game_id=3)

    assert report.ok, report.describe()
    messages = received(record)
    assert [m["type"] for m in messages[:2]] == ["hello", "new_game"]
    assert (messages[1]["seat"], messages[1]["game_id"]) == (2, 3)
    requests = [m for m in messages if m["type"] == "request"]
    assert requests and all(m["game_id"] == 3 for m in requests)
    assert all(m["observation"]["seat"] == 2 for m in requests)
    assert (report.seat.seat, report.to_json()["game_id"]) == (2, 3)
    assert report.to_json()["seat"]["seat"] == 2
    assert len(report.opponents) == 3 and set(report.opponents) <= set(OPPONENTS)
    assert "seat 2" in report.describe()


def test_the_opponents_given_take_the_other_seats_in_order(tmp_path: Path) -> None:
    bot, _ = recorder(tmp_path)
    opponents = [house_bot("random"), house_bot("gambler"), house_bot("greedy")]

    report = preflight(bot, CLASSIC_4, seat=1, opponents=opponents)

    assert report.ok
    assert [seat.name for seat in report.record.seats] == [
        "random",
        "recorder",
        "gambler",
        "greedy",
    ]
    assert report.opponents == ("random", "gambler", "greedy")
    with pytest.raises(ValueError, match="4 seats take 3 opponents, got 1"):
        preflight(bot, CLASSIC_4, opponents=opponents[:1])
    with pytest.raises(ValueError, match="seat 4 is no seat of 4"):
        preflight(bot, CLASSIC_4, seat=4)


def test_a_bot_legal_only_at_the_old_preflight_s_seat_no_longer_passes(tmp_path: Path) -> None:
    """It passed every pre-flight at seat 1 of game 1; now its seat is drawn: it passes
    only when drawn there (1 in 4), so ten pre-flights all pass once in a million."""
    bot, _ = recorder(tmp_path, hostile=True)

    reports = [preflight(bot, CLASSIC_4) for _ in range(10)]

    assert all(report.ok == (report.seat.seat == 1) for report in reports)
    assert not all(report.ok for report in reports)
    failed = next(report for report in reports if not report.ok)
    assert failed.fault is not None and failed.fault.kind.value == "illegal_action"


def test_validate_repeats_a_seat_and_refuses_one_the_game_has_not(tmp_path: Path) -> None:
    bot = tmp_path / "main.py"
    bot.write_text(RECORDER.replace('os.environ["RECORD"]', "os.devnull"))

    seated = cli(
        "validate", str(bot), "--no-sandbox", "--players", "2", "--seat", "0", "--seed", "7"
    )
    assert seated.returncode == 0, seated.stdout + seated.stderr
    assert "seed 7, seat 0" in seated.stdout
    refused = cli("validate", str(bot), "--no-sandbox", "--players", "2", "--seat", "2")
    assert refused.returncode == 2
    assert "--seat: a game of 2 seats has seats 0-1" in refused.stderr
