"""Regenerate the golden game logs in ``tests/vegas_engine/golden/``.

Run it only when a change of the engine's behaviour is intended::

    make golden        # or: python3 tests/vegas_engine/regenerate_golden.py

Each golden file is the complete log of one game of a fixed description,
played by fixed built-in policies (by default greedy on even seats, random on
odd seats; their random generators are seeded by the game). ``test_golden.py`` replays
every file and plays every case again in memory, comparing byte for byte, so
any change to rolls, rules, event contents or the log format shows up as a
named event. The tests never write these files.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vegas_engine import RULE_SYSTEMS, GameDescription, describe
from vegas_engine.log import game_log
from vegas_engine.policies import POLICIES, play

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"


def only(rules: str, *names: str) -> dict[str, bool]:
    """Every flag option of ``rules`` off except ``names``."""
    return {spec.name: spec.name in names for spec in RULE_SYSTEMS[rules].options if spec.is_flag}


@dataclass(frozen=True)
class Case:
    """One golden game: its description, its seed and which policy plays each seat."""

    rules: str
    seats: int
    seed: int
    options: Mapping[str, bool | int] = field(default_factory=dict)
    #: What the game must show for the case to be worth keeping (event types).
    shows: tuple[str, ...] = ()
    #: The policy of each seat; default greedy on even seats, random on odd ones.
    seat_policies: tuple[str, ...] | None = None

    def description(self) -> GameDescription:
        return describe(self.rules, self.seats, self.options)

    def policies(self) -> list[str]:
        if self.seat_policies is not None:
            return list(self.seat_policies)
        return ["greedy" if seat % 2 == 0 else "random" for seat in range(self.seats)]


CASES: dict[str, Case] = {
    "classic-4p": Case("classic", 4, 101),
    "classic-neutral-2p": Case("classic", 2, 102, {"neutral_dice": True}),
    "classic-neutral-3p": Case("classic", 3, 103, {"neutral_dice": True}, ("neutral_roll",)),
    "classic-chips-3p": Case("classic", 3, 104, {"chips": True}, ("chip_take", "chip_score")),
    "boulevard-4p": Case("boulevard", 4, 105, {}, ("kick", "rainbow")),
    "boulevard-6p": Case("boulevard", 6, 106, {}, ("kick",)),
    "boulevard-2p": Case("boulevard", 2, 107, {}, ("kick",)),
    "boulevard-kickers-3p": Case("boulevard", 3, 108, only("boulevard", "kickers"), ("kick",)),
    "boulevard-slot-machine-3p": Case("boulevard", 3, 109, only("boulevard", "slot_machine")),
    "boulevard-rainbow-3p": Case("boulevard", 3, 110, only("boulevard", "rainbow"), ("rainbow",)),
    "sixdice-4p-neutral": Case("sixdice", 4, 111, {"neutral_dice": True}),
    "sixdice-5p-slot-machine": Case("sixdice", 5, 112, {"slot_machine": True}),
    "cardgame-3p": Case("cardgame", 3, 113, {}, ("finish",)),
    "cardgame-4p-sequential-chips": Case(
        "cardgame", 4, 114, {"sequential": True, "chips": True}, ("chip_take",)
    ),
    "royale-3p": Case("royale", 3, 115, {}, ("activate", "reward")),
    "royale-2p-neutral-basic": Case(
        "royale", 2, 116, {"neutral_dice": True, "tiles": 0}, ("neutral_roll", "chip_pass")
    ),
    "royale-4p-six-tiles": Case("royale", 4, 117, {"tiles": 6}, ("activate", "move", "reward")),
}


def generate(case: Case) -> dict[str, Any]:
    """The log of ``case`` played now by the current engine."""
    state = play(case.description(), case.seed, [POLICIES[name] for name in case.policies()])
    return game_log(state)


def render(log: Mapping[str, Any]) -> str:
    """Stable, diff-friendly JSON: sorted header keys, then one event per line."""
    lines = ["{"]
    for key in sorted(k for k in log if k != "events"):
        lines.append(f"  {json.dumps(key)}: {json.dumps(log[key], sort_keys=True)},")
    events = [f"    {json.dumps(event, sort_keys=True)}" for event in log["events"]]
    lines.append('  "events": [')
    lines.append(",\n".join(events))
    lines.append("  ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def path_of(name: str) -> Path:
    return GOLDEN_DIR / f"{name}.json"


def main() -> int:
    GOLDEN_DIR.mkdir(exist_ok=True)
    for name, case in CASES.items():
        text = render(generate(case))
        path = path_of(name)
        old = path.read_text() if path.exists() else None
        if old != text:
            path.write_text(text)
        status = "unchanged" if old == text else ("written" if old is None else "UPDATED")
        print(f"{status:>9}  {path.relative_to(GOLDEN_DIR.parent)}")
    for path in sorted(GOLDEN_DIR.glob("*.json")):
        if path.stem not in CASES:
            path.unlink()
            print(f"{'removed':>9}  {path.relative_to(GOLDEN_DIR.parent)} (no such case)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
