"""`royale` main games re-checked event by event by an independent model of the rules.

The model (``tests/royale_checks.py``) is written from RULES.md, the rulebook
(seed 003) and docs/rulings.md, not from the engine's code. Random main games
(2-5 seats, 1-6 tiles on random sides, the 2-seat neutral dice at random,
random legal decisions) are played through the public API; the model takes
only chance from the log and checks every event, every decision's legal
actions and every observation of the seat deciding.

The normal run plays ``ROYALE_MODEL_GAMES`` games (default 300, a few
seconds); ``make royale-check`` plays 5,000.
"""

from __future__ import annotations

import json
import os
import random
from collections import Counter
from typing import Any

import pytest

from tests.royale_checks import (
    TILE_NAMES,
    Record,
    check_game,
    follow_log,
    play_recorded,
    uniform,
)
from tests.vegas_engine.regenerate_golden import CASES, path_of
from vegas_engine import GameDescription, describe

pytestmark = pytest.mark.slow

GAMES = int(os.environ.get("ROYALE_MODEL_GAMES", "300"))


def placing(legal: list[str], rng: random.Random) -> str:
    """Random, but never pays a chip to pass when it can place: fuller casinos."""
    placements = [action for action in legal if action != "pass"]
    return rng.choice(placements or legal)


def random_description(rng: random.Random) -> tuple[GameDescription, int]:
    seats = rng.choice([2, 3, 4, 5])
    options: dict[str, bool | int] = {"tiles": rng.randint(1, 6)}
    if seats == 2:
        options["neutral_dice"] = rng.random() < 0.5
    return describe("royale", seats, options), rng.randrange(1 << 31)


def random_main_game(game: int) -> Record:
    """Game ``game`` of the run: odd games never pass while they can place."""
    rng = random.Random(game)
    description, seed = random_description(rng)
    return play_recorded(description, seed, rng, placing if game % 2 else uniform)


def checked(record: Record, label: str) -> Counter[str]:
    try:
        return check_game(record)
    except AssertionError as error:
        raise AssertionError(f"{label} {record.description}: {error}") from error


#: What enough random games must have shown for the run to mean something.
MUST_SHOW = [
    *(f"tile {code}" for code in TILE_NAMES),
    *(f"activate {code}" for code in TILE_NAMES),
    *(f"decide {kind}" for kind in ("place", "power", "hide", "guess", "gamble", "close")),
    *(f"decide {kind}" for kind in ("bar", "block", "handicap", "move", "add", "split")),
    *(f"decide {kind}" for kind in ("pile", "bet", "nice", "choose", "activate", "gold")),
    "bad_luck",
    "bank_payment",
    "side_bet",
    "black_box",
    "neutral_roll",
    "skip",
    "jackpot hit",
    "fifty fifty stops at 3",
    "high five taken",
    "high five missed with 4",
    "power play turn",
    "power play returns",
    "power play taken from a holder",
    "power play kept against a clear majority",
    "casino closed",
    "knockout dice back",
    "nice dice bump",
    "prime time adds",
    "move turn",
    "move return",
    *(f"my choice {face}" for face in range(1, 7)),
    *(f"black box pays {total}k" for total in (0, 20, 40, 60, 80, 100)),
]


def test_random_main_games_follow_the_model_event_by_event() -> None:
    seen: Counter[str] = Counter()
    for game in range(GAMES):
        seen += checked(random_main_game(game), f"game {game}")
    print(f"\n{GAMES} royale main games, {seen['events']} events, {seen['decision']} decisions")
    if GAMES >= 300:
        missing = [situation for situation in MUST_SHOW if not seen[situation]]
        assert not missing, f"{GAMES} games never showed {missing}"


def test_basic_games_follow_the_model_too() -> None:
    for game in range(30):
        rng = random.Random(game)
        seats = 2 + game % 4
        options = {"tiles": 0, "neutral_dice": seats == 2 and game % 8 < 4}
        record = play_recorded(describe("royale", seats, options), game, rng)
        seen = checked(record, f"basic game {game}")
        assert not seen["activate"] and not seen["tile_setup"]


@pytest.mark.parametrize("name", sorted(name for name in CASES if CASES[name].rules == "royale"))
def test_golden_royale_playthroughs_follow_the_model(name: str) -> None:
    seen = checked(follow_log(json.loads(path_of(name).read_text())), name)
    assert seen["game_end"] == 1


# ------------------------------------------------------ the model can fail


def one_game() -> Record:
    """A game that activates tiles, pays rewards and moves the Power Play token."""
    for game in range(200):
        record = random_main_game(game)
        types = Counter(event["type"] for event in record.events)
        if types["reward"] and types["token"] and types["move"]:
            return record
    pytest.fail("no game shows a reward, a token and a move")


def edited(record: Record, kind: str, change: dict[str, Any], nth: int = 0) -> Record:
    events = [dict(event) for event in record.events]
    index = [i for i, event in enumerate(events) if event["type"] == kind][nth]
    events[index].update(change)
    return Record(
        record.description,
        events,
        record.checkpoints,
        record.first_view,
        record.final_views,
    )


@pytest.mark.parametrize(
    ("kind", "change"),
    [
        ("reward", {"money": 1}),
        ("token", {"holder": None}),
        ("move", {"count": 9}),
        ("payout", {"awards": []}),
        ("decision", {"action": "place 9"}),
        ("round_end", {"money": [0, 0]}),
    ],
)
def test_the_model_rejects_an_edited_log(kind: str, change: dict[str, Any]) -> None:
    record = one_game()
    checked(record, "unedited")
    with pytest.raises(AssertionError):
        check_game(edited(record, kind, change))


def test_the_model_rejects_a_missing_event_and_a_wrong_observation() -> None:
    record = one_game()
    token = next(i for i, event in enumerate(record.events) if event["type"] == "token")
    missing = Record(
        record.description,
        record.events[:token] + record.events[token + 1 :],
        record.checkpoints,
        record.first_view,
        record.final_views,
    )
    with pytest.raises(AssertionError):
        check_game(missing)
    index, checkpoint = next(iter(record.checkpoints.items()))
    view = dict(checkpoint.view, chips=[chips + 1 for chips in checkpoint.view["chips"]])
    checkpoints = dict(record.checkpoints)
    checkpoints[index] = type(checkpoint)(checkpoint.seat, checkpoint.legal, view)
    with pytest.raises(AssertionError, match="chips"):
        check_game(
            Record(
                record.description,
                record.events,
                checkpoints,
                record.first_view,
                record.final_views,
            )
        )


def test_descriptions_cover_every_seat_count_and_tile_count() -> None:
    descriptions = [random_description(random.Random(game))[0] for game in range(60)]
    assert {d.seats for d in descriptions} == {2, 3, 4, 5}
    assert {d.options["tiles"] for d in descriptions} == set(range(1, 7))
