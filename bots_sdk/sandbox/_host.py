"""Configuration of the sandbox and the checks of the host it runs on."""

from __future__ import annotations

import functools
import os
import platform
import pwd
import re
import shutil
import subprocess
from dataclasses import dataclass, field

from ._cgroups import CgroupV1Manager, CgroupV2Manager, detect
from ._runtime import DEBIAN_PYTHON3, BotRuntime
from ._types import SandboxUnavailableError

MIN_BWRAP = (0, 8, 0)  # --disable-userns


@dataclass(frozen=True, slots=True)
class SandboxConfig:
    """Where the sandbox finds its pieces on the host (not per-bot limits)."""

    user: str = "vegasbot"
    bwrap: str = "bwrap"
    runtime: BotRuntime = field(default=DEBIAN_PYTHON3)
    #: name of the arena's parent cgroup at the root of each hierarchy
    cgroup_parent: str = "vegas-arena"
    hostname: str = "vegas-bot"


DEFAULT_CONFIG = SandboxConfig()


@dataclass(frozen=True, slots=True)
class Host:
    """A checked host: everything ``launch`` needs, resolved once."""

    bwrap: str
    bwrap_version: str
    setpriv: str
    uid: int
    gid: int
    cgroups: CgroupV1Manager | CgroupV2Manager


def _read_int(path: str) -> int | None:
    try:
        with open(path, encoding="ascii") as handle:
            return int(handle.read().strip())
    except (OSError, ValueError):
        return None


def _check_bwrap(name: str, problems: list[str]) -> tuple[str, str]:
    path = shutil.which(name) or shutil.which(name, path="/usr/bin:/bin")
    if path is None:
        problems.append(
            f"bubblewrap not installed ({name!r} not found; apt-get install bubblewrap)"
        )
        return "", ""
    try:
        out = subprocess.run(
            [path, "--version"], capture_output=True, text=True, timeout=10, env={}, check=False
        ).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        problems.append(f"bubblewrap at {path} does not run: {exc}")
        return path, ""
    match = re.search(r"(\d+)\.(\d+)\.(\d+)", out)
    version = tuple(int(g) for g in match.groups()) if match else (0, 0, 0)
    if version < MIN_BWRAP:
        problems.append(
            f"bubblewrap {out.strip() or '?'} at {path} is too old "
            f"(need >= {'.'.join(map(str, MIN_BWRAP))} for --disable-userns)"
        )
    st = os.stat(path)
    if st.st_mode & 0o4000:
        problems.append(f"bubblewrap at {path} is setuid; the sandbox expects the plain binary")
    return path, out.strip()


def _check_userns(problems: list[str]) -> None:
    if (_read_int("/proc/sys/user/max_user_namespaces") or 0) <= 0:
        problems.append("user namespaces disabled (sysctl user.max_user_namespaces is 0)")
    if _read_int("/proc/sys/kernel/unprivileged_userns_clone") == 0:
        problems.append(
            "unprivileged user namespaces disabled (sysctl kernel.unprivileged_userns_clone=0)"
        )
    if _read_int("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == 1:
        problems.append(
            "AppArmor restricts unprivileged user namespaces "
            "(sysctl kernel.apparmor_restrict_unprivileged_userns=1)"
        )


@functools.lru_cache(maxsize=64)  # a config per runtime and step
def check_host(config: SandboxConfig = DEFAULT_CONFIG) -> Host:
    """Check the host once per config; raise SandboxUnavailableError naming
    every missing piece. Also creates the arena's parent cgroup(s) and removes
    bot cgroups left behind by dead workers."""
    problems: list[str] = []
    if platform.system() != "Linux" or platform.machine() != "x86_64":
        problems.append(
            f"unsupported platform {platform.system()}/{platform.machine()} (need Linux x86_64)"
        )
    if os.geteuid() != 0:
        problems.append("the worker must run as root (it manages cgroups and drops to the bot uid)")
    bwrap, bwrap_version = _check_bwrap(config.bwrap, problems)
    setpriv = shutil.which("setpriv", path="/usr/bin:/bin") or ""
    if not setpriv:
        problems.append("setpriv not found (apt-get install util-linux)")
    if not os.access("/bin/sh", os.X_OK):
        problems.append("/bin/sh missing")
    uid = gid = -1
    try:
        entry = pwd.getpwnam(config.user)
        uid, gid = entry.pw_uid, entry.pw_gid
        if uid == 0 or gid == 0:
            problems.append(f"bot user {config.user!r} must not be root (uid {uid}, gid {gid})")
    except KeyError:
        problems.append(f"bot user {config.user!r} missing (useradd --system {config.user})")
    _check_userns(problems)
    runtime = config.runtime
    if not os.access(runtime.python, os.X_OK):
        problems.append(f"bot runtime missing: {runtime.python} (apt-get install python3)")
    for path in runtime.ro_paths:
        if not os.path.exists(path):
            problems.append(f"bot runtime path missing: {path}")
    for source, _dest in runtime.binds:
        if not os.path.exists(source):
            problems.append(f"bot runtime bind source missing: {source}")
    cgroups: CgroupV1Manager | CgroupV2Manager | None = None
    try:
        cgroups = detect(config.cgroup_parent)
    except SandboxUnavailableError as exc:
        problems.extend(exc.missing)
    if cgroups is not None and not problems:
        try:
            cgroups.setup()
            cgroups.cleanup_stale()
        except OSError as exc:
            problems.append(
                f"cannot set up the arena cgroup {', '.join(cgroups.parent_paths())}: {exc}"
            )
    if problems or cgroups is None:
        raise SandboxUnavailableError(problems)
    return Host(
        bwrap=bwrap,
        bwrap_version=bwrap_version,
        setpriv=setpriv,
        uid=uid,
        gid=gid,
        cgroups=cgroups,
    )
