"""bench/ratings.py's ideal fit: the yardstick the docs hold the rating targets against."""

from __future__ import annotations

import importlib.util
import itertools
import math
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

RATINGS_PATH = Path(__file__).resolve().parents[2] / "bench" / "ratings.py"


@pytest.fixture(scope="module")
def ratings() -> ModuleType:
    # A script, not a package (bench/platform.py would shadow the standard module).
    spec = importlib.util.spec_from_file_location("bench_ratings", RATINGS_PATH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # Its dataclasses resolve their annotations through sys.modules.
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _units(
    ratings: ModuleType, model: Any, seats: int, deals: bool, strength: list[float]
) -> list[tuple[list[int], list[int]]]:
    """400 units of the last player against opponents drawn from the field."""
    rng = np.random.default_rng(3)
    player = len(strength) - 1
    luck = model.split(0.6) if deals else None
    units = []
    for _ in range(400):
        others = rng.choice(player, seats - 1, replace=False).tolist()
        table = [int(p) for p in rng.permutation([player, *others])]
        if deals:
            ranks = ratings.play_deal(model, luck, table, strength, rng)
        else:
            ranks = model.play(np.array([strength[p] for p in table]), rng)
        units.append((table, list(ranks)))
    return units


@pytest.mark.parametrize("model_name", ["skill-heavy", "luck-heavy"])
@pytest.mark.parametrize(("seats", "deals"), [(4, False), (2, True)])
def test_the_ideal_fit_finds_a_strength_it_was_not_told(
    ratings: ModuleType, model_name: str, seats: int, deals: bool
) -> None:
    model = next(m for m in ratings.MODELS if m.name == model_name)
    field = [float(z) for z in np.random.default_rng(1).normal(size=200)]
    for true in (-0.8, 1.2):
        strength = [*field, true]
        units = _units(ratings, model, seats, deals, strength)
        luck = model.split(0.6) if deals else None
        ideal = ratings.IdealFit(model, strength, luck, seats)
        # 400 units place a bot to about 0.05-0.1 of the field's spread: a flipped rank,
        # a deal counted as one game or luck of the wrong law lands far off.
        assert ideal.most_likely(units, len(field)) == pytest.approx(true, abs=0.3)


def test_the_ideal_field_is_the_prior_where_a_bot_has_not_played(ratings: ModuleType) -> None:
    model = ratings.MODELS[0]
    strength = [float(z) for z in np.random.default_rng(2).normal(size=ratings.FIELD)]
    winner, loser = 0, 1
    found = ratings.IdealFit(model, strength).field([([winner, loser], [1, 2])])
    assert found[winner] > 0 > found[loser]
    assert np.allclose(np.delete(found, [winner, loser]), 0.0, atol=1e-9)


@pytest.mark.parametrize("model_name", ["skill-heavy", "luck-heavy"])
def test_the_ideal_fit_gives_each_order_of_a_table_its_chance(
    ratings: ModuleType, model_name: str
) -> None:
    model = next(m for m in ratings.MODELS if m.name == model_name)
    strength = [0.3, -0.5, 1.1, 0.0]
    player, table = 3, [0, 1, 2, 3]
    fit = ratings.IdealFit(model, strength)
    at = int(np.argmin(abs(ratings.IDEAL_GRID - strength[player])))
    rng = np.random.default_rng(4)
    draws = 40_000
    seen: dict[tuple[int, ...], int] = {}
    for _ in range(draws):
        ranks = tuple(model.play(np.array(strength), rng))
        seen[ranks] = seen.get(ranks, 0) + 1
    total = 0.0
    for order in itertools.permutations(range(1, 5)):
        chance = float(np.exp(fit.loglik([(table, list(order))], player)[at]))
        total += chance
        drawn = seen.get(order, 0) / draws
        # Within 4 standard errors of the drawn share (the order of those ahead and
        # those behind counts: a rank the wrong way round is off by far more).
        assert chance == pytest.approx(drawn, abs=4 * math.sqrt(chance * (1 - chance) / draws))
    assert total == pytest.approx(1.0, abs=1e-3)
