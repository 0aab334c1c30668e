"""A sandbox without a cgroup (run by a user that is not root, none delegated).

Its processes are those of its pid namespace: bubblewrap's pid 1 (the reaper)
and its descendants, all killed by the kernel when pid 1 dies. The number of
its tasks (processes and threads) is capped by ``RLIMIT_NPROC``, which the
kernel counts per user *within each user namespace* (the sandbox's own), so it
caps the sandbox and not the caller's other processes. Memory and CPU are not
limited: that needs a cgroup.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import select
import signal
import time

from ._cpu import CpuTimes, thread_times
from ._types import SandboxError, SandboxLimits

#: At most this many processes are walked (a fork bomb is capped far below).
_MAX_WALK = 4096
_TICKS = os.sysconf("SC_CLK_TCK")


class PidNamespace:
    """The processes of one sandbox, found from its pid 1 (a pidfd: never a reused pid)."""

    def __init__(self, reaper: int, namespace: int) -> None:
        #: host pid of the sandbox's pid 1 (bubblewrap's reaper)
        self.reaper = reaper
        #: inode of the sandbox's pid namespace: what tells its processes from others
        self.namespace = namespace
        self._pidfd = os.pidfd_open(reaper)
        #: the most seen so far (the counters forget the processes that ended)
        self.cpu_seen: float | None = None
        self.memory_seen: int | None = None

    def kill_all(self) -> None:
        """SIGKILL the sandbox's pid 1: the kernel then kills every process of its namespace."""
        with contextlib.suppress(ProcessLookupError, OSError):
            signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)

    def _inside(self, pid: int) -> bool:
        try:
            return os.stat(f"/proc/{pid}/ns/pid").st_ino == self.namespace
        except OSError:
            return False

    def pids(self) -> list[int]:
        """The (host) pids of the sandbox's processes now, pid 1 included."""
        found: list[int] = []
        pending = [self.reaper]
        while pending and len(found) < _MAX_WALK:
            pid = pending.pop()
            if not self._inside(pid):
                continue
            found.append(pid)
            try:
                tasks = os.listdir(f"/proc/{pid}/task")
            except OSError:
                continue
            for tid in tasks:  # children are listed per thread that made them
                try:
                    with open(f"/proc/{pid}/task/{tid}/children", "rb") as handle:
                        pending.extend(int(word) for word in handle.read().split())
                except (OSError, ValueError):
                    continue
        return found

    def cpu_times(self) -> CpuTimes:
        """CPU used by the threads alive now (``schedstat``: exact) plus by the processes
        that ended and were waited for (their parents' ``cutime`` and ``cstime``, in
        clock ticks: a compiler's steps); time waited for a CPU by the threads alive."""
        pids = self.pids()
        times = thread_times(pids)
        reaped = 0
        for pid in pids:
            try:
                with open(f"/proc/{pid}/stat", "rb") as handle:
                    stat = handle.read()
                fields = stat[stat.rfind(b")") + 2 :].split()
                reaped += int(fields[13]) + int(fields[14])
            except (OSError, ValueError, IndexError):
                continue
        cpu = (times.cpu_seconds or 0.0) + reaped / _TICKS
        if (self.cpu_seen or 0.0) < cpu:
            self.cpu_seen = cpu
        return CpuTimes(cpu, times.wait_seconds, times.run_delay_seconds)

    def memory_bytes(self) -> int | None:
        """The resident high-water marks of the processes alive now, summed."""
        total = 0
        for pid in self.pids():
            try:
                with open(f"/proc/{pid}/status", "rb") as handle:
                    for line in handle:
                        if line.startswith(b"VmHWM:"):
                            total += int(line.split()[1]) * 1024
            except (OSError, ValueError, IndexError):
                continue
        if total and (self.memory_seen or 0) < total:
            self.memory_seen = total
        return total or None

    def sample(self) -> None:
        """Note the CPU and memory used so far (before the end forgets them)."""
        self.cpu_times()
        self.memory_bytes()

    def wait_gone(self, timeout: float = 5.0) -> bool:
        """Wait until pid 1 has ended: the kernel ends it after every other process of
        its namespace is gone. False if it still runs after ``timeout`` seconds."""
        poller = select.poll()
        poller.register(self._pidfd, select.POLLIN)
        return bool(poller.poll(max(0, round(timeout * 1000))))

    def release(self, timeout: float = 5.0) -> None:
        """After kill_all(): wait until the sandbox's processes are gone, then let go."""
        self.wait_gone(timeout)
        with contextlib.suppress(OSError):
            os.close(self._pidfd)


def _read_to_end(fd: int, timeout: float) -> bytes:
    data = b""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            raise SandboxError("bubblewrap did not start the sandbox in time")
        chunk = os.read(fd, 4096)
        if not chunk:
            return data
        data += chunk


def enter(info_fd: int, block_fd: int, limits: SandboxLimits) -> PidNamespace:
    """Cap the tasks of a starting sandbox and let it run.

    bubblewrap (``--info-fd``, ``--block-fd``) writes its pid 1 and pid
    namespace, then waits, inside its user namespace, before it forks the
    bot: its ``RLIMIT_NPROC`` is set then, so the limit counts the sandbox's
    tasks only (pid 1 among them; the monitor outside is the second of the
    ``pids`` a cgroup counts). Closes both descriptors. Raises SandboxError
    when bubblewrap told nothing (it failed: its stderr says why).
    """
    try:
        text = _read_to_end(info_fd, timeout=30)
        try:
            info = json.loads(text) if text else {}
        except ValueError:
            info = {}
        reaper, namespace = info.get("child-pid"), info.get("pid-namespace")
        if not isinstance(reaper, int) or not isinstance(namespace, int):
            raise SandboxError("bubblewrap failed to start the sandbox")
        group = PidNamespace(reaper, namespace)  # while it waits: its pid is not reused
        tasks = limits.pids - 1
        try:
            resource.prlimit(reaper, resource.RLIMIT_NPROC, (tasks, tasks))
        except OSError as exc:
            group.kill_all()
            group.release()
            raise SandboxError(f"cannot limit the sandbox's processes: {exc}") from exc
        os.write(block_fd, b"1")
        return group
    finally:
        for fd in (info_fd, block_fd):
            with contextlib.suppress(OSError):
                os.close(fd)
