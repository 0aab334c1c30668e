"""The house bots: each plays every rule system; montecarlo > greedy > gambler > random;
ismcts plays each default ladder's game sandboxed within its limits, and replays."""

from __future__ import annotations

import importlib
import random
import time
from dataclasses import replace

import pytest

from bots_sdk.launcher import HOUSE_BOTS, BotSpec, house_bot
from bots_sdk.protocol import Limits
from bots_sdk.referee import GameRecord, Match
from vegas_engine import RULE_SYSTEMS, State, describe, new_game, observe
from vegas_engine.policies import greedy_policy

pytestmark = pytest.mark.slow


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


#: The default ladders' games and limits (platform: load_house_bots.DEFAULT_LADDERS).
LADDER_GAMES = [
    ("classic", 2, {}, 10_000),
    ("classic", 4, {}, 10_000),
    ("boulevard", 4, {}, 15_000),
    ("cardgame", 4, {}, 10_000),
    ("royale", 4, {"tiles": 3}, 15_000),
    ("sixdice", 4, {}, 10_000),
]


@pytest.mark.parametrize(
    ("rules", "seats", "options", "bank_ms"),
    LADDER_GAMES,
    ids=[f"{rules}-{seats}" for rules, seats, _, _ in LADDER_GAMES],
)
def test_ismcts_plays_a_ladder_game_sandboxed_within_its_limits(
    rules: str, seats: int, options: dict[str, object], bank_ms: int
) -> None:
    # The strongest level, sandboxed as the platform runs it, with the ladder's limits;
    # montecarlo beside it (the next level down), random in the other seats.
    names = ["ismcts", "montecarlo", "random", "gambler"][:seats]
    bots = [replace(house_bot(name), trusted=False) for name in names]
    limits = Limits(decision_ms=1000, bank_ms=bank_ms)
    with Match(bots, limits) as match:
        record = match.play(describe(rules, seats, options), 7, list(range(seats)))
    assert not record.faults, [(s.name, s.fault.describe()) for s in record.seats if s.fault]
    assert record.seats[0].decision_ms, "ismcts made no decision"


def answers(
    bot_name: str,
    bot_seed: int,
    time_left_ms: int = 10_000_000,
    bank_ms: int = 10_000_000,
    charge: str = "",
) -> list[str]:
    """A fresh house bot's answers at every decision of seat 0 in a greedy game of royale
    (the first six), in this process. ``charge`` "wall" or "cpu": its bank is charged each
    decision's wall or CPU time, as a referee would (else nothing)."""
    bot = importlib.import_module(f"bots_sdk.house.{bot_name}_bot").__dict__[
        {"ismcts": "IsmctsBot", "montecarlo": "MonteCarloBot"}[bot_name]
    ]()
    game = describe("royale", 3, {"tiles": 3})
    state = new_game(game, seed=11, log=False)
    # Time plenty by default: the time guard never cuts in, so only the seed decides.
    bot.handle_new_game(0, game.to_json(), bot_seed, bank_ms)
    chosen: list[str] = []
    bank_left_ms = float(bank_ms)
    rng = random.Random(5)
    while movers := state.to_move():
        for seat in movers:
            if seat == 0:
                wall, cpu = time.monotonic(), time.process_time()
                action = bot.handle_request(observe(state, 0), time_left_ms, int(bank_left_ms))
                if charge:
                    clock = time.monotonic if charge == "wall" else time.process_time
                    bank_left_ms -= 1000 * (clock() - (wall if charge == "wall" else cpu))
                assert action in state.legal_actions(0)
                chosen.append(action)
            else:
                action = greedy_policy(state, seat, rng)
            state.apply_action(action, seat)
        if len(chosen) >= 6:
            break
    return chosen


def test_ismcts_answers_the_same_with_the_same_bot_seed() -> None:
    first = answers("ismcts", bot_seed=42)
    assert len(first) == 6
    assert answers("ismcts", bot_seed=42) == first


class Clocks:
    """Stand-ins for the bot's clocks: each reading moves the wall clock and the CPU
    clock on by a fixed step."""

    def __init__(self, wall_step: float, cpu_step: float) -> None:
        self.wall = self.cpu = 0.0
        self.wall_step, self.cpu_step = wall_step, cpu_step

    def monotonic(self) -> float:
        self.wall += self.wall_step
        return self.wall

    def process_time(self) -> float:
        self.cpu += self.cpu_step
        return self.cpu


@pytest.mark.parametrize(("bot_name", "search"), [("ismcts", "iterate"), ("montecarlo", "playout")])
def test_a_search_bot_stops_when_its_time_is_spent(
    bot_name: str, search: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every reading of the CPU clock a second later: past every allowance at once.
    module = importlib.import_module(f"bots_sdk.house.{bot_name}_bot")
    cls = module.IsmctsBot if bot_name == "ismcts" else module.MonteCarloBot
    searched: list[object] = []
    original = getattr(cls, search)

    def counted(self: object, *args: object) -> object:
        searched.append(args)
        return original(self, *args)

    monkeypatch.setattr(cls, search, counted)
    assert len(answers(bot_name, bot_seed=42)) == 6
    assert searched, "with time plenty the bot searches"
    searched.clear()
    clocks = Clocks(wall_step=0.0, cpu_step=1.0)
    monkeypatch.setattr(time, "monotonic", clocks.monotonic)
    monkeypatch.setattr(time, "process_time", clocks.process_time)
    assert len(answers(bot_name, bot_seed=42, time_left_ms=1000, bank_ms=10_000)) == 6
    assert not searched
    # The safety net: the CPU clock says there is time, the wall clock says 80% of the
    # decision's time is gone (a host whose wait was not all left out of the charge).
    clocks = Clocks(wall_step=1.0, cpu_step=1e-6)
    monkeypatch.setattr(time, "monotonic", clocks.monotonic)
    monkeypatch.setattr(time, "process_time", clocks.process_time)
    # A bank large enough never to reach ismcts's reserve, charged the wall clock.
    assert len(answers(bot_name, 42, time_left_ms=1000, bank_ms=10**6, charge="wall")) == 6
    assert not searched


def test_ismcts_loosens_its_wall_net_where_the_referee_charges_cpu_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from bots_sdk.house.ismcts_bot import IsmctsBot

    searched: list[int] = []
    original = IsmctsBot.iterate

    def counted(self: IsmctsBot, *args: object) -> None:
        searched.append(len(searched))
        original(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(IsmctsBot, "iterate", counted)
    # A second of wall clock at every reading, next to no CPU: a host far busier than the
    # bot's CPU time shows. Charged the wall clock, the bot never searches past its net;
    # charged CPU time (its first decision tells it), it searches on by the CPU clock.
    for charge, searches in (("wall", False), ("cpu", True)):
        clocks = Clocks(wall_step=1.0, cpu_step=1e-6)
        monkeypatch.setattr(time, "monotonic", clocks.monotonic)
        monkeypatch.setattr(time, "process_time", clocks.process_time)
        searched.clear()
        assert len(answers("ismcts", 42, time_left_ms=1000, bank_ms=10**6, charge=charge)) == 6
        assert bool(searched) is searches, charge


def test_ismcts_keeps_a_reserve_of_its_bank_and_answers_as_greedy_from_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from bots_sdk.house.ismcts_bot import RESERVE, IsmctsBot

    # The search's first step: a playout that tells how many the work pays for.
    searched: list[object] = []
    original = IsmctsBot.playouts

    def counted(self: IsmctsBot, world: State, work: int) -> int:
        searched.append(work)
        return original(self, world, work)

    monkeypatch.setattr(IsmctsBot, "playouts", counted)
    game = describe("royale", 4, {"tiles": 3})
    state = new_game(game, seed=11, log=False)
    rng = random.Random(5)
    while len(state.legal_actions(movers := state.to_move()[0])) < 3 or movers != 0:
        state.apply_action(greedy_policy(state, movers, rng), movers)
    bank_ms = 15_000
    reserve_ms = int(RESERVE * bank_ms)

    def answer(bank_left_ms: int) -> str:
        bot = IsmctsBot()
        bot.handle_new_game(0, game.to_json(), 42, bank_ms)
        return bot.handle_request(observe(state, 0), 1000, bank_left_ms)

    answer(reserve_ms + 500)
    assert searched, "above its reserve the bot searches"
    searched.clear()
    # At its reserve: no search, greedy's answer (greedy sees the casinos, not the pile).
    assert answer(reserve_ms) == greedy_policy(state, 0, rng)
    assert not searched
