"""Runner identities: a later worker must tell a dead runner from a live one."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

from arena.runners import _pid_namespace, _start_time, current_runner, runner_is_dead


def runner_of(pid: int) -> str:
    return f"{socket.gethostname()}:{_pid_namespace()}:{pid}:{_start_time(pid)}"


def test_this_process_is_alive() -> None:
    assert not runner_is_dead(current_runner())


def test_a_killed_process_left_as_a_zombie_is_dead() -> None:
    # A SIGKILLed worker may linger as a zombie until its parent reaps it: its
    # /proc entry still shows the same start time, but it runs nothing.
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    runner = runner_of(child.pid)
    assert not runner_is_dead(runner)
    child.kill()
    deadline = time.monotonic() + 10
    while Path(f"/proc/{child.pid}/stat").read_bytes().split(b") ")[1][:1] != b"Z":
        assert time.monotonic() < deadline, "the child never became a zombie"
        time.sleep(0.01)
    assert runner_is_dead(runner)
    child.wait()
    assert runner_is_dead(runner)


def test_a_runner_of_another_host_is_left_to_the_heartbeat() -> None:
    assert not runner_is_dead(f"elsewhere:{_pid_namespace()}:{os.getpid()}:1")
