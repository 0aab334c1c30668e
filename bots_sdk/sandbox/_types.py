"""Public value types of the sandbox: limits, outcomes, errors."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

KiB = 1024
MiB = 1024 * KiB
GiB = 1024 * MiB


INSTALL_HINT = (
    "as root, scripts/install_bot_runtime.sh installs bubblewrap, the bot runtime and the bot user"
)


class SandboxError(RuntimeError):
    """The sandbox could not start or manage a bot."""


class SandboxUnavailableError(SandboxError):
    """A prerequisite of the sandbox is missing; ``missing`` names each one."""

    def __init__(self, missing: Sequence[str], hint: str = INSTALL_HINT) -> None:
        self.missing: tuple[str, ...] = tuple(missing)
        lines = "\n".join(f"  - {item}" for item in self.missing)
        super().__init__(f"bot sandbox unavailable:\n{lines}\n({hint})")


@dataclass(frozen=True, slots=True)
class SandboxLimits:
    """Resource limits of one bot (all the processes it starts, together).

    ``memory_bytes``, ``pids`` and ``cpu_quota`` are enforced by the bot's
    cgroup: exceeding the memory kills it (OOM, recorded), extra forks fail,
    and the CPU is throttled to ``cpu_quota`` cores (1.0 = one full core).
    ``file_size_bytes`` (RLIMIT_FSIZE) and ``open_files`` (RLIMIT_NOFILE) are
    per process. ``tmp_bytes`` sizes the private ``/tmp`` and ``shm_bytes``
    ``/dev/shm`` (both tmpfs, also charged to the memory limit). At most
    ``stderr_bytes`` of the bot's stderr are kept; writes past that fail.
    """

    memory_bytes: int = 256 * MiB
    pids: int = 32
    cpu_quota: float = 1.0
    file_size_bytes: int = 16 * MiB
    open_files: int = 64
    tmp_bytes: int = 16 * MiB
    shm_bytes: int = 1 * MiB
    stderr_bytes: int = 256 * KiB

    def __post_init__(self) -> None:
        for name in (
            "memory_bytes",
            "pids",
            "file_size_bytes",
            "open_files",
            "tmp_bytes",
            "shm_bytes",
            "stderr_bytes",
        ):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"SandboxLimits.{name} must be a positive int, got {value!r}")
        if self.memory_bytes < 16 * MiB:
            raise ValueError("SandboxLimits.memory_bytes must be at least 16 MiB")
        if self.pids < 4:
            raise ValueError("SandboxLimits.pids must be at least 4 (bwrap needs 2)")
        if self.open_files < 16:
            raise ValueError("SandboxLimits.open_files must be at least 16")
        if not 0.01 <= self.cpu_quota <= 1024:
            raise ValueError(f"SandboxLimits.cpu_quota out of range: {self.cpu_quota!r}")


@dataclass(frozen=True, slots=True)
class ProcessOutcome:
    """How a bot ended and what it used.

    ``exit_code`` is set when the bot exited by itself, ``signal`` when it was
    killed by a signal (bubblewrap reports a bot's death by signal N as exit
    status 128+N, which is read back as a signal). ``killed`` tells that the
    sandbox had to kill it (``kill()`` or ``close()`` found it still running).
    The peaks come from the bot's cgroup (None where the kernel does not
    provide the counter, and ``pids_peak`` is always None in trusted mode).
    """

    exit_code: int | None
    signal: int | None
    killed: bool
    oom_killed: bool
    memory_peak_bytes: int | None
    cpu_seconds: float | None
    pids_peak: int | None
    wall_seconds: float
    stderr_tail: bytes
    stderr_truncated: bool
    trusted: bool
    #: Time runnable but waiting for a CPU over the bot's life (None where unknown).
    cpu_wait_seconds: float | None = None
