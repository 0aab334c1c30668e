"""Checks a stored version must pass before it may play.

First every Python file must compile (cheap, and says which line is wrong).
Then the bots SDK's pre-flight runs the version as it will run on a ladder:
in the sandbox (house bots bare), it must complete the handshake and play a
full game against house bots without a fault. A fault fails the version with
the failing request, the bot's reply, its stderr tail and the exit cause in
the report. A failure of ours (no sandbox, storage, launch) raises
:class:`~arena.bots.sandboxing.InfrastructureError` and fails nothing.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass, field
from typing import Any

from django.core.files.storage import default_storage

from bots_sdk import preflight as sdk_preflight
from bots_sdk import sandbox
from bots_sdk.faults import Fault

from .models import BotVersion, CodeFormat
from .sandboxing import (
    InfrastructureError,
    RecordingLauncher,
    bot_spec,
    materialised,
    require_isolation,
)
from .uploads import MAIN_MODULE

VALIDATOR = "preflight-1"


@dataclass
class ValidationReport:
    passed: bool = True
    errors: list[str] = field(default_factory=list)
    checked_files: list[str] = field(default_factory=list)
    sandboxed: bool | None = None
    #: The pre-flight game: opponents, seat, decisions, resources, standings.
    preflight: dict[str, Any] | None = None
    #: What went wrong, when the bot faulted (see fault_report).
    fault: dict[str, Any] | None = None

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
            "preflight": self.preflight,
            "fault": self.fault,
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


def validate_version(version: BotVersion) -> ValidationReport:
    """The static checks, then the sandboxed pre-flight game."""
    try:
        with default_storage.open(version.code.name, "rb") as handle:
            content = handle.read()
    except OSError as error:
        raise InfrastructureError(f"cannot read the code of {version}: {error}") from error
    report = validate_code(content, version.code_format)
    if not report.passed:
        return report
    require_isolation([version])
    launcher = RecordingLauncher()
    with materialised(version, content=content) as bot_dir:
        spec = bot_spec(version, bot_dir)
        try:
            result = sdk_preflight.preflight(spec, launcher=launcher)
        except (sandbox.SandboxError, OSError) as error:
            raise InfrastructureError(f"the pre-flight of {version} failed: {error}") from error
    launcher.check()
    report.sandboxed = not spec.trusted
    seat = result.seat.to_json()
    report.preflight = {
        "rules": sdk_preflight.RULES,
        "seed": sdk_preflight.SEED,
        "opponents": list(sdk_preflight.OPPONENTS),
        **{k: v for k, v in seat.items() if k not in ("fault", "decision_ms")},
        "exited_cleanly": result.exited_cleanly,
        "result": result.record.result,
    }
    if result.fault is not None:
        report.fault = fault_report(result.fault)
        report.fail(f"{result.fault.kind.value}: {result.fault.message}")
    return report
