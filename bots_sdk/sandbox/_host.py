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

from ._cgroups import CgroupV1Manager, CgroupV2Manager, delegated, detect
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


#: What a sandbox run by a caller that is not root does not limit without a cgroup.
CGROUP_LIMITS = ("memory", "CPU")

#: How a caller that is not root gets the cgroup limits.
ROOT_HINT = (
    "run as root, or in a cgroup delegated to you alone "
    "(systemd-run --user --scope -p Delegate=yes python -m bots_sdk ...)"
)

#: What a user that is not root does when the sandbox cannot run.
UNPRIVILEGED_HINT = (
    "as root, scripts/install_bot_runtime.sh installs what is missing; bubblewrap needs "
    "user namespaces allowed to users"
)

_unprivileged_allowed = False


def allow_unprivileged(allowed: bool = True) -> None:
    """Let this process run the sandbox as a user that is not root (the SDK's
    command line does): bubblewrap alone, the bot as the caller in a user
    namespace of its own, and the cgroup limits only in a cgroup delegated to the
    caller. Off by default: a platform worker that is not root is refused."""
    global _unprivileged_allowed
    _unprivileged_allowed = allowed
    check_host.cache_clear()


@dataclass(frozen=True, slots=True)
class Host:
    """A checked host: everything ``launch`` needs, resolved once."""

    bwrap: str
    bwrap_version: str
    setpriv: str
    uid: int
    gid: int
    #: None: no cgroup (not root, none delegated): the sandbox's pid namespace instead
    cgroups: CgroupV1Manager | CgroupV2Manager | None
    #: False: run as a user that is not root: no bot user (the bot runs as the caller)
    privileged: bool = True
    #: who the bot runs as on the host
    user: str = "vegasbot"
    #: the limits not enforced here (not root, no cgroup delegated), and why
    unenforced: tuple[str, ...] = ()
    unenforced_reason: str = ""


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


def _check_runtime(runtime: BotRuntime, problems: list[str]) -> None:
    if not os.access(runtime.python, os.X_OK):
        problems.append(f"bot runtime missing: {runtime.python} (apt-get install python3)")
    for path in runtime.ro_paths:
        if not os.path.exists(path):
            problems.append(f"bot runtime path missing: {path}")
    for source, _dest in runtime.binds:
        if not os.path.exists(source):
            problems.append(f"bot runtime bind source missing: {source}")


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
        if _unprivileged_allowed:
            return _check_unprivileged(config)
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
    _check_runtime(config.runtime, problems)
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
        user=config.user,
    )


def _user_name() -> str:
    try:
        return pwd.getpwuid(os.getuid()).pw_name
    except KeyError:
        return f"uid {os.getuid()}"


def _probe_userns(bwrap: str) -> str | None:
    """Why bubblewrap cannot make the sandbox's namespaces as this user, or None.
    Tried for real: sysctls, AppArmor and container seccomp profiles all decide."""
    true = shutil.which("true", path="/usr/bin:/bin") or "/bin/true"
    probe = [bwrap, "--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc"]
    probe += ["--unshare-uts", "--unshare-cgroup-try", "--disable-userns", "--die-with-parent"]
    probe += ["--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    try:
        done = subprocess.run(
            [*probe, "--", true], capture_output=True, text=True, timeout=30, env={}, check=False
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"bubblewrap does not run: {exc}"
    if done.returncode == 0:
        return None
    said = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
    known: list[str] = []
    _check_userns(known)
    why = "; ".join(known) or "users may not make user namespaces here"
    return f"bubblewrap cannot make its namespaces as {_user_name()} ({said}): {why}"


@functools.lru_cache(maxsize=8)  # once per parent name: the caller moves into a leaf once
def _user_cgroups(parent_name: str) -> CgroupV2Manager | str:
    """The delegated cgroups of a caller that is not root, set up; or why there are none."""
    cgroups = delegated(parent_name)
    if isinstance(cgroups, str):
        return cgroups
    try:
        cgroups.setup()
        cgroups.cleanup_stale()
    except OSError as exc:
        return f"cannot set up {cgroups.parent}: {exc}"
    return cgroups


def _check_unprivileged(config: SandboxConfig) -> Host:
    """The host as a user that is not root sees it: bubblewrap alone (no bot user, no
    setpriv), and cgroups only if the caller's own is delegated to it."""
    problems: list[str] = []
    if platform.system() != "Linux" or platform.machine() != "x86_64":
        problems.append(
            f"unsupported platform {platform.system()}/{platform.machine()} (need Linux x86_64)"
        )
    bwrap, bwrap_version = _check_bwrap(config.bwrap, problems)
    if not os.access("/bin/sh", os.X_OK):
        problems.append("/bin/sh missing")
    _check_runtime(config.runtime, problems)
    if not problems:
        userns = _probe_userns(bwrap)
        if userns is not None:
            problems.append(userns)
    if problems:
        raise SandboxUnavailableError(problems, hint=UNPRIVILEGED_HINT)
    found = _user_cgroups(config.cgroup_parent)
    cgroups = None if isinstance(found, str) else found
    unenforced = CGROUP_LIMITS if cgroups is None else ()
    return Host(
        bwrap=bwrap,
        bwrap_version=bwrap_version,
        setpriv="",
        uid=os.getuid(),
        gid=os.getgid(),
        cgroups=cgroups,
        privileged=False,
        user=_user_name(),
        unenforced=unenforced,
        unenforced_reason=found if isinstance(found, str) else "",
    )
