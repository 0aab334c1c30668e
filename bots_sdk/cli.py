"""``python -m bots_sdk``: write a starter bot, play, run a tournament, rerun, validate.

Human-readable output by default, JSON with ``--json``. A BOT is a source
file of any runtime (``.py``, ``.js``, ``.c``, ``.cpp``, ``.java``, ``.rs``,
``.go``), a folder with its main file at the top (``main.py``, ``main.c``,
...), an executable, or a house bot name (``random``, ``greedy``,
``gambler``, ``montecarlo``, ``ismcts``). Bots are built and run in the
sandbox, as on the platform, unless ``--no-sandbox`` (house bots always run
bare: they are the platform's code).
Bad input exits with status 2; ``validate`` exits with 1 when the bot fails,
``rerun`` when the bot answers a recorded request otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from vegas_engine import OptionValue, VegasError, describe, rule_system

from . import sandbox
from .games import GameSetup
from .kits import KITS, KitError, kit, write_kit
from .launcher import (
    HOUSE_BOTS,
    BotBuildError,
    BotNotFoundError,
    BotSpec,
    build_bot,
    readable_bot,
    resolve_bot,
    sandbox_note,
    sandbox_unavailable,
)
from .preflight import preflight
from .protocol import Limits
from .referee import GameRecord, HostStalledError, new_bot_seed_key, play_series
from .rerun import RerunError, RerunResult, read_log, rerun
from .runtimes import ToolchainMissingError
from .tournament import run_tournament


class CliError(Exception):
    """Bad command-line input or environment; the message says what to change."""


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    # An author's own machine: as a user that is not root the sandbox runs with
    # what it can enforce, and says what it cannot (a platform worker never allows it).
    sandbox.allow_unprivileged()
    try:
        return int(args.run(args))
    except (CliError, BotNotFoundError, VegasError, sandbox.SandboxError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except HostStalledError as error:
        advice = "nobody forfeited: run it again on a less busy machine"
        print(f"error: {error}; {advice}", file=sys.stderr)
        return 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bots_sdk", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    new = commands.add_parser("new", help="write a starter bot: the folder NAME with main.<ext>")
    new.add_argument("name", help="the bot's folder name (a new folder)")
    new.add_argument(
        "--lang",
        default="python",
        help=f"the kit's language: {', '.join(KITS)} (default python)",
    )
    new.add_argument("--json", action="store_true", help="print JSON")
    new.set_defaults(run=_new)

    play = commands.add_parser("play", help="play games between bots and print the result")
    play.add_argument("bots", nargs="+", metavar="BOT", help="one bot per seat (missing: random)")
    _game_arguments(play)
    play.add_argument(
        "--seed", type=int, help="seed of the first game (default: a random one, printed)"
    )
    _bot_seed_key_argument(play)
    play.add_argument("--games", type=int, default=1, help="games, seats rotating (default 1)")
    play.add_argument(
        "--log",
        type=Path,
        help="write the game logs here, one JSON per line (each seat's trace included)",
    )
    play.add_argument(
        "--debug",
        action="store_true",
        help="show each decision's action, time, note and stderr, for the bots that sent any",
    )
    play.set_defaults(run=_play)

    tournament = commands.add_parser("tournament", help="round robin with seat rotation")
    tournament.add_argument("bots", nargs="+", metavar="BOT")
    _game_arguments(tournament)
    tournament.add_argument("--games", type=int, required=True, help="games per table")
    tournament.add_argument("--seed", type=int, help="first seed (default: a random one, printed)")
    _bot_seed_key_argument(tournament)
    tournament.set_defaults(run=_tournament)

    rerun = commands.add_parser(
        "rerun",
        help="put one seat's requests of a recorded game to BOT; report where it answers otherwise",
    )
    rerun.add_argument(
        "log",
        metavar="LOG",
        help="a game log file (as downloaded, gzip or not, or a `play --log` file) or a "
        "match's address on the platform (https://HOST/matches/ID/)",
    )
    rerun.add_argument("--seat", type=int, required=True, help="the seat to rerun (0-based)")
    rerun.add_argument("bot", metavar="BOT")
    rerun.add_argument(
        "--token",
        default=os.environ.get("ARENA_TOKEN"),
        help="API token for a match address (default: $ARENA_TOKEN); POST /api/auth/token/ "
        "gives one",
    )
    rerun.add_argument(
        "--bot-seed", type=int, help="the seat's bot seed, when the log does not give it"
    )
    rerun.add_argument("--game", type=int, default=1, help="the game of a `play --log` file")
    rerun.add_argument(
        "--all", action="store_true", help="every different answer, not just the first"
    )
    rerun.add_argument(
        "--wait-ms",
        type=int,
        help="wait this long for each answer (the request still says the time the seat had "
        "left): for a machine slower than the one that played the game",
    )
    rerun.add_argument(
        "--no-sandbox",
        action="store_true",
        help="run the bot as a plain process (trusted: local development only)",
    )
    rerun.add_argument("--json", action="store_true", help="print JSON")
    rerun.set_defaults(run=_rerun)

    validate = commands.add_parser(
        "validate",
        help="the platform's pre-flight check of a bot: one full game of a ladder's setup",
    )
    validate.add_argument("bot", metavar="BOT")
    validate.add_argument("--rules", default="classic", help="rule system id (default classic)")
    validate.add_argument(
        "--players", type=int, help="seats (default 4, or the rule system's nearest seat count)"
    )
    _option_argument(validate)
    validate.add_argument(
        "--seed", type=int, help="the game's seed (default: a fresh random one, printed)"
    )
    validate.add_argument(
        "--seat", type=int, help="the bot's seat, from 0 (default: a random one, printed)"
    )
    _common_arguments(validate)
    validate.add_argument(
        "--memory-mb", type=int, default=Limits().memory_bytes // 2**20, help="sandbox memory"
    )
    validate.set_defaults(run=_validate)
    return parser


def _common_arguments(parser: argparse.ArgumentParser) -> None:
    defaults = Limits()
    parser.add_argument(
        "--no-sandbox",
        action="store_true",
        help="run the bots as plain processes (trusted: local development only)",
    )
    parser.add_argument("--startup-ms", type=int, default=defaults.startup_ms)
    parser.add_argument("--decision-ms", type=int, default=defaults.decision_ms)
    parser.add_argument("--bank-ms", type=int, default=defaults.bank_ms)
    parser.add_argument("--json", action="store_true", help="print JSON")


def _game_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rules", required=True, help="rule system id, e.g. classic")
    parser.add_argument("--players", type=int, required=True, help="seats per game")
    _common_arguments(parser)


def _bot_seed_key_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--bot-seed-key",
        metavar="HEX",
        help="the secret the bots' own seeds come from (default: a random one, printed); "
        "with --seed, repeats a run exactly",
    )


def _run_seeds(args: argparse.Namespace) -> tuple[int, bytes]:
    """The first game's seed and the bot seed key: given, or drawn and printed to repeat."""
    seed = args.seed if args.seed is not None else secrets.randbelow(10**12)
    if args.bot_seed_key is None:
        key = new_bot_seed_key()
    else:
        try:
            key = bytes.fromhex(args.bot_seed_key)
        except ValueError:
            raise CliError("--bot-seed-key: give the hexadecimal key a run printed") from None
        if len(key) < 16:
            raise CliError("--bot-seed-key: the key must be at least 16 bytes (32 hex digits)")
    if not args.json:
        print(f"seed {seed}; repeat this run with --seed {seed} --bot-seed-key {key.hex()}")
    return seed, key


def _option_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a rule system option, e.g. --option tiles=3 --option slot_machine=true "
        "(python -m vegas_engine rules lists them)",
    )


def _options(pairs: Sequence[str]) -> dict[str, OptionValue]:
    """``NAME=VALUE`` pairs: true/false for flags, integers for the others."""
    options: dict[str, OptionValue] = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        word = text.strip().lower()
        if not sep or not name.strip() or not word:
            raise CliError(f"--option {pair!r}: write NAME=VALUE, e.g. --option tiles=3")
        if word in ("true", "yes", "on"):
            options[name.strip()] = True
        elif word in ("false", "no", "off"):
            options[name.strip()] = False
        else:
            try:
                options[name.strip()] = int(word)
            except ValueError:
                raise CliError(
                    f"--option {pair!r}: the value must be true, false or an integer"
                ) from None
    return options


def _limits(args: argparse.Namespace) -> Limits:
    extra = {"memory_bytes": args.memory_mb * 2**20} if hasattr(args, "memory_mb") else {}
    try:
        return Limits(
            startup_ms=args.startup_ms, decision_ms=args.decision_ms, bank_ms=args.bank_ms, **extra
        )
    except ValueError as error:
        raise CliError(str(error)) from None


def _bots(names: Sequence[str], no_sandbox: bool, *, built: bool = True) -> list[BotSpec]:
    specs = [resolve_bot(name, trusted=no_sandbox) for name in names]
    shown = [spec.name for spec in specs]
    for index, name in enumerate(shown):
        if shown.count(name) > 1:  # the same bot twice: tell the entries apart
            specs[index] = replace(specs[index], name=f"{name}#{shown[: index + 1].count(name)}")
    if any(not spec.trusted for spec in specs):
        _check_sandbox()
        specs = [readable_bot(spec) for spec in specs]
    programs: dict[str, BotSpec] = {}  # a bot named twice is built once
    for index, spec in enumerate(specs if built else []):
        key = f"{spec.bot_dir}/{spec.main}"
        if key not in programs:
            try:
                programs[key] = build_bot(spec)
            except (BotBuildError, ToolchainMissingError) as error:
                raise CliError(str(error)) from None
        specs[index] = replace(programs[key], name=spec.name)
    return specs


def _check_sandbox() -> None:
    """Refuse when the sandbox cannot run; note on stderr what it cannot enforce."""
    unavailable = sandbox_unavailable()
    unsandboxed = "pass --no-sandbox to run the bots unsandboxed"
    if unavailable is not None and os.geteuid() == 0:
        raise CliError(f"{unavailable}\nor {unsandboxed}")
    if unavailable is not None:  # one line: what is wrong, what to do
        raise CliError(
            f"the sandbox cannot run as you: {'; '.join(unavailable.missing)}; {unsandboxed}"
        )
    note = sandbox_note()
    if note is not None:
        print(f"note: {note}", file=sys.stderr)


# ------------------------------------------------------------------ commands


def _new(args: argparse.Namespace) -> int:
    folder = Path(args.name)
    try:
        written = write_kit(folder.name, args.lang, folder)
    except KitError as error:
        raise CliError(str(error)) from None
    main_file = folder / kit(args.lang).main
    if args.json:
        print(json.dumps({"created": str(main_file), "files": [str(p) for p in written]}))
    else:
        print(f"created {main_file} (and README.md): edit its choose function")
        print(f"try it: python -m bots_sdk play {folder} --rules classic --players 2 --no-sandbox")
    return 0


def _play(args: argparse.Namespace) -> int:
    system = rule_system(args.rules)
    if args.games < 1:
        raise CliError("--games must be at least 1")
    names = list(args.bots)
    if len(names) > args.players:
        raise CliError(f"{len(names)} bots for {args.players} seats")
    filled = args.players - len(names)
    names += ["random"] * filled
    specs = _bots(names, args.no_sandbox)
    seed, key = _run_seeds(args)
    description = describe(system.id, args.players)
    deals = [(description, seed + game) for game in range(args.games)]
    records = play_series(specs, deals, _limits(args), bot_seed_key=key)
    if args.log:
        with args.log.open("w") as handle:
            for record in records:
                # The events form: what an author reads (the referee keeps moves).
                handle.write(json.dumps(record.log, separators=(",", ":")) + "\n")
    if args.json:
        games = [_game_json(record, trace=args.debug) for record in records]
        print(json.dumps({"seed": seed, "bot_seed_key": key.hex(), "games": games}))
        return 0
    if filled:
        print(f"({filled} seat(s) filled with the house bot random)")
    for record in records:
        _print_game(record)
        if args.debug:
            _print_trace(record)
    if not args.debug and (noted := _noted_seats(records)):
        which = f"seat {noted[0]}" if len(noted) == 1 else f"seats {', '.join(map(str, noted))}"
        print(f"({which} sent notes or stderr: --debug shows them decision by decision)")
    if len(records) > 1:
        _print_totals(records, len(specs))
    if args.log:
        print(f"logs written to {args.log}")
    return 0


def _tournament(args: argparse.Namespace) -> int:
    rule_system(args.rules)
    if args.games < 1:
        raise CliError("--games must be at least 1")
    specs = _bots(args.bots, args.no_sandbox)
    if len(specs) < args.players:
        raise CliError(f"{args.players}-seat games need at least {args.players} bots")
    describe(args.rules, args.players)  # validates the seat count early
    seed, key = _run_seeds(args)

    def progress(done: int, total: int) -> None:
        if sys.stderr.isatty():
            width = 30
            bar = "#" * (width * done // total) + "." * (width - width * done // total)
            end = "\n" if done == total else ""
            print(f"\r[{bar}] {done}/{total} games", end=end, file=sys.stderr, flush=True)
        elif done == total or done * 10 // total != (done - 1) * 10 // total:
            print(f"{done}/{total} games", file=sys.stderr, flush=True)  # a log: every 10%

    result = run_tournament(
        specs,
        rules=args.rules,
        seats=args.players,
        games=args.games,
        seed=seed,
        limits=_limits(args),
        progress=progress,
        bot_seed_key=key,
    )
    if args.json:
        standings = [s.to_json() for s in result.standings]
        print(
            json.dumps(
                {
                    "seed": seed,
                    "bot_seed_key": key.hex(),
                    "standings": standings,
                    "games": len(result.records),
                }
            )
        )
    else:
        print(result.table())
    return 0


def _validate(args: argparse.Namespace) -> int:
    if args.bot in HOUSE_BOTS and not Path(args.bot).exists():
        spec = resolve_bot(args.bot)
    else:
        (spec,) = _bots([args.bot], args.no_sandbox, built=False)
        try:
            spec = build_bot(spec)
        except ToolchainMissingError as error:
            raise CliError(str(error)) from None
        except BotBuildError as error:  # the bot's failure, as the platform reports it
            if args.json:
                print(json.dumps({"ok": False, "bot": spec.name, "build": error.result.output}))
            else:
                print(f"FAILED: {error}")
            return 1
    setup = _setup(args)
    if args.seat is not None and not 0 <= args.seat < setup.seats:
        raise CliError(f"--seat: a game of {setup.seats} seats has seats 0-{setup.seats - 1}")
    report = preflight(spec, setup, seed=args.seed, seat=args.seat)
    if args.json:
        print(json.dumps(report.to_json()))
    else:
        print(report.describe())
    return 0 if report.ok else 1


def _rerun(args: argparse.Namespace) -> int:
    """0: every answer the same; 1: a different one (or a fault); 2: bad input."""
    if args.wait_ms is not None and args.wait_ms <= 0:
        raise CliError("--wait-ms must be a positive number of milliseconds")
    try:
        log = read_log(args.log, token=args.token, game=args.game)
        (spec,) = _bots([args.bot], args.no_sandbox)
        result = rerun(
            log,
            args.seat,
            spec,
            bot_seed=args.bot_seed,
            every_difference=args.all,
            wait_ms=args.wait_ms,
        )
    except RerunError as error:
        raise CliError(str(error)) from None
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        _print_rerun(result, spec.name)
    return 0 if result.same else 1


def _print_rerun(result: RerunResult, bot: str) -> None:
    for remark in result.remarks:
        print(f"note: {remark}")
    if result.same:
        print(
            f"same: {bot} answered all {result.compared} decisions of seat {result.seat} "
            "as the recorded game played them"
        )
        return
    for difference in result.differences:
        print(
            f"decision {difference.decision} of seat {result.seat} "
            f"(move {difference.move}, request {difference.request}):"
        )
        print(f"  recorded: {difference.recorded}")
        if difference.fault is not None:
            print(f"  {bot}: faulted: {difference.fault.kind.value}: {difference.fault.message}")
        else:
            illegal = " (not legal there)" if difference.illegal else ""
            print(f"  {bot}: {difference.answered}{illegal}")
        print(f"  legal: {', '.join(difference.legal_actions)}")
        if difference.note:
            print(f"  note: {difference.note}")
        for line in difference.stderr.splitlines():
            print(f"  stderr| {line}")
    print(
        f"{len(result.differences)} different of {result.compared} decisions compared "
        f"(the seat's bot answered {result.answered})"
    )


def _setup(args: argparse.Namespace) -> GameSetup:
    """The game ``validate`` plays, checked by the engine before any bot starts."""
    system = rule_system(args.rules)
    players = args.players
    if players is None:  # four seats, as the default ladders, where the system allows
        players = min(system.seats, key=lambda seats: (abs(seats - 4), seats))
    setup = GameSetup(system.id, players, _options(args.option), _limits(args))
    setup.describe()  # raises InvalidDescriptionError, naming the bad seat count or option
    return setup


# ------------------------------------------------------------------ output


def _game_json(record: GameRecord, *, trace: bool = False) -> dict[str, object]:
    left_out = {"decision_ms"} if trace else {"decision_ms", "trace"}
    return {
        "game": {**record.description.to_json(), "seed": record.seed},
        "players": [seat.name for seat in record.seats],
        "result": record.result,
        "seats": [
            {k: v for k, v in seat.to_json().items() if k not in left_out} for seat in record.seats
        ],
    }


def _noted_seats(records: Sequence[GameRecord]) -> list[int]:
    """The seats (in any game) whose bot sent a note or wrote stderr while deciding."""
    return sorted(
        {
            seat.seat
            for record in records
            for seat in record.seats
            if any(entry.note or entry.stderr for entry in seat.trace)
        }
    )


def _print_trace(record: GameRecord) -> None:
    """Each decision of the seats whose bot sent a note or wrote stderr: the move it
    made, its time, its note and its stderr."""
    moves = record.moves_log["moves"]
    for seat in record.seats:
        if not any(entry.note or entry.stderr for entry in seat.trace):
            continue
        print(f"  seat {seat.seat} ({seat.name}), decision by decision:")
        for entry in seat.trace:
            took = "no reply" if entry.elapsed_ms is None else f"{entry.elapsed_ms:.1f} ms"
            cut = ", cut to its cap" if entry.truncated else ""
            print(f"    move {entry.move}: {moves[entry.move][1]} ({took}{cut})")
            for label, text in (("note", entry.note), ("stderr", entry.stderr)):
                for line in text.splitlines():
                    print(f"      {label}: {line}")


def _print_game(record: GameRecord) -> None:
    d = record.description
    print(f"game {record.game_id}: {d.rules}, {d.seats} seats, seed {record.seed}")
    names = {seat.seat: seat.name for seat in record.seats}
    width = max(len(name) for name in names.values()) + len("seat 0 ()")
    print(f"  {'rank':>4}  {'seat':<{width}}  {'money':>10}  notes")
    for entry in sorted(record.result, key=lambda e: (e["rank"], e["seat"])):
        who = f"seat {entry['seat']} ({names[entry['seat']]})"
        flag = "  FORFEITED" if entry["forfeited"] else ""
        money = f"${entry['money']:,}"
        print(f"  {entry['rank']:>4}  {who:<{width}}  {money:>10}  {entry['notes']:>5}{flag}")
    for seat in record.seats:
        if seat.fault is not None:
            print(
                f"  seat {seat.seat} ({seat.name}) " + seat.fault.describe().replace("\n", "\n  ")
            )


def _print_totals(records: Sequence[GameRecord], players: int) -> None:
    wins = [0] * players
    money = [0] * players
    names = [""] * players
    for record in records:
        for seat, entry in zip(record.seats, record.result, strict=True):
            names[seat.player] = seat.name
            wins[seat.player] += entry["rank"] == 1
            money[seat.player] += entry["money"]
    print(f"totals over {len(records)} games:")
    for player in range(players):
        print(
            f"  {names[player]}: {wins[player]} wins, mean money "
            f"${money[player] / len(records):,.0f}"
        )
