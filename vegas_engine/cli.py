"""``python -m vegas_engine``: list rule systems, play a game, replay a log.

Human-readable output by default, JSON with ``--json``. Bad input exits with
status 2 and one line saying what was wrong; a replay mismatch exits with 1.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import log as game_logs
from .description import OptionValue, check_seed
from .errors import LogError, VegasError
from .policies import POLICIES, play
from .registry import RULE_SYSTEMS, describe, rule_system
from .replay import final_result, replay
from .state import SeatResult


class CliError(Exception):
    """Bad command-line input; the message says what to change."""


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args))
    except (CliError, VegasError) as error:
        exit_code = 1 if isinstance(error, LogError) and args.command == "replay" else 2
        print(f"error: {error}", file=sys.stderr)
        return exit_code


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m vegas_engine", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    rules = commands.add_parser("rules", help="list the rule systems, their options and seats")
    rules.add_argument("--json", action="store_true", help="print JSON")
    rules.set_defaults(run=_rules)

    play_cmd = commands.add_parser("play", help="play one game with built-in policies")
    play_cmd.add_argument("--rules", required=True, help="rule system id, e.g. classic")
    play_cmd.add_argument("--players", type=int, required=True, help="number of seats")
    play_cmd.add_argument("--seed", type=int, required=True, help="game seed")
    play_cmd.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME[=VALUE]",
        help="set an option (a bare NAME switches a flag on); repeatable",
    )
    play_cmd.add_argument(
        "--policy",
        action="append",
        default=[],
        metavar="|".join(POLICIES),
        help="one policy for all seats, or one per seat in seat order (default random)",
    )
    play_cmd.add_argument("--log", type=Path, help="write the game log to this file")
    play_cmd.add_argument("--json", action="store_true", help="print JSON")
    play_cmd.set_defaults(run=_play)

    replay_cmd = commands.add_parser("replay", help="re-run a log and check every event")
    replay_cmd.add_argument("file", type=Path, help="a game log written by play --log")
    replay_cmd.add_argument("--json", action="store_true", help="print JSON")
    replay_cmd.set_defaults(run=_replay)
    return parser


def _rules(args: argparse.Namespace) -> int:
    if args.json:
        print(json.dumps([system.to_json() for system in RULE_SYSTEMS.values()], indent=2))
        return 0
    for system in RULE_SYSTEMS.values():
        seats = f"{system.seats[0]}-{system.seats[-1]}"
        print(f"{system.id}: {system.title}")
        print(f"  seats {seats}, {system.rounds} rounds")
        for spec in system.options:
            allowed = "flag" if spec.is_flag else "|".join(map(str, spec.allowed_values()))
            only = f", only with {spec.seats[0]}-{spec.seats[-1]} seats" if spec.seats else ""
            print(f"  --option {spec.name} ({allowed}, default {spec.default}{only})")
            print(f"      {spec.doc}")
    return 0


def _parse_options(rules: str, items: list[str]) -> dict[str, OptionValue]:
    system = rule_system(rules)
    options: dict[str, OptionValue] = {}
    for item in items:
        name, has_value, raw = item.partition("=")
        spec = system.option(name)
        if not has_value:
            if not spec.is_flag:
                raise CliError(f"--option {name} needs a value: {name}=N")
            options[name] = True
        elif spec.is_flag:
            lowered = raw.lower()
            if lowered not in ("true", "false", "1", "0", "yes", "no", "on", "off"):
                raise CliError(f"--option {name}={raw}: a flag takes true or false")
            options[name] = lowered in ("true", "1", "yes", "on")
        else:
            try:
                options[name] = int(raw)
            except ValueError:
                raise CliError(f"--option {name}={raw}: expected an integer") from None
    return options


def _play(args: argparse.Namespace) -> int:
    description = describe(args.rules, args.players, _parse_options(args.rules, args.option))
    seed = check_seed(args.seed)
    names = args.policy or ["random"]
    for name in names:
        if name not in POLICIES:
            raise CliError(f"--policy {name!r} is unknown; allowed: {', '.join(POLICIES)}")
    if len(names) == 1:
        names = names * description.seats
    if len(names) != description.seats:
        raise CliError(
            f"give one --policy for all seats or one per seat ({description.seats}), "
            f"got {len(names)}"
        )
    state = play(description, seed, [POLICIES[name] for name in names])
    result = final_result(state)
    if args.log:
        args.log.write_text(game_logs.dumps(game_logs.game_log(state)) + "\n")
    if args.json:
        print(
            json.dumps(
                {
                    "game": {**description.to_json(), "seed": seed},
                    "policies": names,
                    "result": [seat.to_json() for seat in result],
                }
            )
        )
    else:
        print(f"{description.rules}, {description.seats} seats, seed {seed}")
        _print_result(result, names)
        if args.log:
            print(f"log written to {args.log}")
    return 0


def _replay(args: argparse.Namespace) -> int:
    try:
        text = args.file.read_bytes()
    except OSError as error:
        raise CliError(f"cannot read {args.file}: {error.strerror}") from None
    document = game_logs.loads(text)
    state = replay(document)
    result = final_result(state)
    events = state.events()
    assert events is not None  # a replayed state logs its events
    if "moves" in document:
        what = f"{len(document['moves'])} moves play to the log's result ({len(events)} events)"
    else:
        what = f"{len(events)} events match"
    if args.json:
        summary = {"ok": True, "events": len(events), "result": [s.to_json() for s in result]}
        print(json.dumps(summary))
    else:
        print(f"replay ok: {what}")
        _print_result(result, None)
    return 0


def _print_result(result: list[SeatResult], policies: list[str] | None) -> None:
    rows: list[tuple[Any, ...]] = []
    for seat in sorted(result, key=lambda r: (r.rank, r.seat)):
        who = f"seat {seat.seat}" + (f" ({policies[seat.seat]})" if policies else "")
        rows.append((seat.rank, who, f"${seat.money:,}", seat.notes))
    width = max(len(row[1]) for row in rows)
    print(f"{'rank':>4}  {'seat':<{width}}  {'money':>10}  notes")
    for rank, who, money, notes in rows:
        print(f"{rank:>4}  {who:<{width}}  {money:>10}  {notes:>5}")
