"""Golden playthroughs: fixed games whose complete logs are kept in ``golden/``.

Like OpenSpiel's playthroughs, each file pins down one whole game (every roll,
choice, payout and the result) for a rule system and option set. A test here
fails when the engine now plays a case differently, naming the first event
that differs. If the change is intended, run ``make golden`` and commit the
new files with the change; the tests never write them.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from tests.vegas_engine.regenerate_golden import CASES, GOLDEN_DIR, generate, path_of, render
from tests.vegas_engine.test_properties import Referee, referee_covers
from vegas_engine import log as game_logs
from vegas_engine.replay import replay

NAMES = sorted(CASES)
#: The cases the property tests' referee knows (the dice systems).
REFEREED = [name for name in NAMES if referee_covers(CASES[name].description())]
REGENERATE = "Run `make golden` (and commit the files) only if this change is intended."


def golden_text(name: str) -> str:
    path = path_of(name)
    if not path.exists():
        pytest.fail(f"{path} is missing. {REGENERATE}")
    return path.read_text()


def first_difference(golden: dict[str, Any], fresh: dict[str, Any]) -> str:
    """Where two logs first differ, in words."""
    for key in sorted(set(golden) | set(fresh) - {"events"}):
        if key != "events" and golden.get(key) != fresh.get(key):
            return (
                f"header field {key!r}: the golden file has {golden.get(key)!r}, "
                f"the engine now gives {fresh.get(key)!r}"
            )
    old, new = golden["events"], fresh["events"]
    for index, (before, now) in enumerate(zip(old, new, strict=False)):
        if before != now:
            return (
                f"event {index} ({before.get('type')}): the golden file has\n  {before}\n"
                f"the engine now produces\n  {now}"
            )
    if len(old) != len(new):
        shorter = min(len(old), len(new))
        extra = (new if len(new) > len(old) else old)[shorter]
        return (
            f"event {shorter}: the golden file has {len(old)} events, the engine now "
            f"{len(new)}; the first extra one is {extra}"
        )
    return "only the formatting (the logs are equal as JSON)"


def test_every_case_has_a_golden_file_and_no_file_is_stale() -> None:
    files = {path.stem for path in GOLDEN_DIR.glob("*.json")}
    assert files == set(CASES), (
        f"missing: {sorted(set(CASES) - files)}, stale: {sorted(files - set(CASES))}. " + REGENERATE
    )


@pytest.mark.parametrize("name", NAMES)
def test_golden_log_replays(name: str) -> None:
    """The stored log passes the log checks and replays event for event."""
    document = game_logs.loads(golden_text(name))
    state = replay(document)
    result = state.result()
    assert result is not None
    assert [seat.to_json() for seat in result] == document["events"][-1]["result"]


@pytest.mark.parametrize("name", REFEREED)
def test_golden_log_follows_the_rules(name: str) -> None:
    """The property tests' referee accepts every event of the stored game."""
    referee = Referee(CASES[name].description())
    referee.follow(json.loads(golden_text(name))["events"])
    assert referee.phase == "over"


@pytest.mark.parametrize("name", NAMES)
def test_golden_log_is_what_the_engine_plays_now(name: str) -> None:
    """Playing the case again gives the stored file, byte for byte."""
    stored = golden_text(name)
    fresh = render(generate(CASES[name]))
    if fresh != stored:
        where = first_difference(json.loads(stored), json.loads(fresh))
        pytest.fail(
            f"golden/{name}.json differs from the game the engine plays now at {where}\n"
            f"{REGENERATE} Otherwise this is a regression.",
            pytrace=False,
        )


@pytest.mark.parametrize("name", NAMES)
def test_golden_case_shows_what_it_is_kept_for(name: str) -> None:
    """Each case still exercises its feature (a new seed may be needed if not)."""
    case = CASES[name]
    document = json.loads(golden_text(name))
    assert document["rules"] == case.rules and document["seats"] == case.seats
    events = document["events"]
    types = Counter(event["type"] for event in events)
    missing = [shown for shown in case.shows if not types[shown]]
    assert not missing, f"{name} no longer shows {missing}: pick another seed in CASES"
    options = document["options"]
    if options.get("slot_machine"):
        assert any(e["type"] == "place" and e["casino"] == 7 for e in events)
    if options.get("kickers"):
        assert any(e["type"] == "kick" and e["kicked"] is not None for e in events)
    if options.get("neutral_dice"):
        assert any(e["type"] == "payout" and "neutral" in e["counts"] for e in events)
    assert any(e["type"] == "payout" and e["cancelled"] for e in events), "a tie at a casino"
