"""``self_test()``: check the host, then run a probe bot end to end."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass

from ._host import DEFAULT_CONFIG, SandboxConfig, check_host
from ._process import launch
from ._types import SandboxLimits, SandboxUnavailableError

_PROBE = """\
import importlib, json, os, sys
status = dict(line.split(":\\t", 1) for line in open("/proc/self/status").read().splitlines()
              if ":\\t" in line)
mods = {}
for name in sys.argv[1:]:
    try:
        mods[name] = getattr(importlib.import_module(name), "__version__", "?")
    except Exception as exc:
        mods[name] = None
print(json.dumps({
    "uid": os.getuid(), "euid": os.geteuid(),
    "seccomp": int(status.get("Seccomp", "0").split()[0]),
    "no_new_privs": int(status.get("NoNewPrivs", "0").split()[0]),
    "python": sys.version.split()[0], "modules": mods,
}), flush=True)
"""


@dataclass(frozen=True, slots=True)
class SelfTestReport:
    """What the sandbox found and measured on this host."""

    bwrap: str
    bwrap_version: str
    #: None: no cgroup (not root, none delegated): ``unenforced`` names what is not limited
    cgroup_version: int | None
    cgroup_parents: tuple[str, ...]
    user: str
    uid: int
    gid: int
    runtime_python: str
    python_version: str
    modules: tuple[tuple[str, str], ...]
    seccomp_mode: int
    startup_seconds: float
    bare_startup_seconds: float
    #: False: run by a user that is not root (the bot runs as that user)
    privileged: bool = True
    unenforced: tuple[str, ...] = ()

    def __str__(self) -> str:
        mods = ", ".join(f"{name} {version}" for name, version in self.modules) or "-"
        if self.cgroup_version is None:
            cgroups = f"none: {' and '.join(self.unenforced)} limits not enforced"
        else:
            cgroups = f"v{self.cgroup_version} under {', '.join(self.cgroup_parents)}"
        who = "" if self.privileged else ", the caller: not root"
        return "\n".join(
            [
                f"bubblewrap:  {self.bwrap_version} ({self.bwrap})",
                f"cgroups:     {cgroups}",
                f"bot user:    {self.user} (uid {self.uid}, gid {self.gid}{who})",
                f"runtime:     {self.runtime_python} (Python {self.python_version}; {mods})",
                f"seccomp:     mode {self.seccomp_mode} (2 = filter)",
                f"start-up:    {self.startup_seconds * 1000:.1f} ms sandboxed, "
                f"{self.bare_startup_seconds * 1000:.1f} ms bare (python -I -c pass)",
            ]
        )


def self_test(config: SandboxConfig | None = None) -> SelfTestReport:
    """Check every prerequisite and run a probe bot in the sandbox.

    Raises SandboxUnavailableError naming what is missing (bubblewrap, cgroup
    controllers, the bot user, the runtime or one of its modules, ...).
    """
    config = config or DEFAULT_CONFIG
    host = check_host(config)
    runtime = config.runtime
    probe_dir = tempfile.mkdtemp(prefix="vegas-selftest-")
    try:
        os.chmod(probe_dir, 0o755)
        limits = SandboxLimits()
        command = [runtime.python, "-I", "-c", _PROBE, *runtime.required_modules]
        bot = launch(command, bot_dir=probe_dir, limits=limits, config=config)
        bot.wait(30)
        output = bot.stdout.read() if bot.poll() is not None else b""
        outcome = bot.close()
        try:
            probe = json.loads(output)
        except ValueError:
            raise SandboxUnavailableError(
                [
                    f"the sandboxed probe failed (exit {outcome.exit_code}, signal "
                    f"{outcome.signal}): {outcome.stderr_tail.decode(errors='replace')[-800:]}"
                ]
            ) from None
        problems = []
        modules = []
        for name, version in probe["modules"].items():
            if version is None:
                problems.append(f"bot runtime {runtime.python} cannot import {name}")
            else:
                modules.append((name, str(version)))
        if probe["uid"] == 0 or probe["euid"] == 0:
            problems.append("the bot runs as uid 0 inside the sandbox")
        if probe["seccomp"] != 2 or probe["no_new_privs"] != 1:
            problems.append("the seccomp filter is not active in the sandbox")
        if problems:
            raise SandboxUnavailableError(problems)
        sandboxed = min(_startup(runtime.python, probe_dir, config) for _ in range(3))
        bare = min(_bare_startup(runtime.python) for _ in range(3))
    finally:
        shutil.rmtree(probe_dir, ignore_errors=True)
    return SelfTestReport(
        bwrap=host.bwrap,
        bwrap_version=host.bwrap_version,
        cgroup_version=None if host.cgroups is None else host.cgroups.version,
        cgroup_parents=() if host.cgroups is None else host.cgroups.parent_paths(),
        user=host.user,
        uid=host.uid,
        gid=host.gid,
        runtime_python=runtime.python,
        python_version=str(probe["python"]),
        modules=tuple(modules),
        seccomp_mode=int(probe["seccomp"]),
        startup_seconds=sandboxed,
        bare_startup_seconds=bare,
        privileged=host.privileged,
        unenforced=host.unenforced,
    )


def _startup(python: str, bot_dir: str, config: SandboxConfig) -> float:
    """Wall time from ``launch`` to the exit of a sandboxed ``python -I -c pass``."""
    start = time.perf_counter()
    bot = launch(
        [python, "-I", "-c", "pass"], bot_dir=bot_dir, limits=SandboxLimits(), config=config
    )
    bot.wait()
    elapsed = time.perf_counter() - start
    bot.close()
    return elapsed


def _bare_startup(python: str) -> float:
    start = time.perf_counter()
    subprocess.run([python, "-I", "-c", "pass"], env={}, check=True)
    return time.perf_counter() - start
