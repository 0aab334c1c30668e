"""The static check of a bot's sources, run where the bot runs: in the sandbox.

Compiling untrusted source is running untrusted input through the compiler: a
small file can take gigabytes or minutes (deep nesting, huge literals, many
definitions). So the check is a program of its own, launched like the bot (in
the sandbox unless trusted) under its own memory, CPU and wall-time limits;
what it finds, or how it was stopped, is the report. The platform and the
CLI's ``validate`` run this same check.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from pathlib import Path

from . import sandbox

#: The check's own limits: generous for real code, fatal to compile bombs.
CHECK_LIMITS = sandbox.SandboxLimits(memory_bytes=256 * sandbox.MiB, pids=4, cpu_quota=1.0)
CHECK_SECONDS = 20.0
#: At most this many errors are reported (the first ones, by file name).
MAX_ERRORS = 50
#: The check's own output, at most: errors and file names.
MAX_OUTPUT = 256 * 1024

# Runs inside the sandbox with /bot as its working directory: compile every .py file.
_CHECKER = f"""
import json, os
errors, checked = [], []
for root, dirs, files in os.walk("."):
    dirs.sort()
    for name in sorted(files):
        if not name.endswith(".py"):
            continue
        path = os.path.normpath(os.path.join(root, name))
        checked.append(path)
        try:
            with open(path, "rb") as handle:
                compile(handle.read(), path, "exec", dont_inherit=True)
        except SyntaxError as error:
            errors.append(f"{{path}}, line {{error.lineno}}: {{error.msg}}")
        except (ValueError, RecursionError, MemoryError, OverflowError) as error:
            detail = f": {{error}}" if str(error) else " (the compiler gave up on this file)"
            errors.append(f"{{path}}: {{type(error).__name__}}{{detail}}")
print(json.dumps({{"checked": checked, "errors": errors[:{MAX_ERRORS}]}}), flush=True)
"""


@dataclass
class SourceCheck:
    """What the check found: the files checked and the errors, each saying what to fix."""

    checked: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.errors


def check_sources(
    bot_dir: Path,
    *,
    trusted: bool,
    config: sandbox.SandboxConfig | None = None,
    limits: sandbox.SandboxLimits = CHECK_LIMITS,
    seconds: float = CHECK_SECONDS,
) -> SourceCheck:
    """Compile every ``.py`` file under ``bot_dir`` in a process of its own.

    Sandboxed unless ``trusted``; raises ``sandbox.SandboxError`` when the
    check could not be run at all (ours, not the bot's).
    """
    config = config or sandbox.DEFAULT_CONFIG
    command = [config.runtime.python, "-I", "-c", _CHECKER]
    process = sandbox.launch(
        command, bot_dir=bot_dir, limits=limits, trusted=trusted, config=config
    )
    chunks: list[bytes] = []

    def read() -> None:  # a thread, so a check that floods stdout cannot block us
        size = 0
        while size < MAX_OUTPUT and (chunk := process.stdout.read1(65536)):
            chunks.append(chunk)
            size += len(chunk)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    finished = process.wait(seconds) is not None
    outcome = process.close()
    reader.join(1.0)
    if not finished:
        return SourceCheck(
            errors=[
                f"checking the sources took more than {seconds:g} s: simplify what makes "
                "the compiler work so hard (huge literals, deep nesting, generated code)"
            ]
        )
    if outcome.oom_killed or outcome.exit_code != 0:
        if outcome.oom_killed:
            cause = f"it ran out of memory (limit {limits.memory_bytes // sandbox.MiB} MiB)"
        elif outcome.signal is not None:
            cause = f"the compiler was killed by signal {outcome.signal}"
        else:
            cause = f"the compiler exited with status {outcome.exit_code}"
        tail = outcome.stderr_tail.decode(errors="replace").strip().splitlines()[-1:]
        detail = f": {tail[0]}" if tail else ""
        return SourceCheck(
            errors=[
                f"the sources could not be compiled: {cause}{detail}; simplify what makes "
                "the compiler work so hard (huge literals, deep nesting, generated code)"
            ]
        )
    try:
        found = json.loads(b"".join(chunks))
        return SourceCheck(checked=list(found["checked"]), errors=list(found["errors"]))
    except (ValueError, KeyError, TypeError) as error:
        raise sandbox.SandboxError(f"the source check answered nonsense: {error}") from None
