"""The Bot base class in-process: ``self.rng`` is seeded with ``bot_seed`` at each new game."""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
from typing import Any

from bots_sdk import Bot, protocol
from bots_sdk.bot import serve
from bots_sdk.protocol import Limits
from vegas_engine import describe, new_game


class Draws(Bot):
    """Answers with its first legal action and records three draws of ``self.rng``."""

    def __init__(self) -> None:
        super().__init__()
        self.draws: list[list[float]] = []

    def act(self, observation: Any) -> str:
        self.draws.append([self.rng.random() for _ in range(3)])
        legal: list[str] = observation["legal_actions"]
        return legal[0]


def session(bot: Bot, seeds: list[int]) -> list[dict[str, Any]]:
    """One game start and one request per bot seed, through the real protocol loop."""
    state = new_game(describe("classic", 2), 1)
    observation = state.observe(state.to_move()[0])
    lines = [protocol.hello(Limits())]
    for game_id, seed in enumerate(seeds):
        seat = observation["seat"]
        game = {"rules": "classic", "seats": 2, "options": observation["options"]}
        lines.append(protocol.new_game(game_id, seat, game, 20_000, seed))
        lines.append(protocol.request(game_id, game_id, observation, 1000, 20_000))
    lines.append(protocol.shutdown())
    out = io.BytesIO()
    serve(bot, io.BytesIO(b"".join(protocol.encode(line) for line in lines)), out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_rng_is_seeded_by_bot_seed_at_each_new_game() -> None:
    bot = Draws()
    replies = session(bot, [7, 8, 7])
    assert [reply["type"] for reply in replies] == ["ready", "action", "action", "action"]
    first, second, again = bot.draws
    assert first == again != second
    expected = random.Random(7)
    assert first == [expected.random() for _ in range(3)]


def test_a_bot_may_still_bring_its_own_generator() -> None:
    class Own(Draws):
        def on_game_start(self, seat: int, game: Any) -> None:
            self.rng = random.Random(f"mine/{self.bot_seed}")

    bot = Own()
    session(bot, [7])
    expected = random.Random("mine/7")
    assert bot.draws == [[expected.random() for _ in range(3)]]


def test_starting_the_sdk_loads_no_typing_and_no_random() -> None:
    """A bot's start-up imports: the helper modules cost nothing heavy."""
    code = (
        "import sys, bots_sdk, bots_sdk.actions, bots_sdk.seats;"
        "print(sorted({'typing', 'random', 'dataclasses'} & set(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_a_note_goes_with_its_answer_only() -> None:
    """self.note() in act: the action line carries it, cut to the protocol's cap; the
    next decision starts with none."""

    class Noter(Draws):
        def act(self, observation: Any) -> str:
            if len(self.draws) == 0:
                self.note("first")
                self.note("second line")
            elif len(self.draws) == 2:
                self.note("\u00e9" * 200)  # 400 bytes of UTF-8
            return super().act(observation)

    replies = session(Noter(), [7, 8, 9])[1:]
    assert replies[0]["note"] == "first\nsecond line"
    assert "note" not in replies[1]
    assert replies[2]["note"] == "\u00e9" * (protocol.MAX_NOTE_BYTES // 2)
    for reply in replies:
        assert protocol.parse_answer(protocol.encode(reply).rstrip(b"\n"), reply["id"])
