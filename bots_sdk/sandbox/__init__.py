"""Run untrusted bot programs in a bubblewrap sandbox.

Each bot runs as an unprivileged user under bubblewrap (no network, own pid,
mount, ipc and uts namespaces, a read-only view of the runtime and of its own
files at ``/bot``, a small private ``/tmp``, an empty environment), in its own
cgroup (memory, pids, CPU), with rlimits and a seccomp filter. A process that
is not root may run it after :func:`allow_unprivileged` (the bot then runs as
that user, and without a delegated cgroup its memory and CPU are not limited).
See ``docs/sandbox.md``.

Typical use::

    from bots_sdk.sandbox import SandboxLimits, launch, runtime_python_command

    bot = launch(runtime_python_command("main.py"), bot_dir=path, limits=SandboxLimits())
    bot.stdin.write(b'{"type": "hello"}\\n')
    reply = bot.stdout.readline()
    outcome = bot.close(timeout=1.0)   # kills whatever is left, returns the peaks
"""

from __future__ import annotations

from ._cpu import CpuTimes, cpu_steal, most_stolen, own_wait
from ._host import DEFAULT_CONFIG, ROOT_HINT, SandboxConfig, allow_unprivileged, check_host
from ._process import BotProcess, bwrap_arguments, launch, rewrite_for_host, unreadable
from ._runtime import BOT_MOUNT, DEBIAN_PYTHON3, BotRuntime, runtime_python_command
from ._seccomp import ALLOWED_SYSCALLS, BOT_FILTER, DENIED_SYSCALLS, build_filter
from ._selftest import SelfTestReport, self_test
from ._types import (
    GiB,
    KiB,
    MiB,
    ProcessOutcome,
    SandboxError,
    SandboxLimits,
    SandboxUnavailableError,
)

__all__ = [
    "ALLOWED_SYSCALLS",
    "BOT_FILTER",
    "BOT_MOUNT",
    "DEBIAN_PYTHON3",
    "DEFAULT_CONFIG",
    "DENIED_SYSCALLS",
    "ROOT_HINT",
    "BotProcess",
    "BotRuntime",
    "CpuTimes",
    "GiB",
    "KiB",
    "MiB",
    "ProcessOutcome",
    "SandboxConfig",
    "SandboxError",
    "SandboxLimits",
    "SandboxUnavailableError",
    "SelfTestReport",
    "allow_unprivileged",
    "build_filter",
    "bwrap_arguments",
    "check_host",
    "cpu_steal",
    "launch",
    "most_stolen",
    "own_wait",
    "rewrite_for_host",
    "runtime_python_command",
    "self_test",
    "unreadable",
]
