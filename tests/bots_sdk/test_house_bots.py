"""The house bots: each plays every rule system; montecarlo > greedy > gambler > random."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bots_sdk.launcher import HOUSE_BOTS, BotSpec, house_bot
from bots_sdk.protocol import Limits
from bots_sdk.referee import GameRecord, Match
from vegas_engine import RULE_SYSTEMS, describe


@pytest.mark.parametrize("sandboxed", [False, True], ids=["bare", "sandboxed"])
@pytest.mark.parametrize("rules", sorted(RULE_SYSTEMS))
def test_every_house_bot_plays_every_rule_system(rules: str, sandboxed: bool) -> None:
    # Every house bot at one table: the default ladders seat four of them together.
    names = list(HOUSE_BOTS)
    seats = len(names)
    assert seats in RULE_SYSTEMS[rules].seats
    # House bots normally run bare (they are the platform's code); sandboxed, they
    # prove the sandbox's runtime carries everything a real bot may import.
    bots = [replace(house_bot(name), trusted=not sandboxed) for name in names]
    # Montecarlo stops at its playout cap, well inside a second even on a busy machine.
    limits = Limits(decision_ms=1000, bank_ms=20_000)
    with Match(bots, limits) as match:
        records = [match.play(describe(rules, seats), 1, list(range(seats)))]
    assert [outcome.trusted for outcomes in match.outcomes for outcome in outcomes] == [
        not sandboxed
    ] * seats
    for record in records:
        assert not record.faults, [f.describe() for f in record.faults]
        for seat in record.seats:
            assert seat.decision_ms, f"{seat.name} made no decision in {rules}"
    assert set(names) == set(HOUSE_BOTS)


def duel(a: BotSpec, b: BotSpec, seeds: range) -> tuple[list[float], list[int]]:
    """2-seat classic, each seed played twice with the seats swapped."""
    wins = [0.0, 0.0]
    money = [0, 0]
    with Match([a, b], Limits()) as match:
        for seed in seeds:
            for seating in ([0, 1], [1, 0]):
                record: GameRecord = match.play(describe("classic", 2), seed, seating)
                assert not record.faults
                first, second = sorted(record.result, key=lambda entry: entry["rank"])
                shared = first["rank"] == second["rank"]
                for entry in record.result:
                    player = seating[entry["seat"]]
                    money[player] += entry["money"]
                    if entry["rank"] == 1:
                        wins[player] += 0.5 if shared else 1.0
    return wins, money


def test_gambler_sits_between_random_and_greedy() -> None:
    # 60 games each; greedy wins about 70% against gambler, gambler about 85% against random.
    wins, _ = duel(house_bot("gambler"), house_bot("random"), range(200, 230))
    assert wins[0] >= 40, wins
    wins, _ = duel(house_bot("greedy"), house_bot("gambler"), range(300, 330))
    assert wins[0] >= 33, wins


def test_greedy_beats_random() -> None:
    # 100 games (50 seeds x 2 seatings); greedy wins about 95% of them.
    wins, money = duel(house_bot("greedy"), house_bot("random"), range(100, 150))
    assert wins[0] >= 80, wins
    assert money[0] > 1.3 * money[1]


def test_montecarlo_beats_greedy() -> None:
    # 40 games (20 seeds x 2 seatings), about 40 s; montecarlo wins about 72%
    # of them. Its playout count is fixed, so the result is the same on every
    # machine fast enough not to hit the time limit (1 s per decision).
    wins, money = duel(house_bot("montecarlo"), house_bot("greedy"), range(1000, 1020))
    assert wins[0] >= 24, wins
    assert money[0] > money[1]
