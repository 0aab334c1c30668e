"""The Bot base class and run(): real bot processes playing real games."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path

import pytest

from bots_sdk.launcher import BotSpec, house_bot, resolve_bot
from bots_sdk.protocol import Limits
from bots_sdk.referee import Match, bot_seed, new_bot_seed_key, play_series
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
            match.play(describe("classic", 2), seed, seating)
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
        [(describe("classic", 3), 4), (describe("boulevard", 3), 5)],
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
    (record,) = play_series([spec, house_bot("random")], [(describe("classic", 2), 9)])
    assert not record.faults
    assert record.seats[0].startup_ms is not None


SEED_RECORDER = """
from bots_sdk import Bot, run


class SeedRecorder(Bot):
    def on_game_start(self, seat, game):
        with open("seeds.txt", "a") as handle:
            handle.write(f"{seat} {self.bot_seed}\\n")

    def act(self, observation):
        return observation["legal_actions"][0]


if __name__ == "__main__":
    run(SeedRecorder)
"""


def test_bot_seeds_come_from_the_match_key_and_repeat_with_it(tmp_path: Path) -> None:
    key = bytes(range(32))
    recorder = sdk_bot(tmp_path, SEED_RECORDER, name="seeds")
    games = [(describe("classic", 2), 5), (describe("classic", 2), 5)]
    first = play_series([recorder, house_bot("random")], games, bot_seed_key=key)
    seen = [line.split() for line in (tmp_path / "seeds.txt").read_text().splitlines()]
    # seats rotate: the recorder sits at 0, then at 1
    assert seen == [["0", str(bot_seed(5, 0, key=key))], ["1", str(bot_seed(5, 1, key=key))]]
    assert [record.bot_seed_key for record in first] == [key, key]
    assert repr(key) not in repr(first[0])

    # The house random bot draws from its seed: the same key plays the same games,
    # another key other games.
    randoms = [house_bot("random"), house_bot("random")]
    same = play_series(randoms, games, bot_seed_key=key)
    assert [r.log["events"] for r in play_series(randoms, games, bot_seed_key=key)] == [
        r.log["events"] for r in same
    ]
    other = play_series(randoms, games, bot_seed_key=bytes(32))
    assert [r.log["events"] for r in other] != [r.log["events"] for r in same]

    # Without a key a match draws one, records it (not in the log), and it repeats the match.
    drawn = play_series(randoms, games)
    drawn_key = drawn[0].bot_seed_key
    assert len(drawn_key) == 32 and drawn_key not in (key, bytes(32))
    assert all(drawn_key.hex() not in json.dumps(record.log) for record in drawn)
    repeated = play_series(randoms, games, bot_seed_key=drawn_key)
    assert [r.log["events"] for r in repeated] == [r.log["events"] for r in drawn]


def test_bot_seed_keys_must_be_secret_sized_bytes() -> None:
    assert bot_seed(1, 0, key=b"k" * 16) != bot_seed(1, 1, key=b"k" * 16)
    with pytest.raises(ValueError, match="16 bytes"):
        bot_seed(1, 0, key=b"k" * 15)
    with pytest.raises(ValueError, match="16 bytes"):
        Match([house_bot("random")], bot_seed_key=b"")
    with pytest.raises(TypeError, match="bytes"):
        Match([house_bot("random")], bot_seed_key="a string of 32 characters.......")  # type: ignore[arg-type]
    assert new_bot_seed_key() != new_bot_seed_key()


def test_a_bot_cannot_recover_the_game_seed_from_its_bot_seed() -> None:
    """The hostile bot's search (small seeds, guessable keys) against real bot seeds."""
    path = Path(__file__).parent / "hostile" / "game_seed_recovery.py"
    spec = importlib.util.spec_from_file_location("game_seed_recovery", path)
    assert spec is not None and spec.loader is not None
    recovery = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(recovery)
    # Control: the bare hash the referee used to send gives the seed away at once.
    bare = hashlib.sha256(b"vegas-arena bot seed/5/1").digest()
    assert recovery.recover(int.from_bytes(bare[:8], "big") >> 1, 1) == [5]
    for key in (new_bot_seed_key(), b"\x01" * 16):
        assert recovery.recover(bot_seed(5, 1, key=key), 1) == []
