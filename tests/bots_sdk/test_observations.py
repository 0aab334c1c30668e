"""The typed observations (bots_sdk.observations) and seat helpers (bots_sdk.seats).

Real observations of random games of every rule system are checked against
the TypedDicts by a small checker that walks their type hints: every key
required is present, no key is unknown, every value has its declared type.
The docs' tables are checked against the same TypedDicts, so the types, the
engine and docs/observation.md cannot drift apart.
"""

from __future__ import annotations

import functools
import re
import types
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints, is_typeddict

import pytest

from bots_sdk import observations as typed
from bots_sdk.seats import by_seat, key, lists_by_seat, neutral, of_seat, others, owner, owners
from tests.bots_sdk.random_games import CONFIGS, config_id, observations

pytestmark = pytest.mark.slow

DOCS = Path(__file__).resolve().parents[2] / "docs" / "observation.md"


class Mismatch(AssertionError):
    pass


@functools.cache
def type_hints(hint: Any) -> dict[str, Any]:
    return get_type_hints(hint)


def check(value: Any, hint: Any, path: str = "observation") -> None:
    """Raise :class:`Mismatch` naming the first place ``value`` does not fit ``hint``."""
    origin = get_origin(hint)
    if is_typeddict(hint):
        if not isinstance(value, dict):
            raise Mismatch(f"{path}: expected an object, got {value!r}")
        missing = hint.__required_keys__ - value.keys()
        unknown = value.keys() - hint.__required_keys__ - hint.__optional_keys__
        if missing or unknown:
            raise Mismatch(f"{path}: missing {sorted(missing)}, unknown {sorted(unknown)}")
        hints = type_hints(hint)
        for name, item in value.items():
            check(item, hints[name], f"{path}.{name}")
    elif origin is Literal:
        if value not in get_args(hint):
            raise Mismatch(f"{path}: {value!r} is not one of {get_args(hint)}")
    elif origin in (Union, types.UnionType):
        errors = []
        for option in get_args(hint):
            try:
                check(value, option, path)
                return
            except Mismatch as error:
                errors.append(str(error))
        raise Mismatch(" / ".join(errors))
    elif origin is list:
        if not isinstance(value, list):
            raise Mismatch(f"{path}: expected a list, got {value!r}")
        (item_hint,) = get_args(hint)
        for index, item in enumerate(value):
            check(item, item_hint, f"{path}[{index}]")
    elif origin is dict:
        if not isinstance(value, dict):
            raise Mismatch(f"{path}: expected an object, got {value!r}")
        key_hint, item_hint = get_args(hint)
        assert key_hint is str
        for name, item in value.items():
            check(name, str, f"{path} key")
            check(item, item_hint, f"{path}.{name}")
    elif hint is type(None):
        if value is not None:
            raise Mismatch(f"{path}: expected null, got {value!r}")
    elif hint in (int, bool, str):
        # type(), not isinstance: a bool is not an int in JSON.
        if type(value) is not hint:
            raise Mismatch(f"{path}: expected {hint.__name__}, got {value!r}")
    else:
        raise AssertionError(f"{path}: the checker does not know {hint!r}")


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_real_observations_fit_their_typed_dict(config: tuple[str, int, dict[str, Any]]) -> None:
    rules, seats, options = config
    hint = typed.OBSERVATION_TYPES[rules]
    seen = 0
    decisions = set()
    for observation in observations(rules, seats, options, games=4):
        check(observation, hint)
        if not seen:
            check(observation, typed.Observation)  # the union takes it too
        decisions.add(observation["decision"])
        seen += 1
    assert seen > 100 and "none" in decisions and len(decisions) >= 2


def test_the_checker_refuses_what_does_not_fit() -> None:
    (observation, *_) = observations("boulevard", 3, {}, games=1)
    check(observation, typed.BoulevardObservation)
    for field, value, says in (
        ("seat", True, "expected int"),
        ("rules", "classic", "is not one of"),
        ("pile_size", None, "expected int"),
        ("kick", {"casino": 1}, "missing ['kicks_left']"),
        ("legal_actions", [3], "expected str"),
    ):
        with pytest.raises(Mismatch, match=re.escape(says)):
            check({**observation, field: value}, typed.BoulevardObservation)
    with pytest.raises(Mismatch, match=r"unknown \['surprise'\]"):
        check({**observation, "surprise": 1}, typed.BoulevardObservation)
    with pytest.raises(Mismatch, match=r"missing \['roll'\]"):
        check({k: v for k, v in observation.items() if k != "roll"}, typed.BoulevardObservation)


# ------------------------------------------------------------------ the docs


def doc_tables() -> dict[str, list[list[str]]]:
    """docs/observation.md: per heading, the field names of each table (first column)."""
    tables: dict[str, list[list[str]]] = {}
    heading = ""
    in_table = False
    for line in DOCS.read_text().splitlines():
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
        if line.startswith("|") and not in_table:  # a table's header row
            tables.setdefault(heading, []).append([])
        in_table = line.startswith("|")
        row = re.match(r"\| `([a-z_]+)` \|", line)
        if row:
            tables[heading][-1].append(row.group(1))
    return tables


def own_keys(hint: Any, *minus: Any) -> set[str]:
    keys = set(get_type_hints(hint))
    for other in minus:
        keys -= set(get_type_hints(other))
    return keys


def test_docs_tables_list_exactly_the_typed_fields() -> None:
    tables = doc_tables()

    def table(prefix: str, index: int = 0) -> set[str]:
        (heading,) = (name for name in tables if name.startswith(prefix))
        return set(tables[heading][index])

    common = own_keys(typed._Common) | {"rules", "casinos"}
    shared = {"notes_won", "chips"}  # "Dice systems and card game"
    assert table("Common fields") == common
    assert table("Dice systems and card game") == shared
    assert table("`chips`") == own_keys(typed.Chips)
    assert table("Dice systems (") == own_keys(typed.ClassicObservation) - common - shared
    assert table("Dice systems (", 1) == own_keys(typed.DiceCasino)
    assert table("Card game") == own_keys(typed.CardgameObservation) - common - shared
    assert table("Royale") == own_keys(typed.RoyaleObservation) - common
    assert table("Royale", 1) == own_keys(typed.RoyaleTiles)
    # The casinos of the card game and royale are described in a sentence.
    text = DOCS.read_text()
    for hint in (typed.CardCasino, typed.RoyaleCasino):
        sentence = re.findall(r"Each entry of `casinos`: (.*?)\.\n\n", text, re.S)
        assert any(set(re.findall(r"`(\w+)` \(", s)) == own_keys(hint) for s in sentence), hint


# ------------------------------------------------------------------ seats


def test_seat_helpers_read_seat_keyed_objects_by_number() -> None:
    dice = {"0": 2, "2": 3, "neutral": 1}
    assert by_seat(dice, 4) == [2, 0, 3, 0]
    assert neutral(dice) == 1 and neutral({"1": 1}) == 0
    assert owners(dice) == {0: 2, 2: 3, "neutral": 1}
    assert of_seat(dice, 2, 0) == 3 and of_seat(dice, 1, None) is None
    assert key(3) == "3" and owner("3") == 3 and owner("grey") == "grey"
    cards = {"1": ["2", "5D"]}
    per_seat = lists_by_seat(cards, 3)
    assert per_seat == [[], ["2", "5D"], []]
    per_seat[0].append("1")
    assert lists_by_seat(cards, 3)[0] == [] and cards == {"1": ["2", "5D"]}
    assert list(others({"seats": 4, "seat": 2})) == [3, 0, 1]


def test_seat_helpers_agree_with_real_casinos() -> None:
    """The dice systems' invariant (docs/observation.md): each seat's hand plus its
    dice on the casinos plus its used kickers is all its dice, read by seat number."""
    for observation in observations("boulevard", 4, {}, games=2):
        seats = observation["seats"]
        on_casinos = [0] * seats
        for casino in observation["casinos"]:
            biggies = by_seat(casino["biggies"], seats)
            for seat, dice in enumerate(by_seat(casino["dice"], seats)):
                on_casinos[seat] += dice - biggies[seat]  # a Biggie counts 2: count it once
        for seat in range(seats):
            hand = observation["hands"][seat]
            held = hand["die"] + hand["biggie"] + hand["kicker"]
            assert held + on_casinos[seat] + observation["kickers_used"][seat] == 8
