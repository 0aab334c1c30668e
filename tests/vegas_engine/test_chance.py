"""Explicit chance: chance nodes with exact outcomes, and the tape as their default driver.

For every rule system: the outcomes at each chance node are exact fractions
summing to 1; games whose chance is sampled from those outcomes are legal
full games (refereed where a referee exists, and replayed from their logs);
and an explicit game fed the tape's own outcomes is the tape's game, event
for event, so making chance explicit changed nothing the seed deals.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import pytest

from tests.vegas_engine.test_log_schema import VALIDATOR
from tests.vegas_engine.test_properties import Referee, check_cardgame, referee_covers
from vegas_engine import (
    ChanceMode,
    GameOverError,
    IllegalActionError,
    State,
    describe,
    new_game,
)
from vegas_engine.chance import dice_outcomes, ordered_dice_outcomes
from vegas_engine.log import game_log
from vegas_engine.replay import replay

pytestmark = pytest.mark.slow

#: One case per kind of chance node: every rule system, every option that deals or rolls.
CASES: dict[str, tuple[str, int, Mapping[str, bool | int]]] = {
    "classic-4p": ("classic", 4, {}),
    "classic-3p-neutral-chips": ("classic", 3, {"neutral_dice": True, "chips": True}),
    "boulevard-3p": ("boulevard", 3, {}),
    "boulevard-6p": ("boulevard", 6, {}),
    "sixdice-5p-slot": ("sixdice", 5, {"slot_machine": True}),
    "sixdice-2p-neutral": ("sixdice", 2, {"neutral_dice": True}),
    "cardgame-3p": ("cardgame", 3, {}),
    "cardgame-4p-sequential-chips": ("cardgame", 4, {"sequential": True, "chips": True}),
    "royale-3p": ("royale", 3, {}),
    "royale-4p-six-tiles": ("royale", 4, {"tiles": 6}),
    "royale-2p-neutral-basic": ("royale", 2, {"neutral_dice": True, "tiles": 0}),
}
NAMES = sorted(CASES)


def check_node(state: State) -> list[tuple[str, Fraction]]:
    """The node's outcomes, after checking they are a probability distribution, exactly."""
    outcomes = state.chance_outcomes()
    assert outcomes, "a chance node has outcomes"
    assert all(type(p) is Fraction and p > 0 for _, p in outcomes), "exact, positive"
    assert sum(p for _, p in outcomes) == 1
    names = [outcome for outcome, _ in outcomes]
    assert len(set(names)) == len(names), "outcomes are distinct"
    assert state.tape_outcome() in names
    assert state.to_move() == () and state.legal_actions() == ()
    assert state.decision().value == "chance" and not state.is_terminal()
    assert state.result() is None
    return outcomes


def decide(state: State, rng: random.Random) -> None:
    """One random decision of each seat to move (stopping if chance must act first)."""
    for seat in state.to_move():
        if state.is_chance_node():
            return
        state.apply_action(rng.choice(state.legal_actions(seat)), seat)


def without_chance(events: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    assert events is not None
    return [event for event in events if event["type"] != "chance"]


@pytest.mark.parametrize("name", NAMES)
def test_sampled_chance_plays_legal_full_games(name: str) -> None:
    """Chance drawn from chance_outcomes() by its probabilities: games end by the rules."""
    rules, seats, options = CASES[name]
    game = describe(rules, seats, options)
    for seed in range(3):
        state = new_game(game, seed, chance="explicit")
        rng = random.Random(f"{name}/{seed}")
        nodes = decisions = 0
        while not state.is_terminal():
            assert decisions < 2000, "the game did not end"
            if state.is_chance_node():
                outcomes = check_node(state)
                names, weights = zip(*outcomes, strict=True)
                state.apply_chance(rng.choices(names, weights=[float(w) for w in weights])[0])
                nodes += 1
            else:
                decide(state, rng)
                decisions += 1
        assert state.result() is not None and nodes > decisions / 2
        events = state.events()
        assert events is not None and sum(e["type"] == "chance" for e in events) == nodes
        if referee_covers(game):
            referee = Referee(game)
            referee.follow(without_chance(events))
            assert referee.phase == "over"
        elif rules == "cardgame":
            check_cardgame(state)
        # The log holds the outcomes: it follows the schema and replays event for event.
        log = json.loads(json.dumps(game_log(state)))
        assert list(VALIDATOR.iter_errors(log)) == []
        replayed = replay(log)
        assert replayed.result() == state.result()


@pytest.mark.parametrize("name", NAMES)
def test_explicit_chance_fed_the_tape_is_the_tape_game(name: str) -> None:
    """The seed's outcomes, given one by one, give the default game event for event."""
    rules, seats, options = CASES[name]
    game = describe(rules, seats, options)
    for seed in (1, 2024):
        tape = new_game(game, seed)
        explicit = new_game(game, seed, chance=ChanceMode.EXPLICIT)
        rng = random.Random(seed)
        while not explicit.is_terminal():
            if explicit.is_chance_node():
                check_node(explicit)
                explicit.apply_chance(explicit.tape_outcome())
                continue
            assert explicit.to_move() == tape.to_move()
            for seat in explicit.to_move():
                action = rng.choice(explicit.legal_actions(seat))
                assert explicit.legal_actions(seat) == tape.legal_actions(seat)
                explicit.apply_action(action, seat)
                tape.apply_action(action, seat)
                if explicit.is_chance_node():
                    break
        assert tape.is_terminal()
        assert without_chance(explicit.events()) == tape.events()
        assert explicit.result() == tape.result()


def test_a_roll_is_one_node_per_kind_with_multinomial_probabilities() -> None:
    state = new_game(describe("boulevard", 4), 5, chance="explicit")
    while not state.chance_outcomes()[0][0].startswith("die"):
        state.apply_chance(state.tape_outcome())
    # Boulevard, 4 seats: 5 dice, a Biggie, 2 kickers and 2 neutral dice per seat.
    kinds = []
    while state.is_chance_node():
        outcomes = dict(state.chance_outcomes())
        kind, count = next(iter(outcomes)).split()[0], len(next(iter(outcomes)).split()) - 1
        kinds.append((kind, count))
        assert outcomes == dice_outcomes(kind, count)
        assert len(outcomes) == math.comb(count + 5, 5)
        state.apply_chance(next(iter(outcomes)))  # all ones
    assert kinds == [("die", 5), ("biggie", 1), ("kicker", 2), ("neutral", 2)]
    assert state.observe(0)["roll"]["dice"] == {
        "die": [1] * 5,
        "biggie": [1],
        "kicker": [1, 1],
        "neutral": [1, 1],
    }
    assert state.legal_actions() == ("place 1", "slot 1")
    two = dice_outcomes("die", 2)
    assert two["die 1 1"] == Fraction(1, 36) and two["die 1 2"] == Fraction(2, 36)
    eight = dice_outcomes("die", 8)
    assert eight["die 1 2 3 4 5 6 6 6"] == Fraction(math.factorial(8) // 6, 6**8)
    black = ordered_dice_outcomes("black", 2)
    assert len(black) == 36 and black["black 5 2"] == Fraction(1, 36)


def test_a_draw_has_the_share_of_each_card_still_unseen() -> None:
    state = new_game(describe("classic", 4), 3, chance="explicit")
    # Classic's 54 notes: 6 x 10k, 8 x 20k, 8 x 30k, 6 x 40k, 6 x 50k, 5 each of 60k..90k.
    first = dict(state.chance_outcomes())
    assert first["note 10000"] == Fraction(6, 54) and first["note 90000"] == Fraction(5, 54)
    state.apply_chance("note 90000")  # over the $50,000 minimum: casino 1 is stocked
    assert (state.events() or [])[-2:] == [
        {"type": "chance", "outcome": "note 90000"},
        {"type": "stock", "casino": 1, "notes": [90_000]},
    ]
    second = dict(state.chance_outcomes())
    assert second["note 90000"] == Fraction(4, 53) and second["note 10000"] == Fraction(6, 53)
    state.apply_chance("note 20000")
    state.apply_chance("note 10000")
    state.apply_chance("note 20000")  # 50,000: the minimum
    assert (state.events() or [])[-1] == {
        "type": "stock",
        "casino": 2,
        "notes": [20_000, 10_000, 20_000],
    }


def test_royale_tiles_are_drawn_without_replacement_each_on_a_random_side() -> None:
    royale = new_game(describe("royale", 3, {"tiles": 2}), 3, chance="explicit")
    tiles = dict(royale.chance_outcomes())
    assert len(tiles) == 16 and set(tiles.values()) == {Fraction(1, 16)}
    royale.apply_chance("tile H2")
    second = dict(royale.chance_outcomes())
    assert len(second) == 14 and "tile H1" not in second and "tile H2" not in second
    royale.apply_chance("tile A1")
    assert royale.chance_outcomes()[0][0].startswith("card")
    while royale.is_chance_node():
        royale.apply_chance(royale.tape_outcome())
    setup = [(e["casino"], e["tile"]) for e in royale.events() or [] if e["type"] == "tile_setup"]
    assert setup == [(1, "H2"), (2, "A1")]


def test_misuse_is_refused_and_changes_nothing() -> None:
    game = describe("classic", 2)
    tape = new_game(game, 1)
    with pytest.raises(IllegalActionError, match="tape game"):
        tape.apply_chance("note 10000")
    assert not tape.is_chance_node() and tape.chance_outcomes() == []
    with pytest.raises(IllegalActionError, match="not a chance node"):
        tape.tape_outcome()
    state = new_game(game, 1, chance="explicit")
    before = json.dumps([state.observe(0), state.events()])
    with pytest.raises(IllegalActionError, match="apply_chance"):
        state.apply_action("place 1")
    with pytest.raises(IllegalActionError, match="not an outcome") as refused:
        state.apply_chance("note 15000")
    assert "note 10000" in refused.value.legal
    with pytest.raises(IllegalActionError):
        state.apply_chance(3)  # type: ignore[arg-type]
    assert json.dumps([state.observe(0), state.events()]) == before
    with pytest.raises(ValueError, match="'tape', 'explicit'"):
        new_game(game, 1, chance="dice")
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_chance(state.tape_outcome())
        else:
            state.apply_action(state.legal_actions()[0])
    with pytest.raises(GameOverError):
        state.apply_chance("die 1")


def test_a_clone_at_a_chance_node_goes_its_own_way() -> None:
    state = new_game(describe("cardgame", 3), 8, chance="explicit")
    fork = state.clone()
    assert fork.chance_outcomes() == state.chance_outcomes()
    assert type(fork) is type(state) and fork.is_chance_node()
    state.apply_chance("note 100000")
    fork.apply_chance("note 30000")
    assert state.events() != fork.events()
    again = fork.clone()
    for other in (fork, again):
        while other.is_chance_node():
            other.apply_chance(other.tape_outcome())
    assert fork.events() == again.events() and fork.to_move() == (0, 1, 2)


def test_an_observation_at_a_chance_node_says_chance() -> None:
    for rules in ("classic", "cardgame", "royale"):
        state = new_game(describe(rules, 3), 4, chance="explicit")
        seen = state.observe(1)
        assert seen["decision"] == "chance" and seen["to_move"] == []
        assert seen["legal_actions"] == [] and seen["result"] is None
