"""How much CPU a bot used, and how long it waited for one: the referee's fair clock.

A decision is charged the time the bot could run, not the time the host took
(docs/protocol.md, *Time limits*). Two kernel counters tell them apart:

- the CPU a cgroup or a thread used (``cpuacct.usage``, ``cpu.stat``, or the
  first field of ``/proc/<pid>/task/<tid>/schedstat``);
- the time it was runnable but waited for a CPU: the cgroup's ``cpu.pressure``
  ("some": at least one of its tasks waiting; cgroup v2, or a v2 cgroup beside
  the v1 ones on hybrid hosts), else the sum of its threads' run delays (the
  second field of ``schedstat``, which forgets threads that ended); plus the time
  the cgroup was throttled by its CPU quota (``cpu.stat``): CFS hands the quota
  out in per-CPU slices, so even a single thread under one core is throttled at
  times. The referee never charges less than the CPU used, so a bot whose
  threads go over its quota gains nothing from this;
- the time the hypervisor took a virtual CPU away (steal, ``/proc/stat``): a
  thread that is running when its CPU is stolen neither runs nor waits in the
  kernel's eyes, so neither counter sees it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CpuTimes:
    """Cumulative counters of a bot's processes, in seconds; None where the kernel has none."""

    #: CPU time used, every thread and process counted.
    cpu_seconds: float | None
    #: Time runnable but waiting for a CPU (the host's contention, or its own quota).
    wait_seconds: float | None
    #: The run delays of its threads alive now, summed (``schedstat``): PSI averages a
    #: cgroup's stall over the CPUs its tasks ran on, so a thread that migrates between
    #: CPUs is undercounted there; the clock takes whichever of the two grew more.
    run_delay_seconds: float | None = None


def pressure_wait(directory: str) -> float | None:
    """The "some" total of a v2 cgroup's ``cpu.pressure`` in seconds (None: no PSI)."""
    try:
        with open(f"{directory}/cpu.pressure", "rb") as handle:
            first = handle.readline()
    except OSError:  # no such file, or PSI disabled (EOPNOTSUPP)
        return None
    if not first.startswith(b"some "):
        return None
    total = first.rsplit(b"total=", 1)[-1]
    return int(total) / 1e6 if total.strip().isdigit() else None


def thread_times(pids: Iterable[int]) -> CpuTimes:
    """CPU used and run delay summed over every thread of ``pids``, from ``schedstat``."""
    cpu = wait = 0
    for pid in pids:
        try:
            threads = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue  # ended meanwhile
        for tid in threads:
            with contextlib.suppress(OSError, ValueError, IndexError):
                with open(f"/proc/{pid}/task/{tid}/schedstat", "rb") as handle:
                    fields = handle.read().split()
                cpu += int(fields[0])
                wait += int(fields[1])
    return CpuTimes(cpu / 1e9, wait / 1e9, wait / 1e9)


def own_wait() -> float:
    """How long the calling thread has waited for a CPU so far (seconds; 0 if unknown)."""
    try:
        with open("/proc/thread-self/schedstat", "rb") as handle:
            return int(handle.read().split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0


_TICK_S = 1 / os.sysconf("SC_CLK_TCK")


def cpu_steal() -> tuple[float, ...]:
    """Seconds each CPU has been stolen by the hypervisor so far (``/proc/stat``, in clock
    ticks); empty where unknown. On bare metal they stay at zero."""
    try:
        with open("/proc/stat", "rb") as handle:
            lines = handle.read().split(b"\n")
    except OSError:
        return ()
    steal: list[float] = []
    for line in lines[1:]:  # the first line sums the CPUs
        if not line.startswith(b"cpu"):
            break
        fields = line.split()
        steal.append(int(fields[8]) * _TICK_S if len(fields) > 8 else 0.0)
    return tuple(steal)


def most_stolen(before: tuple[float, ...], after: tuple[float, ...]) -> float:
    """The most any one CPU was stolen between two :func:`cpu_steal` readings: at most
    what a thread running on one CPU at a time can have lost (0 if the CPUs changed)."""
    if len(before) != len(after):
        return 0.0
    return max((a - b for b, a in zip(before, after, strict=True)), default=0.0)
