"""Who runs a match: an identity a later worker can check for life.

A runner is ``host:pid-namespace:pid:start-time``. The process start time
(from ``/proc/<pid>/stat``) tells a live process from a new one that reused
the pid. Only a runner of this host and pid namespace can be checked
directly (containers sharing a host name each have their own pids); for the
others the match's heartbeat decides.
"""

from __future__ import annotations

import os
import socket


def _start_time(pid: int) -> str | None:
    """The start time of a running process ``pid``; None if none runs (or only its zombie)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return None
    # Fields after the command name (which may hold spaces): state is field 3,
    # starttime field 22. A killed worker's process can linger as a zombie
    # until its new parent reaps it; it runs nothing any more.
    fields = stat[stat.rfind(b")") + 2 :].split()
    if fields[0] in (b"Z", b"X"):
        return None
    return fields[19].decode()


def _pid_namespace() -> str:
    try:
        return str(os.stat("/proc/self/ns/pid").st_ino)
    except OSError:
        return "?"


def current_runner() -> str:
    pid = os.getpid()
    return f"{socket.gethostname()}:{_pid_namespace()}:{pid}:{_start_time(pid) or '?'}"


def runner_is_dead(runner: str) -> bool:
    """True when ``runner`` is a process of this host and pid namespace that no longer runs."""
    parts = runner.rsplit(":", 3)
    if len(parts) != 4 or not parts[2].isdigit():
        return False
    host, namespace, pid, started = parts
    if host != socket.gethostname() or namespace != _pid_namespace():
        return False
    return _start_time(int(pid)) != started
