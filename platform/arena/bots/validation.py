"""Checks a stored version must pass before it may play.

For now the checks are static: every Python file compiles under the
version's runtime. The sandboxed smoke game (start the bot, answer a few
decisions within the ladder limits) is added with the bots SDK's referee.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass, field
from typing import Any

from .models import CodeFormat
from .uploads import MAIN_MODULE

VALIDATOR = "static-1"


@dataclass
class ValidationReport:
    passed: bool = True
    errors: list[str] = field(default_factory=list)
    checked_files: list[str] = field(default_factory=list)

    def fail(self, message: str) -> None:
        self.passed = False
        self.errors.append(message)

    def to_json(self) -> dict[str, Any]:
        return {
            "validator": VALIDATOR,
            "passed": self.passed,
            "errors": self.errors,
            "checked_files": self.checked_files,
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
