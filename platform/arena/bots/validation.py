"""Checks a stored version must pass before it may play a game.

First the version is built by its runtime (``bots_sdk.build``: compiled, or
for Python and JavaScript checked) in the sandbox under limits of its own: a
compile bomb is the bot's failure, never the worker's, and the compiler's
own output is the report. Then the bots SDK's pre-flight runs the version as
it will run, once for each game it is checked for (a ladder's rule system,
seats, options and exact limits), on a fresh seed and at a random seat each
time: in the sandbox (house bots bare), it must complete the handshake and
play a full game without a fault, against the opponents its ladder drew
(:class:`PreflightGame`; house bots by default). A fault fails that game
with the failing request, the bot's reply, its stderr tail and the exit
cause in its report. A failure of ours (no sandbox, storage, launch) raises
:class:`~arena.bots.sandboxing.InfrastructureError` and fails nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.core.files.storage import default_storage

from bots_sdk import preflight as sdk_preflight
from bots_sdk import sandbox
from bots_sdk.build import BuildResult, build, build_key
from bots_sdk.faults import Fault
from bots_sdk.games import GameSetup
from bots_sdk.runtimes import RUNTIMES, ToolchainMissingError

from .models import BotVersion
from .sandboxing import (
    BotFiles,
    InfrastructureError,
    RecordingLauncher,
    bot_spec,
    is_trusted,
    materialised,
    require_isolation,
    with_program,
)

VALIDATOR = "preflight-4"


@dataclass(frozen=True)
class PreflightGame:
    """One game a version is checked in, as its ladder would play it with the version."""

    setup: GameSetup
    #: One version per other seat, in seat order; None: house bots the SDK draws.
    opponents: tuple[BotVersion, ...] | None = None
    #: The id the bot is told (``new_game``): its game's number in a ladder's run.
    game_id: int = 1


#: The games to check, by the caller's keys (ladder slugs); a bare GameSetup is played
#: against house bots the SDK draws.
Games = Mapping[str, GameSetup | PreflightGame]
#: The game checked when the caller names none: the SDK's default pre-flight.
DEFAULT_GAMES: Games = {"default": sdk_preflight.DEFAULT_SETUP}


@dataclass
class GameCheck:
    """How a version did in one game's pre-flight: ``report`` is what its owner reads."""

    passed: bool
    seed: int | None
    report: dict[str, Any]


@dataclass
class ValidationReport:
    passed: bool = True
    errors: list[str] = field(default_factory=list)
    checked_files: list[str] = field(default_factory=list)
    sandboxed: bool | None = None
    #: Each game's pre-flight by the caller's key (a ladder's slug): GameCheck.report.
    games: dict[str, GameCheck] = field(default_factory=dict)
    #: How the build went (``bots_sdk.build``): what the owner reads of it.
    build: dict[str, Any] = field(default_factory=dict)
    #: The built program (a zip; empty for runtimes that build none) and its content key.
    program: bytes = b""
    build_key: str = ""

    def fail(self, message: str) -> None:
        self.passed = False
        self.errors.append(message)

    def to_json(self) -> dict[str, Any]:
        return {
            "validator": VALIDATOR,
            "passed": self.passed,
            "errors": self.errors,
            "checked_files": self.checked_files,
            "sandboxed": self.sandboxed,
            "build": self.build,
            "games": {key: check.report for key, check in self.games.items()},
            # Clears the note of an earlier postponed attempt.
            "infra_error": None,
        }


def fault_report(fault: Fault) -> dict[str, Any]:
    """What the author needs to fix a fault: the request, the reply, stderr, the exit cause."""
    return {
        "cause": fault.kind.value,
        "message": fault.message,
        "request": fault.request,
        "reply": fault.sent,
        "stderr_tail": fault.stderr_tail,
        "exit_code": fault.exit_code,
        "signal": fault.signal,
        "elapsed_ms": fault.elapsed_ms,
    }


def _read_code(version: BotVersion) -> bytes:
    try:
        with default_storage.open(str(version.code.name), "rb") as handle:
            content: bytes = handle.read()
            return content
    except OSError as error:
        raise InfrastructureError(f"cannot read the code of {version}: {error}") from error


def _game_check(result: sdk_preflight.PreflightReport) -> GameCheck:
    seat = result.seat.to_json()
    report: dict[str, Any] = {
        "passed": result.ok,
        "game": result.setup.to_json(),
        "seed": result.seed,
        "game_id": result.game_id,
        "opponents": list(result.opponents),
        # Not every decision's time and trace: a report per ladder stays small.
        **{k: v for k, v in seat.items() if k not in ("fault", "decision_ms", "trace")},
        "exited_cleanly": result.exited_cleanly,
        "result": result.record.result,
        "fault": None if result.fault is None else fault_report(result.fault),
    }
    return GameCheck(passed=result.ok, seed=result.seed, report=report)


def _as_game(game: GameSetup | PreflightGame) -> PreflightGame:
    return game if isinstance(game, PreflightGame) else PreflightGame(game)


def _opponents(games: Games) -> list[BotVersion]:
    return [v for game in games.values() for v in _as_game(game).opponents or ()]


def preflight_games(
    version: BotVersion, games: Games, *, content: bytes | None = None
) -> dict[str, GameCheck]:
    """One pre-flight game of each of ``games`` (by the caller's keys), in the sandbox."""
    if not games:
        return {}
    content = _read_code(version) if content is None else content
    require_isolation([version, *_opponents(games)])
    with materialised(version, content=content) as files:
        return _play_preflights(version, files, games)


def _play_preflights(version: BotVersion, files: BotFiles, games: Games) -> dict[str, GameCheck]:
    spec = bot_spec(version, files)
    checks: dict[str, GameCheck] = {}
    for key, given in games.items():
        game = _as_game(given)
        launcher = RecordingLauncher()
        with ExitStack() as stack:
            # The opponents run as in a ladder match: their stored code and program.
            opponents = (
                None
                if game.opponents is None
                else [bot_spec(v, stack.enter_context(materialised(v))) for v in game.opponents]
            )
            try:
                result = sdk_preflight.preflight(
                    spec, game.setup, opponents=opponents, game_id=game.game_id, launcher=launcher
                )
            except (sandbox.SandboxError, OSError) as error:
                raise InfrastructureError(f"the pre-flight of {version} failed: {error}") from error
        launcher.check()
        checks[key] = _game_check(result)
    return checks


def _build(version: BotVersion, bot_dir: Path) -> BuildResult:
    """Build the version where it runs (the sandbox), under the build's own limits."""
    try:
        return build(bot_dir, RUNTIMES[version.runtime], trusted=is_trusted(version))
    except (sandbox.SandboxError, OSError, ToolchainMissingError) as error:
        raise InfrastructureError(f"the build of {version} failed: {error}") from error


def _build_into(version: BotVersion, files: BotFiles, report: ValidationReport) -> None:
    """Build the version in ``files`` and record how it went in ``report`` (failed when
    the build failed, else holding the program): one build step for uploads and test builds."""
    runtime = RUNTIMES[version.runtime]
    built = _build(version, files.bot_dir)
    report.checked_files = runtime.sources(files.bot_dir)
    report.build = {
        "runtime": runtime.id,
        "ok": built.ok,
        "output": built.output,
        "seconds": round(built.seconds, 2),
    }
    if not built.ok:
        report.fail(built.output)
        return
    report.program = built.program
    report.build_key = build_key(files.bot_dir, runtime)


def build_version(version: BotVersion) -> ValidationReport:
    """The build step of :func:`validate_version` alone, sandboxed, with the same report:
    a test build (arena.ladders.services.editor) plays its test game instead of a pre-flight."""
    content = _read_code(version)
    require_isolation([version])
    report = ValidationReport(sandboxed=not is_trusted(version))
    with materialised(version, content=content, program=b"") as files:
        _build_into(version, files, report)
    return report


def validate_version(version: BotVersion, games: Games = DEFAULT_GAMES) -> ValidationReport:
    """The build, then one pre-flight game of each of ``games``, both sandboxed.

    It passes when it builds and passes at least one game: a version plays
    the games it passed (a card game bot need not play dice). The report
    holds the built program for the caller to keep.
    """
    content = _read_code(version)
    require_isolation([version, *_opponents(games)])
    report = ValidationReport(sandboxed=not is_trusted(version))
    with materialised(version, content=content, program=b"") as files:
        _build_into(version, files, report)
        if not report.passed:
            return report
        with with_program(version, files, report.program) as ready:
            report.games = _play_preflights(version, ready, games)
    for key, check in report.games.items():
        fault = check.report["fault"]
        if fault is not None:
            report.errors.append(f"{key}: {fault['cause']}: {fault['message']}")
    report.passed = any(check.passed for check in report.games.values())
    return report
