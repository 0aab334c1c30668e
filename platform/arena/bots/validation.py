"""Checks a stored version must pass before it may play a game.

First every Python file must compile (cheap, and says which line is wrong).
Then the bots SDK's pre-flight runs the version as it will run, once for
each game it is checked for (a ladder's rule system, seats, options and
exact limits), on a fresh seed each time: in the sandbox (house bots bare),
it must complete the handshake and play a full game against house bots
without a fault. A fault fails that game with the failing request, the
bot's reply, its stderr tail and the exit cause in its report. A failure of
ours (no sandbox, storage, launch) raises
:class:`~arena.bots.sandboxing.InfrastructureError` and fails nothing.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.core.files.storage import default_storage

from bots_sdk import preflight as sdk_preflight
from bots_sdk import sandbox
from bots_sdk.faults import Fault
from bots_sdk.games import GameSetup

from .models import BotVersion, CodeFormat
from .sandboxing import (
    InfrastructureError,
    RecordingLauncher,
    bot_spec,
    is_trusted,
    materialised,
    require_isolation,
)
from .uploads import MAIN_MODULE

VALIDATOR = "preflight-2"
#: The game checked when the caller names none: the SDK's default pre-flight.
DEFAULT_GAMES: Mapping[str, GameSetup] = {"default": sdk_preflight.DEFAULT_SETUP}


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
            "games": {key: check.report for key, check in self.games.items()},
            # Clears the note of an earlier postponed attempt.
            "infra_error": None,
        }


def _sources(content: bytes, code_format: str) -> dict[str, bytes]:
    if code_format == CodeFormat.PY:
        return {MAIN_MODULE: content}
    with zipfile.ZipFile(io.BytesIO(content)) as archive:
        return {
            info.filename: archive.read(info)
            for info in archive.infolist()
            if not info.is_dir() and info.filename.endswith(".py")
        }


def validate_code(content: bytes, code_format: str) -> ValidationReport:
    """Compile every Python file of the upload; syntax errors fail the version."""
    report = ValidationReport()
    for name, source in sorted(_sources(content, code_format).items()):
        report.checked_files.append(name)
        try:
            compile(source, name, "exec", dont_inherit=True)
        except SyntaxError as error:
            report.fail(f"{name}, line {error.lineno}: {error.msg}")
        except ValueError as error:  # e.g. NUL bytes in the source
            report.fail(f"{name}: {error}")
    return report


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
        with default_storage.open(version.code.name, "rb") as handle:
            return handle.read()
    except OSError as error:
        raise InfrastructureError(f"cannot read the code of {version}: {error}") from error


def _game_check(result: sdk_preflight.PreflightReport) -> GameCheck:
    seat = result.seat.to_json()
    report: dict[str, Any] = {
        "passed": result.ok,
        "game": result.setup.to_json(),
        "seed": result.seed,
        "opponents": list(result.opponents),
        **{k: v for k, v in seat.items() if k not in ("fault", "decision_ms")},
        "exited_cleanly": result.exited_cleanly,
        "result": result.record.result,
        "fault": None if result.fault is None else fault_report(result.fault),
    }
    return GameCheck(passed=result.ok, seed=result.seed, report=report)


def preflight_games(
    version: BotVersion, games: Mapping[str, GameSetup], *, content: bytes | None = None
) -> dict[str, GameCheck]:
    """One pre-flight game of each of ``games`` (by the caller's keys), in the sandbox."""
    if not games:
        return {}
    content = _read_code(version) if content is None else content
    require_isolation([version])
    checks: dict[str, GameCheck] = {}
    with materialised(version, content=content) as bot_dir:
        spec = bot_spec(version, bot_dir)
        for key, setup in games.items():
            launcher = RecordingLauncher()
            try:
                result = sdk_preflight.preflight(spec, setup, launcher=launcher)
            except (sandbox.SandboxError, OSError) as error:
                raise InfrastructureError(f"the pre-flight of {version} failed: {error}") from error
            launcher.check()
            checks[key] = _game_check(result)
    return checks


def validate_version(
    version: BotVersion, games: Mapping[str, GameSetup] = DEFAULT_GAMES
) -> ValidationReport:
    """The static checks, then one sandboxed pre-flight game of each of ``games``.

    It passes when the code passes the static checks and at least one game:
    a version plays the games it passed (a card game bot need not play dice).
    """
    content = _read_code(version)
    report = validate_code(content, version.code_format)
    if not report.passed:
        return report
    report.games = preflight_games(version, games, content=content)
    report.sandboxed = not is_trusted(version)
    for key, check in report.games.items():
        fault = check.report["fault"]
        if fault is not None:
            report.errors.append(f"{key}: {fault['cause']}: {fault['message']}")
    report.passed = any(check.passed for check in report.games.values())
    return report
