"""Mutated positions: each is refused, or is a state that round-trips and plays to its end.

Valid positions of every rule system are exported along random games (the
engine's own ``state.position()``), then hypothesis changes one thing in one:
a number made negative, huge, a boolean, a string; a key dropped or added; a
value of another type, or another field's value; a list item duplicated,
removed or swapped. For every mutant ``from_position`` either raises
``InvalidPositionError`` or gives a state that writes the mutant back exactly
(unless it took forced decisions first, as the engine always does), whose own
position round-trips, and from which a random playout ends within a bound of
steps. No other exception may escape.
"""

from __future__ import annotations

import copy
import functools
import json
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vegas_engine import InvalidPositionError, State, describe, from_position, new_game
from vegas_engine.description import GameDescription

pytestmark = pytest.mark.slow

#: Games whose positions are mutated, by rule system: every option that adds a field.
CASES: dict[str, tuple[tuple[int, Mapping[str, bool | int]], ...]] = {
    "classic": ((2, {}), (3, {"neutral_dice": True, "chips": True}), (5, {})),
    "boulevard": ((2, {}), (3, {}), (6, {})),
    "cardgame": ((3, {}), (4, {"sequential": True, "chips": True}), (2, {"chips": True})),
    "royale": (
        (3, {}),
        (4, {"tiles": 6}),
        (2, {"neutral_dice": True, "tiles": 0}),
        (5, {"tiles": 6}),
    ),
    "sixdice": ((5, {"slot_machine": True}), (2, {"neutral_dice": True}), (3, {})),
}
SYSTEMS = sorted(CASES)
GAMES_PER_CASE = 2
SEED = 11
#: Steps (decisions and chance outcomes) a playout may take: a whole game takes far fewer.
MAX_STEPS = 10_000

Path = tuple[str | int, ...]
JsonDict = dict[str, Any]
Pick = Callable[[Sequence[Any]], Any]


@functools.cache
def valid_positions(rules: str) -> tuple[tuple[GameDescription, str], ...]:
    """Every position along a few seeded random games of each case, as JSON text."""
    found: list[tuple[GameDescription, str]] = []
    for seats, options in CASES[rules]:
        game = describe(rules, seats, options)
        for seed in range(GAMES_PER_CASE):
            rng = random.Random(seed)
            state = new_game(game, seed, log=False)
            while True:
                found.append((game, json.dumps(state.position())))
                if state.is_terminal():
                    break
                seat = state.to_move()[0]
                state.apply_action(rng.choice(state.legal_actions(seat)), seat)
    return tuple(found)


@functools.cache
def vocabulary(rules: str) -> tuple[str, ...]:
    """Strings the positions of ``rules`` hold (keys and values), and a few others."""
    words = {"", "x", "7", "-1", "neutral", "grey", "rainbow", "biggie", "kicker", "A9"}
    for _, text in valid_positions(rules):
        for path, value in nodes(json.loads(text)):
            words.update(str(key) for key in path if isinstance(key, str))
            if isinstance(value, str):
                words.add(value)
    return tuple(sorted(words))


def nodes(value: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    """Every node of a JSON value with its path, the value itself first."""
    yield path, value
    if isinstance(value, dict):
        for key, member in value.items():
            yield from nodes(member, (*path, key))
    elif isinstance(value, list):
        for index, member in enumerate(value):
            yield from nodes(member, (*path, index))


def replace(position: JsonDict, path: Path, new: Any) -> JsonDict:
    """A copy of ``position`` with the node at ``path`` (not the root) replaced."""
    mutant = copy.deepcopy(position)
    parent: Any = mutant
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = new
    return mutant


def number_changes(value: int) -> list[Any]:
    return [-1, -value - 1, value - 1, value + 1, value + 7, 2 * value + 1, 10**9, 2**63]


def odd_values(value: Any) -> list[Any]:
    """Values of other JSON types than ``value``'s, a boolean for a number among them."""
    return [True, False, 0.5, str(value), None, [], {}, "x", [value], {"x": value}]


def mutant(pick: Pick, position: JsonDict, rules: str) -> JsonDict:
    """One mutant of ``position``, each choice made by ``pick`` (one item of a sequence)."""
    everything = list(nodes(position))
    path, value = pick(everything[1:])
    others = [node for _, node in everything[1:]]
    words = vocabulary(rules)
    kinds = ["retype", "borrow"]
    if isinstance(value, int) and not isinstance(value, bool):
        kinds.append("number")
    if isinstance(value, str):
        kinds.append("word")
    if isinstance(value, dict):
        kinds += ["add"] + (["drop"] if value else [])
    if isinstance(value, list):
        kinds += ["append"] + (["duplicate", "remove", "swap"] if value else [])
    kind = pick(kinds)
    if kind == "number":
        return replace(position, path, pick(number_changes(value)))
    if kind == "word":
        return replace(position, path, pick(words))
    if kind == "retype":
        return replace(position, path, pick(odd_values(value)))
    if kind == "borrow":
        return replace(position, path, copy.deepcopy(pick(others)))
    if kind == "add":
        return replace(position, path, {**value, pick(words): copy.deepcopy(pick(others))})
    if kind == "drop":
        key = pick(sorted(value))
        return replace(position, path, {k: v for k, v in value.items() if k != key})
    if kind == "append":
        return replace(position, path, [*value, copy.deepcopy(pick(others))])
    index = pick(range(len(value)))
    if kind == "duplicate":
        return replace(position, path, [*value[: index + 1], *value[index:]])
    if kind == "remove":
        return replace(position, path, value[:index] + value[index + 1 :])
    other = pick(range(len(value)))
    swapped = list(value)
    swapped[index], swapped[other] = swapped[other], swapped[index]
    return replace(position, path, swapped)


def play_out(state: State, rng: random.Random) -> int:
    """Random decisions and the tape's chance outcomes to the end; the steps it took."""
    steps = 0
    while not state.is_terminal():
        steps += 1
        assert steps <= MAX_STEPS, "the game did not end within the bound of steps"
        if state.is_chance_node():
            state.apply_chance(state.tape_outcome())
            continue
        movers = state.to_move()
        assert movers, "a state neither over nor at chance has a seat to move"
        for seat in movers:
            legal = state.legal_actions(seat)
            assert legal, f"seat {seat} must decide but has no legal action"
            state.apply_action(rng.choice(legal), seat)
            if state.is_chance_node():
                break
    return steps


def outcome(game: GameDescription, mutant: JsonDict) -> str:
    """'refused', or 'accepted' after checking the state the mutant gives (see the module)."""
    try:
        state = from_position(game, mutant, SEED, chance="explicit")
    except InvalidPositionError:
        return "refused"
    written = json.loads(json.dumps(mutant))
    events = state.events()
    assert events is not None and events[0] == {"type": "position", "position": written}
    if not any(event["type"] in ("decision", "chance") for event in events):
        assert state.position() == written
    if not state.is_chance_node():
        now = state.position()
        assert from_position(game, now, SEED).position() == now
    play_out(state, random.Random(SEED))
    return "accepted"


@pytest.mark.parametrize("rules", SYSTEMS)
@settings(
    max_examples=250,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_a_mutated_position_is_refused_or_plays_to_its_end(rules: str, data: st.DataObject) -> None:
    def pick(options: Sequence[Any]) -> Any:
        return data.draw(st.sampled_from(options))

    game, text = pick(valid_positions(rules))
    outcome(game, mutant(pick, json.loads(text), rules))


@pytest.mark.parametrize("rules", SYSTEMS)
def test_the_unmutated_positions_are_accepted(rules: str) -> None:
    """The baseline: every exported position is taken as it is."""
    for game, text in valid_positions(rules)[::20]:
        assert outcome(game, json.loads(text)) == "accepted"
