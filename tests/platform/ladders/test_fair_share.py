"""Fair share across ladders: the real scheduler (plan_picks) on a driven clock.

The default ladders, 8 uploaded bots entered everywhere and the 4 house bots:
every ladder plays within 5 minutes, and after 30 minutes each ladder's bots
have played about as many games there as on any other ladder.
"""

from __future__ import annotations

import random

import pytest

from arena.ladders.management.commands.load_house_bots import DEFAULT_LADDERS as DEFAULTS
from arena.ladders.matchmaking import LadderQueue, plan_picks
from arena.ladders.selectors import MatchmakingCandidate
from arena.ladders.simulate import DEFAULT_LADDERS, HOUSE_BOTS, SimBot, SimResult, simulate

LADDERS = list(DEFAULT_LADDERS)
UPLOADED = [SimBot(f"bot-{n}") for n in range(8)]
HOUSE = list(HOUSE_BOTS)


def test_the_simulation_models_the_default_ladders() -> None:
    assert [(sim.name, sim.seats) for sim in LADDERS] == [(d.slug, d.seats) for d in DEFAULTS]


def spread(result: SimResult, bots: list[SimBot]) -> float:
    """Games per bot on the most-served ladder over the least-served one."""
    per_ladder = [result.games_per_bot(ladder.name, [b.name for b in bots]) for ladder in LADDERS]
    return max(per_ladder) / min(per_ladder)


@pytest.mark.parametrize("workers", [1, 2, 4])
@pytest.mark.parametrize("seed", [1, 2])
def test_every_ladder_plays_soon_and_gets_its_share(workers: int, seed: int) -> None:
    result = simulate(LADDERS, UPLOADED + HOUSE, minutes=30, workers=workers, seed=seed)

    assert set(result.first_finish) == {ladder.name for ladder in LADDERS}
    assert max(result.first_finish.values()) < 5 * 60
    assert spread(result, UPLOADED) <= 1.3


@pytest.mark.parametrize("workers", [2, 4])
@pytest.mark.parametrize("seed", [1, 2])
def test_series_of_twelve_games_keep_every_ladder_s_share(workers: int, seed: int) -> None:
    """A pick is a series (Ladder.series_games): the shares hold with the default queue
    target of two series per ladder, on the default two worker processes and more."""
    result = simulate(
        LADDERS, UPLOADED + HOUSE, minutes=30, workers=workers, seed=seed, series_games=12
    )

    assert set(result.first_finish) == {ladder.name for ladder in LADDERS}
    assert max(result.first_finish.values()) < 5 * 60
    assert spread(result, UPLOADED) <= 1.3


def test_filling_one_ladder_after_another_starves_the_last() -> None:
    # The platform before fair share: the first ladder filled took every bot's slots.
    result = simulate(LADDERS, UPLOADED + HOUSE, minutes=30, seed=1, interleaved=False)
    assert "boulevard-4" not in result.first_finish


def test_house_bots_alone_play_every_four_seat_ladder() -> None:
    result = simulate(LADDERS, HOUSE, minutes=5, seed=3)
    assert set(result.first_finish) == {ladder.name for ladder in LADDERS}


def test_a_card_game_bot_plays_only_where_it_entered() -> None:
    cards = SimBot("cards-only", ladders=frozenset({"cardgame-4"}))
    result = simulate(LADDERS, [*UPLOADED, cards, *HOUSE], minutes=10, seed=4)
    assert {ladder for ladder, bot in result.games if bot == "cards-only"} == {"cardgame-4"}


def candidate(version: int, games: int, queued: int = 0) -> MatchmakingCandidate:
    return MatchmakingCandidate(version_id=version, rating=1500.0, games=games, queued=queued)


def test_a_pick_counts_against_the_bot_on_every_ladder() -> None:
    # Two 2-seat ladders sharing two bots with room for one match each: the cap (1)
    # lets only one of them play now, whichever is less served.
    served = LadderQueue(1, 2, [candidate(1, 5), candidate(2, 5)], queued=0, target=8)
    starved = LadderQueue(2, 2, [candidate(1, 0), candidate(2, 0)], queued=0, target=8)
    plan = plan_picks([served, starved], max_queued=1, house_only_games=30, rng=random.Random(0))
    assert [pick.queue.ladder_id for pick in plan] == [2]


# --------------------------------------------------------------------------- capacity


def test_two_worker_processes_queue_no_more_than_the_fixed_target() -> None:
    """With the default two processes the floor (ARENA_LADDER_QUEUE_TARGET) holds: the
    queues following the workers queue exactly what the fixed target queued."""
    fixed = simulate(LADDERS, UPLOADED + HOUSE, minutes=20, workers=2, seed=5, series_games=12)
    following = simulate(
        LADDERS, UPLOADED + HOUSE, minutes=20, workers=2, seed=5, series_games=12, runs_per_slot=2
    )
    assert following.most_queued == fixed.most_queued <= 24 * len(LADDERS)
    assert following.games == fixed.games


def test_two_hundred_worker_processes_stay_busy() -> None:
    """200 processes on the default ladders with 300 uploaded bots: the fixed target
    (two series per ladder) leaves most of them idle; following the workers keeps them
    at least 90% busy from the first minutes (a young ladder's single games too), each
    run waiting in the queue less than the age bound."""
    uploaded = [SimBot(f"bot-{n}") for n in range(300)]
    kwargs = {"minutes": 5, "workers": 200, "seed": 6, "series_games": 12}
    bots = uploaded + HOUSE
    fixed = simulate(LADDERS, bots, **kwargs)
    following = simulate(LADDERS, bots, **kwargs, runs_per_slot=2, max_age_s=600)

    assert fixed.busy_share < 0.5
    assert following.busy_share >= 0.9
    assert following.longest_wait_s < 600
    assert spread(following, uploaded) <= 1.3  # and every ladder still gets its share
