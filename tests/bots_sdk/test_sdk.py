"""The Bot base class and run(): real bot processes playing real games."""

from __future__ import annotations

import json
from pathlib import Path

from bots_sdk.launcher import BotSpec, house_bot, resolve_bot
from bots_sdk.protocol import Limits
from bots_sdk.referee import Match, play_series
from tests.bots_sdk.botkit import RAW_BOT, processes_with, sdk_bot
from vegas_engine import describe
from vegas_engine.log import loads
from vegas_engine.replay import replay

CHATTY = """
import os, sys
from bots_sdk import Bot, run


class Chatty(Bot):
    name = "chatty"

    def on_game_start(self, seat, game):
        print("start", seat, game["rules"], "keys", sorted(game))

    def act(self, observation):
        # print() must not reach the protocol; nor may a raw write to fd 1.
        print("thinking about", observation["legal_actions"], self.time_left_ms)
        os.write(1, b"written to fd 1\\n")
        assert 0 < self.seconds_left() <= self.time_left_ms / 1000
        assert self.bank_left_ms >= self.time_left_ms
        assert observation["seat"] == self.seat
        return observation["legal_actions"][0]

    def on_game_end(self, result):
        with open("ends.jsonl", "a") as handle:
            handle.write(json.dumps({"seat": self.seat, "result": result}) + "\\n")


import json

if __name__ == "__main__":
    run(Chatty)
"""


def test_print_is_harmless_and_hooks_run(tmp_path: Path) -> None:
    bot = sdk_bot(tmp_path, CHATTY, name="chatty")
    with Match([bot, house_bot("random")], Limits()) as match:
        records = [
            match.play(describe("classic", 2, seed), seating)
            for seed, seating in ((1, [0, 1]), (2, [1, 0]))
        ]
    assert all(not record.faults for record in records)
    ends = [json.loads(line) for line in (tmp_path / "ends.jsonl").read_text().splitlines()]
    assert [end["seat"] for end in ends] == [0, 1]
    assert ends[0]["result"] == records[0].result
    # The process played both games: one start-up, stderr got the prints.
    assert records[0].seats[0].startup_ms is not None
    assert records[1].seats[1].startup_ms is None
    (outcome,) = match.outcomes[0]
    assert outcome.exit_code == 0 and not outcome.killed
    stderr = outcome.stderr_tail.decode()
    assert "written to fd 1" in stderr
    # The seed is never sent: it would let a bot replay the dice to come.
    assert "start 1 classic keys ['options', 'rules', 'seats']" in stderr


def test_raw_bot_without_sdk_plays_a_full_game(tmp_path: Path) -> None:
    """A bot in plain Python (json + sys only), run isolated from the SDK."""
    source = RAW_BOT.format(mode="ok", at=0, marker=str(tmp_path))
    assert "bots_sdk" not in source
    (tmp_path / "main.py").write_text(source)
    spec = resolve_bot(str(tmp_path), trusted=True)
    spec = BotSpec(
        name="raw", bot_dir=spec.bot_dir, main="main.py", trusted=True, env={"PYTHONPATH": ""}
    )
    records = play_series(
        [spec, house_bot("greedy"), house_bot("random")],
        [describe("classic", 3, 4), describe("boulevard", 3, 5)],
    )
    for record in records:
        assert not record.faults
        assert record.log["referee"]["seats"][0]["decisions"] > 5
        replay(loads(json.dumps(record.log)))  # the referee's log still replays
    assert processes_with(str(tmp_path)) == []


def test_executable_bot_in_any_language(tmp_path: Path) -> None:
    """An executable file (here with a shebang) is a bot of its own."""
    program = tmp_path / "bot"
    program.write_text("#!/usr/bin/env python3\n" + RAW_BOT.format(mode="ok", at=0, marker="x"))
    program.chmod(0o755)
    spec = resolve_bot(str(program), trusted=True)
    assert spec.main is None
    (record,) = play_series([spec, house_bot("random")], [describe("classic", 2, 9)])
    assert not record.faults
    assert record.seats[0].startup_ms is not None
