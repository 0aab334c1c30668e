"""One cgroup per bot, on cgroup v2 or (hybrid hosts) the v1 hierarchies.

The arena keeps a parent cgroup (``vegas-arena`` at the root of each
hierarchy) and creates a child ``bot-<pid namespace>-<worker pid>-<n>`` per bot process. The
forked child of the worker joins it before executing bubblewrap by writing
``0`` ("myself") to the ``cgroup.procs`` files listed in
:attr:`BotCgroup.join_paths`, so every process of the bot is accounted.
Removing a bot cgroup kills everything in it first (``cgroup.kill`` on v2,
freeze + SIGKILL + thaw on v1), so setsid daemons do not survive.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import signal
import subprocess
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from ._cpu import CpuTimes, pressure_wait, thread_times
from ._types import SandboxLimits, SandboxUnavailableError

REQUIRED_CONTROLLERS = ("memory", "pids", "cpu")
#: The key of a v1 bot's companion v2 cgroup in its ``dirs`` (not a controller).
PRESSURE = "pressure"
CPU_PERIOD_US = 100_000
#: An empty bot cgroup of another pid namespace this old was left by a dead container.
FOREIGN_STALE_SECONDS = 600

_counter = itertools.count(1)
_orphans: list[BotCgroup] = []  # bot cgroups that would not empty at close
_orphans_lock = threading.Lock()


@dataclass(frozen=True, slots=True)
class CgroupStats:
    memory_peak_bytes: int | None
    cpu_seconds: float | None
    pids_peak: int | None
    oom_kills: int
    #: Time runnable but waiting for a CPU (see :mod:`._cpu`); None where unknown.
    cpu_wait_seconds: float | None = None


def _read(path: str) -> str:
    with open(path, encoding="ascii") as handle:
        return handle.read()


def _read_or_none(path: str) -> str | None:
    try:
        return _read(path)
    except OSError:
        return None


def _write(path: str, value: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, value.encode("ascii"))
    finally:
        os.close(fd)


def _keyed(text: str | None, key: str) -> int | None:
    """Value of ``key`` in a flat-keyed file such as ``memory.events``."""
    if text is None:
        return None
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == key:
            return int(parts[1])
    return None


def _int_or_none(text: str | None) -> int | None:
    if text is None:
        return None
    text = text.strip()
    return int(text) if text.isdigit() else None


def _pids_in(procs_file: str) -> list[int]:
    text = _read_or_none(procs_file)
    return [int(word) for word in text.split()] if text else []


def _kill_each(pids: Iterable[int]) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def _wait_for(predicate: Callable[[], bool], timeout: float) -> bool:
    """Poll ``predicate`` (close path only, never the message path)."""
    deadline = time.monotonic() + timeout
    delay = 0.0005
    while True:
        if predicate():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(delay)
        delay = min(delay * 2, 0.02)


def _rmdir_retry(path: str, timeout: float = 2.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            os.rmdir(path)
            return
        except FileNotFoundError:
            return
        except OSError as exc:
            if exc.errno != errno.EBUSY or time.monotonic() >= deadline:
                raise
            time.sleep(0.002)


def _pid_namespace() -> str:
    """This process's pid namespace (its inode): a pid means something only inside it."""
    try:
        return str(os.stat("/proc/self/ns/pid").st_ino)
    except OSError:
        return "0"


_PID_NAMESPACE = _pid_namespace()


def worker_prefix() -> str:
    """The start of this worker's bot cgroup names: its pid namespace, then its pid.

    A worker judges only the cgroups of its own namespace: a container sharing
    the host's cgroups sees none of the host's pids, and must not take the
    host's live bots for a dead worker's (nor the host the container's).
    """
    return f"bot-{_PID_NAMESPACE}-{os.getpid()}-"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class BotCgroup(ABC):
    """The cgroup(s) of one bot process tree."""

    name: str
    join_paths: tuple[str, ...]

    @abstractmethod
    def kill_all(self) -> None:
        """SIGKILL every process in the cgroup (returns without waiting)."""

    @abstractmethod
    def is_empty(self) -> bool: ...

    @abstractmethod
    def pids(self) -> list[int]:
        """The (host) pids of the processes in the cgroup now."""

    @abstractmethod
    def stats(self) -> CgroupStats: ...

    @abstractmethod
    def cpu_times(self) -> CpuTimes:
        """CPU used and time waited for one so far: read at every decision, so few reads."""

    @abstractmethod
    def rmdir(self) -> None:
        """Delete the (empty) cgroup directories."""

    def wait_empty(self, timeout: float = 5.0) -> None:
        """Wait until no process is left, killing again if needed."""
        if _wait_for(self.is_empty, timeout / 2):
            return
        self.kill_all()
        if not _wait_for(self.is_empty, timeout / 2):
            raise OSError(errno.EBUSY, f"bot cgroup {self.name} does not empty")

    def remove(self, timeout: float = 5.0) -> None:
        """Kill everything left, wait until empty and delete the cgroup(s)."""
        if not self.is_empty():
            self.kill_all()
            self.wait_empty(timeout)
        self.rmdir()

    def release(self, timeout: float = 5.0) -> CgroupStats:
        """After kill_all(): wait until empty, read the stats, delete the
        cgroup. One that does not empty (a process stuck in the kernel) is
        kept aside and removed by a later :meth:`CgroupManager.create`."""
        try:
            self.wait_empty(timeout)
            stats = self.stats()
            self.rmdir()
        except OSError:
            stats = self.stats()
            with _orphans_lock:
                _orphans.append(self)
        return stats


class CgroupManager(ABC):
    """Creates bot cgroups under the arena's parent cgroup."""

    version: int

    @abstractmethod
    def parent_paths(self) -> tuple[str, ...]: ...

    @abstractmethod
    def create(self, limits: SandboxLimits) -> BotCgroup: ...

    @abstractmethod
    def _bot_dirs(self) -> Iterator[str]:
        """Names of the existing bot cgroups under the parent."""

    @abstractmethod
    def _attach(self, name: str) -> BotCgroup: ...

    def new_name(self) -> str:
        return f"{worker_prefix()}{next(_counter)}"

    @staticmethod
    def retry_orphans() -> None:
        """Remove the bot cgroups that did not empty at close, if they now can."""
        with _orphans_lock:
            if not _orphans:
                return
            pending = list(_orphans)
            _orphans.clear()
        for cgroup in pending:
            try:
                if cgroup.is_empty():
                    cgroup.rmdir()
                    continue
                cgroup.kill_all()
            except OSError:
                pass
            with _orphans_lock:
                _orphans.append(cgroup)

    def cleanup_stale(self) -> list[str]:
        """Remove bot cgroups left by dead workers (killing what is inside), and the empty
        ones another pid namespace (a container) left long ago."""
        removed = []
        for name in sorted(set(self._bot_dirs())):
            parts = name.split("-")
            if parts[0] != "bot" or not all(part.isdigit() for part in parts[1:]):
                continue
            if len(parts) == 4 and parts[1] == _PID_NAMESPACE:
                worker = int(parts[2])
            elif len(parts) == 3:  # named before namespaces were (bot-<pid>-<n>)
                worker = int(parts[1])
            else:
                # Another pid namespace's worker: its pids are not ours to test. A
                # container's processes all die with it, so its bots' cgroups stay empty;
                # a live worker's bot joins its cgroup as soon as it is made, and a bot
                # that ended has its cgroup removed at once. Empty and old: left behind.
                if self._foreign_left_behind(name):
                    self._attach(name).rmdir()
                    removed.append(name)
                continue
            if _pid_alive(worker):
                continue
            self._attach(name).remove()
            removed.append(name)
        return removed

    def _foreign_left_behind(self, name: str) -> bool:
        try:
            age = time.time() - os.stat(f"{self.parent_paths()[0]}/{name}").st_mtime
            return age > FOREIGN_STALE_SECONDS and self._attach(name).is_empty()
        except OSError:  # removed meanwhile
            return False


# --------------------------------------------------------------------- v2


class _V2Cgroup(BotCgroup):
    def __init__(self, path: str, name: str) -> None:
        self.name = name
        self.path = path
        self.join_paths = (f"{path}/cgroup.procs",)

    def kill_all(self) -> None:
        try:
            _write(f"{self.path}/cgroup.kill", "1")
        except FileNotFoundError:  # kernels before 5.14
            with contextlib.suppress(OSError):
                _write(f"{self.path}/cgroup.freeze", "1")
            for _ in range(100):
                pids = _pids_in(f"{self.path}/cgroup.procs")
                if not pids:
                    break
                _kill_each(pids)
            with contextlib.suppress(OSError):
                _write(f"{self.path}/cgroup.freeze", "0")

    def pids(self) -> list[int]:
        return _pids_in(f"{self.path}/cgroup.procs")

    def is_empty(self) -> bool:
        events = _read_or_none(f"{self.path}/cgroup.events")
        if events is None:
            return True
        return _keyed(events, "populated") == 0

    def stats(self) -> CgroupStats:
        times = self.cpu_times()
        return CgroupStats(
            memory_peak_bytes=_int_or_none(_read_or_none(f"{self.path}/memory.peak")),
            cpu_seconds=times.cpu_seconds,
            pids_peak=_int_or_none(_read_or_none(f"{self.path}/pids.peak")),
            oom_kills=_keyed(_read_or_none(f"{self.path}/memory.events"), "oom_kill") or 0,
            cpu_wait_seconds=times.wait_seconds,
        )

    def cpu_times(self) -> CpuTimes:
        stat = _read_or_none(f"{self.path}/cpu.stat")
        usage_usec = _keyed(stat, "usage_usec")
        delays = thread_times(self.pids()).wait_seconds or 0.0
        wait = pressure_wait(self.path)
        # Throttled by its quota: CFS hands quota out in per-CPU slices, so even one thread
        # under a full core can be throttled (the referee's CPU floor charges real overuse).
        throttled = (_keyed(stat, "throttled_usec") or 0) / 1e6
        wait = (delays if wait is None else wait) + throttled
        cpu = None if usage_usec is None else usage_usec / 1e6
        return CpuTimes(cpu, wait, delays + throttled)

    def rmdir(self) -> None:
        _rmdir_retry(self.path)


class CgroupV2Manager(CgroupManager):
    version = 2

    def __init__(self, mount: str, parent_name: str) -> None:
        self.mount = mount
        self.parent = f"{mount}/{parent_name}"

    def parent_paths(self) -> tuple[str, ...]:
        return (self.parent,)

    def setup(self) -> None:
        wanted = " ".join(f"+{c}" for c in REQUIRED_CONTROLLERS)
        _write(f"{self.mount}/cgroup.subtree_control", wanted)
        os.makedirs(self.parent, exist_ok=True)
        _write(f"{self.parent}/cgroup.subtree_control", wanted)

    def create(self, limits: SandboxLimits) -> BotCgroup:
        self.retry_orphans()
        name = self.new_name()
        path = f"{self.parent}/{name}"
        os.mkdir(path, 0o755)
        cgroup = _V2Cgroup(path, name)
        try:
            _write(f"{path}/memory.max", str(limits.memory_bytes))
            with contextlib.suppress(FileNotFoundError):  # no swap accounting
                _write(f"{path}/memory.swap.max", "0")
            with contextlib.suppress(FileNotFoundError):
                _write(f"{path}/memory.oom.group", "1")
            _write(f"{path}/pids.max", str(limits.pids))
            quota = max(1000, round(limits.cpu_quota * CPU_PERIOD_US))
            _write(f"{path}/cpu.max", f"{quota} {CPU_PERIOD_US}")
        except BaseException:
            cgroup.remove()
            raise
        return cgroup

    def _bot_dirs(self) -> Iterator[str]:
        with contextlib.suppress(FileNotFoundError):
            for entry in os.scandir(self.parent):
                if entry.is_dir():
                    yield entry.name

    def _attach(self, name: str) -> BotCgroup:
        return _V2Cgroup(f"{self.parent}/{name}", name)


# --------------------------------------------------------------------- v1


class _V1Cgroup(BotCgroup):
    def __init__(self, name: str, dirs: dict[str, str]) -> None:
        self.name = name
        self.dirs = dirs  # controller -> directory (co-mounted ones share one)
        self.join_paths = tuple(f"{d}/cgroup.procs" for d in dict.fromkeys(dirs.values()))

    @property
    def _procs(self) -> str:
        """The cgroup.procs that lists the bot's processes (all dirs hold them)."""
        directory = self.dirs.get("pids") or next(iter(self.dirs.values()), None)
        return f"{directory}/cgroup.procs" if directory else "/nonexistent"

    def kill_all(self) -> None:
        procs = self._procs
        freezer = self.dirs.get("freezer")
        if freezer is not None:
            state = f"{freezer}/freezer.state"
            try:
                _write(state, "FROZEN")
            except FileNotFoundError:
                pass  # released meanwhile (a kill after an OOM kill): the plain kill below
            else:
                try:
                    _wait_for(lambda: (_read_or_none(state) or "").strip() == "FROZEN", 1.0)
                    _kill_each(_pids_in(procs))
                finally:
                    with contextlib.suppress(OSError):
                        _write(state, "THAWED")
        for _ in range(100):
            pids = _pids_in(procs)
            if not pids:
                break
            _kill_each(pids)

    def pids(self) -> list[int]:
        return _pids_in(self._procs)

    def is_empty(self) -> bool:
        return not _pids_in(self._procs)

    def stats(self) -> CgroupStats:
        memory = self.dirs["memory"]
        times = self.cpu_times()
        return CgroupStats(
            memory_peak_bytes=_int_or_none(_read_or_none(f"{memory}/memory.max_usage_in_bytes")),
            cpu_seconds=times.cpu_seconds,
            pids_peak=_int_or_none(_read_or_none(f"{self.dirs['pids']}/pids.peak")),
            oom_kills=_keyed(_read_or_none(f"{memory}/memory.oom_control"), "oom_kill") or 0,
            cpu_wait_seconds=times.wait_seconds,
        )

    def cpu_times(self) -> CpuTimes:
        usage_ns = _int_or_none(_read_or_none(f"{self.dirs['cpuacct']}/cpuacct.usage"))
        pressure = self.dirs.get(PRESSURE)
        delays = thread_times(self.pids()).wait_seconds or 0.0
        wait = None if pressure is None else pressure_wait(pressure)
        # Throttled by its quota (see _V2Cgroup.cpu_times).
        stat = _read_or_none(f"{self.dirs['cpu']}/cpu.stat")
        throttled = (_keyed(stat, "throttled_time") or 0) / 1e9
        wait = (delays if wait is None else wait) + throttled
        cpu = None if usage_ns is None else usage_ns / 1e9
        return CpuTimes(cpu, wait, delays + throttled)

    def rmdir(self) -> None:
        for directory in dict.fromkeys(self.dirs.values()):
            _rmdir_retry(directory)


class CgroupV1Manager(CgroupManager):
    """Bot cgroups in the v1 hierarchies; on a hybrid host also one in the v2 hierarchy
    beside them (``unified``, no controller), only for its ``cpu.pressure``."""

    version = 1

    def __init__(
        self, mounts: dict[str, str], parent_name: str, unified: str | None = None
    ) -> None:
        # controller -> parent directory of the bot cgroups in its hierarchy
        self.parents = {c: f"{m}/{parent_name}" for c, m in mounts.items()}
        if unified is not None:
            self.parents[PRESSURE] = f"{unified}/{parent_name}"

    def parent_paths(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(self.parents.values()))

    def setup(self) -> None:
        pressure = self.parents.pop(PRESSURE, None)
        for directory in self.parent_paths():
            os.makedirs(directory, exist_ok=True)
        if pressure is not None and _can_join(pressure):
            self.parents[PRESSURE] = pressure

    def create(self, limits: SandboxLimits) -> BotCgroup:
        self.retry_orphans()
        name = self.new_name()
        dirs = {c: f"{p}/{name}" for c, p in self.parents.items()}
        made: dict[str, str] = {}
        cgroup = _V1Cgroup(name, made)
        try:
            for controller, directory in dirs.items():
                if directory not in made.values():
                    os.mkdir(directory, 0o755)
                made[controller] = directory
            cgroup = _V1Cgroup(name, made)
            memory = dirs["memory"]
            _write(f"{memory}/memory.limit_in_bytes", str(limits.memory_bytes))
            if os.path.exists(f"{memory}/memory.memsw.limit_in_bytes"):
                _write(f"{memory}/memory.memsw.limit_in_bytes", str(limits.memory_bytes))
            _write(f"{dirs['pids']}/pids.max", str(limits.pids))
            quota = max(1000, round(limits.cpu_quota * CPU_PERIOD_US))
            _write(f"{dirs['cpu']}/cpu.cfs_period_us", str(CPU_PERIOD_US))
            _write(f"{dirs['cpu']}/cpu.cfs_quota_us", str(quota))
        except BaseException:
            if "pids" in made:
                cgroup.remove()
            else:
                cgroup.rmdir()
            raise
        return cgroup

    def _bot_dirs(self) -> Iterator[str]:
        with contextlib.suppress(FileNotFoundError):
            for entry in os.scandir(self.parents["pids"]):
                if entry.is_dir():
                    yield entry.name

    def _attach(self, name: str) -> BotCgroup:
        dirs = {c: f"{p}/{name}" for c, p in self.parents.items()}
        return _V1Cgroup(name, {c: d for c, d in dirs.items() if os.path.isdir(d)})


# --------------------------------------------------------------- detection


@dataclass(frozen=True, slots=True)
class _Mount:
    mountpoint: str
    fstype: str
    super_options: tuple[str, ...]
    #: the directory of the hierarchy mounted there ("/" unless a container's view)
    root: str = "/"


def _unescape(path: str) -> str:
    """Decode the octal escapes (``\\040``) of /proc/self/mountinfo."""
    if "\\" not in path:
        return path
    return path.encode("ascii").decode("unicode_escape")


def _cgroup_mounts(mountinfo: str) -> list[_Mount]:
    mounts = []
    for line in mountinfo.splitlines():
        left, sep, right = line.partition(" - ")
        if not sep:
            continue
        fields = left.split()
        tail = right.split()
        if len(fields) < 5 or len(tail) < 3 or tail[0] not in ("cgroup", "cgroup2"):
            continue
        mounts.append(
            _Mount(_unescape(fields[4]), tail[0], tuple(tail[2].split(",")), _unescape(fields[3]))
        )
    return mounts


def _can_join(parent: str) -> bool:
    """Whether a process can be put in a new cgroup under ``parent`` (v2, no controller)
    and that cgroup keeps a ``cpu.pressure``: tried once, with a probe that exits."""
    probe = f"{parent}/probe-{os.getpid()}"
    try:
        os.makedirs(parent, exist_ok=True)
        os.mkdir(probe, 0o755)
    except OSError:
        return False
    try:
        joined = subprocess.run(
            ["/bin/sh", "-c", 'echo 0 >"$1"', "vegas-probe", f"{probe}/cgroup.procs"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
        return joined.returncode == 0 and pressure_wait(probe) is not None
    except OSError:
        return False
    finally:
        with contextlib.suppress(OSError):
            _rmdir_retry(probe)


def detect(parent_name: str = "vegas-arena") -> CgroupV1Manager | CgroupV2Manager:
    """Find usable cgroups (v2 preferred) or raise SandboxUnavailableError."""
    try:
        mounts = _cgroup_mounts(_read("/proc/self/mountinfo"))
    except OSError as exc:
        raise SandboxUnavailableError([f"cannot read /proc/self/mountinfo: {exc}"]) from exc
    problems: list[str] = []
    for mount in mounts:
        if mount.fstype != "cgroup2":
            continue
        available = set((_read_or_none(f"{mount.mountpoint}/cgroup.controllers") or "").split())
        missing = [c for c in REQUIRED_CONTROLLERS if c not in available]
        if not missing:
            return CgroupV2Manager(mount.mountpoint, parent_name)
        problems.append(
            f"cgroup v2 at {mount.mountpoint} lacks controller(s) {', '.join(missing)}"
            " (bound to cgroup v1 hierarchies?)"
        )
    v1: dict[str, str] = {}
    for mount in mounts:
        if mount.fstype == "cgroup":
            for controller in ("memory", "pids", "cpu", "cpuacct", "freezer"):
                if controller in mount.super_options:
                    v1.setdefault(controller, mount.mountpoint)
    missing_v1 = [c for c in ("memory", "pids", "cpu", "cpuacct") if c not in v1]
    if not missing_v1:
        unified = next((m.mountpoint for m in mounts if m.fstype == "cgroup2"), None)
        return CgroupV1Manager(v1, parent_name, unified)
    if not any(m.fstype == "cgroup2" for m in mounts):
        problems.append("no cgroup v2 mounted (mount -t cgroup2 none /sys/fs/cgroup)")
    if any(m.fstype == "cgroup" for m in mounts):
        problems.append(f"cgroup v1 controller(s) missing: {', '.join(missing_v1)}")
    raise SandboxUnavailableError(problems)


# ------------------------------------------------------- delegated (not root)


class DelegatedV2Manager(CgroupV2Manager):
    """Bot cgroups in the v2 cgroup delegated to a caller that is not root (its own
    cgroup, which it holds alone, e.g. under ``systemd-run --user --scope -p Delegate=yes``).

    A cgroup that hands controllers to its children may hold no process itself, so
    :meth:`setup` first moves the caller into a leaf of its own (``sdk-<pid>``).
    """

    def setup(self) -> None:
        for entry in os.scandir(self.mount):  # the leaves of earlier callers, if empty
            if entry.name.startswith("sdk-") and entry.is_dir():
                with contextlib.suppress(OSError):
                    os.rmdir(entry.path)
        leaf = f"{self.mount}/sdk-{os.getpid()}"
        os.makedirs(leaf, exist_ok=True)
        _write(f"{leaf}/cgroup.procs", "0")
        super().setup()


def delegation_problem(directory: str) -> str | None:
    """Why the calling process (not root) cannot make bot cgroups under its own
    v2 cgroup ``directory``, or None when it can."""
    available = set((_read_or_none(f"{directory}/cgroup.controllers") or "").split())
    missing = [c for c in REQUIRED_CONTROLLERS if c not in available]
    if missing:
        return f"its cgroup {directory} offers no {', '.join(missing)} controller"
    for path in (directory, f"{directory}/cgroup.procs", f"{directory}/cgroup.subtree_control"):
        if not os.access(path, os.W_OK):
            return f"its cgroup {directory} is not delegated to it"
    others = [pid for pid in _pids_in(f"{directory}/cgroup.procs") if pid != os.getpid()]
    if others:
        return f"its cgroup {directory} holds {len(others)} other process(es)"
    return None


def delegated(parent_name: str = "vegas-arena") -> DelegatedV2Manager | str:
    """The bot cgroups a caller that is not root may make (in its own v2 cgroup,
    if delegated to it), or why it may not."""
    try:
        mounts = _cgroup_mounts(_read("/proc/self/mountinfo"))
        own = next(
            (line[3:] for line in _read("/proc/self/cgroup").splitlines() if line[:3] == "0::"),
            None,
        )
    except OSError as exc:
        return f"cannot read its cgroup: {exc}"
    v2 = next((m for m in mounts if m.fstype == "cgroup2" and m.root == "/"), None)
    if v2 is None or own is None:
        return "no cgroup v2 hierarchy"
    directory = v2.mountpoint.rstrip("/") + own.rstrip("/")
    return delegation_problem(directory) or DelegatedV2Manager(directory, parent_name)
