"""Which program a bot is, and how the referee starts it: bare or sandboxed.

A :class:`BotSpec` names a bot's runtime, files and built program. A
:data:`Launcher` turns it into a running :class:`~bots_sdk.sandbox.BotProcess`;
the referee needs nothing else of it, so tests or a platform worker may pass
their own. :func:`launch_bot` is the default: house bots and ``trusted``
specs run as plain processes, everything else in the sandbox.
:func:`resolve_bot` finds a bot from the command line and :func:`build_bot`
builds it (in the sandbox unless trusted), as the platform does.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

from . import sandbox
from .build import BuildResult, build, unpack_program
from .inprocess import InProcessSeat, ThreadSeatProcess
from .protocol import Limits
from .runtimes import BUILD_MOUNT, RUNTIMES, Runtime, Stage, runtime_for_file, runtime_for_folder

#: The house bots: name -> file in ``bots_sdk/house/``.
HOUSE_BOTS: Mapping[str, str] = {
    "random": "random_bot.py",
    "greedy": "greedy_bot.py",
    "montecarlo": "montecarlo_bot.py",
    "gambler": "gambler_bot.py",
    "ismcts": "ismcts_bot.py",
}

HOUSE_DIR = Path(__file__).resolve().parent / "house"
#: The directory holding the ``bots_sdk`` and ``vegas_engine`` packages.
PACKAGES_ROOT = Path(__file__).resolve().parent.parent


class BotNotFoundError(ValueError):
    """A bot argument that is no bot file, bot folder, executable or house bot."""


class UnreadableBotError(BotNotFoundError):
    """A bot whose files the sandbox cannot read, and that cannot be copied where it can."""


class BotBuildError(RuntimeError):
    """A bot that does not build; the message is the build's report."""

    def __init__(self, name: str, result: BuildResult) -> None:
        self.result = result
        super().__init__(f"{name} ({result.runtime.title}) does not build:\n{result.output}")


@dataclass(frozen=True)
class BotSpec:
    """A bot program: its files ``bot_dir`` (``/bot`` when sandboxed) and ``runtime``.

    ``main`` is the main file, relative to ``bot_dir`` (None: ``executable`` is
    a program of its own, any language, run as it is). ``program_dir`` holds
    the built program (``/build`` when sandboxed) of a runtime that builds one.
    """

    name: str
    bot_dir: Path
    main: str | None = "main.py"
    executable: str | None = None
    trusted: bool = False
    env: Mapping[str, str] = field(default_factory=dict)
    runtime: str = "python"
    program_dir: Path | None = None
    #: Played by a thread of the referee's process, not a program (:func:`in_process`).
    seat: InProcessSeat | None = None

    def command(self, memory_bytes: int = Limits().memory_bytes) -> list[str]:
        """The command line, with the bot's files under ``/bot`` and its program
        under ``/build`` (see the sandbox)."""
        if self.main is None:
            assert self.executable is not None
            return [f"{sandbox.BOT_MOUNT}/{self.executable}"]
        if self.trusted and self.runtime == "python":
            # The running interpreter, so a local run uses the same Python and packages.
            return [sys.executable, f"{sandbox.BOT_MOUNT}/{self.main}"]
        return RUNTIMES[self.runtime].command(Stage.RUN, memory_bytes=memory_bytes, main=self.main)


def in_process(seat: InProcessSeat) -> BotSpec:
    """The spec that seats ``seat`` at a match: a thread of the referee's process speaking
    the protocol through pipes, as a bot does (a person at a table, a test double)."""
    return BotSpec(name=seat.name, bot_dir=Path("."), main=None, trusted=True, seat=seat)


def house_bot(name: str) -> BotSpec:
    """A house bot; trusted, since it is the platform's own code."""
    return BotSpec(name=name, bot_dir=HOUSE_DIR, main=HOUSE_BOTS[name], trusted=True)


def resolve_bot(argument: str, *, trusted: bool = False) -> BotSpec:
    """A bot from the command line: a house bot name, a source file of any
    runtime (``.py``, ``.c``, ``.java``, ...), a folder with a main file at its
    top (``main.py``, ``main.c``, ...), or an executable file. Runtimes that
    build a program need :func:`build_bot` before they play."""
    if argument in HOUSE_BOTS and not Path(argument).exists():
        return house_bot(argument)
    path = Path(argument).resolve()
    if path.is_dir():
        try:
            runtime = runtime_for_folder([child.name for child in path.iterdir()])
        except ValueError as error:
            raise BotNotFoundError(f"{argument}: {error}") from None
        return BotSpec(
            name=path.name, bot_dir=path, main=runtime.main, trusted=trusted, runtime=runtime.id
        )
    if path.is_file():
        if path.suffix == ".py":
            # A folder's main.py is that folder's bot: name it after the folder.
            name = path.parent.name if path.name == "main.py" else path.stem
            return BotSpec(name=name, bot_dir=path.parent, main=path.name, trusted=trusted)
        if any(path.suffix in r.suffixes for r in RUNTIMES.values()):
            return _single_file_bot(path, runtime_for_file(path.name), trusted)
        if os.access(path, os.X_OK):
            with path.open("rb") as handle:
                magic = handle.read(4)
            if magic != b"\x7fELF" and not magic.startswith(b"#!"):
                # The kernel cannot run it (ENOEXEC); in the sandbox bwrap would only say
                # "No such file or directory", as it finds no shell to try instead.
                raise BotNotFoundError(
                    f"{argument}: executable, but not a program: an executable bot is a "
                    "Linux (ELF) binary or a script whose first line is #! and its interpreter"
                )
            if magic.startswith(b"#!") and not trusted:
                _check_interpreter(argument, path)
            return BotSpec(
                name=path.name,
                bot_dir=path.parent,
                main=None,
                executable=path.name,
                trusted=trusted,
            )
        raise BotNotFoundError(
            f"{argument}: not a bot source file ({_known_mains()}) and not executable"
        )
    raise BotNotFoundError(
        f"{argument}: no such file or folder, and not a house bot ({', '.join(HOUSE_BOTS)})"
    )


def _check_interpreter(argument: str, path: Path) -> None:
    """Refuse a ``#!`` script whose interpreter the sandbox does not show: bwrap
    would only say "No such file or directory", naming the script."""
    with path.open("rb") as handle:
        first = handle.readline(256)[2:].decode(errors="replace").split()
    interpreter = first[0] if first else ""
    if interpreter.startswith("/bin/"):
        interpreter = "/usr" + interpreter
    view = sandbox_config().runtime
    visible = {link for _target, link in view.symlinks} | set(view.ro_paths)
    if interpreter in visible or any(interpreter.startswith(p + "/") for p in view.ro_paths):
        return
    languages = ", ".join(r.title for r in RUNTIMES.values())
    raise BotNotFoundError(
        f"{argument}: a script for {interpreter or 'no interpreter'}, which the sandbox does "
        f"not have: write the bot in one of the arena's languages ({languages}; "
        "`python -m bots_sdk new NAME --lang ...` starts one), or run it with --no-sandbox"
    )


def _known_mains() -> str:
    return ", ".join(r.main for r in RUNTIMES.values())


def _scratch(prefix: str) -> Path:
    """A folder the bot user may read, removed when this process ends."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    folder.chmod(0o755)
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def _single_file_bot(path: Path, runtime: Runtime, trusted: bool) -> BotSpec:
    """One source file is a bot of its own, built as its runtime's main file
    (the platform stores a single-file upload the same way)."""
    folder = _scratch("vegas-bot-")
    copy = folder / runtime.main
    shutil.copyfile(path, copy)
    copy.chmod(0o644)
    name = path.parent.name if path.stem == "main" else path.stem
    return BotSpec(
        name=name, bot_dir=folder, main=runtime.main, trusted=trusted, runtime=runtime.id
    )


#: The most a bot folder the sandbox cannot read is copied for it (an upload is far smaller).
COPY_FILES = 10_000
COPY_BYTES = 256 * 2**20


def readable_bot(spec: BotSpec) -> BotSpec:
    """``spec`` as the sandbox can read it: as it is, or copied to a folder the
    sandbox may read (removed when this process ends), as when it lies in a private
    home or a ``mktemp -d`` folder: a bot folder whole, a single file (a ``.py``
    other than ``main.py``, an executable) alone, as the platform stores an upload
    of one file. Raises :class:`UnreadableBotError` naming the fix when it cannot be
    copied, and SandboxUnavailableError when the sandbox cannot run."""
    if spec.trusted:
        return spec
    config = sandbox_config(spec.runtime)
    single = spec.executable  # a file alone (the folder it lies in is no part of the bot)
    if spec.runtime == "python" and spec.main not in (None, "main.py"):
        single = spec.main  # (other runtimes' single files are copied alone already)
    names = None if single is None else [single]
    blocked = sandbox.unreadable(spec.bot_dir, config, names)
    if blocked is None:
        return spec
    if os.geteuid() == 0:
        how = "make the folders on the way o+x and the bot's own o+rx (its files o+r)"
    else:
        how = "make it readable to you"
    fix = f"{spec.bot_dir}: the sandbox cannot read {blocked}; {how}, or move it somewhere readable"
    files = size = 0
    for folder, _dirs, found in os.walk(spec.bot_dir) if single is None else ():
        for name in found:
            files += 1
            with contextlib.suppress(OSError):
                size += os.lstat(os.path.join(folder, name)).st_size
        if files > COPY_FILES or size > COPY_BYTES:
            raise UnreadableBotError(f"{fix} (too big to copy)")
    copy = _scratch("vegas-bot-")
    try:
        if single is None:
            shutil.copytree(spec.bot_dir, copy, symlinks=True, dirs_exist_ok=True)
        else:
            shutil.copyfile(spec.bot_dir / single, copy / single)
            shutil.copymode(spec.bot_dir / single, copy / single)
    except (OSError, shutil.Error) as error:
        raise UnreadableBotError(f"{fix} (copying it failed: {error})") from None
    copy.chmod(0o755)  # copytree gave it the mode of the folder it copies
    for folder, dirs, names_in in os.walk(copy):
        for name in dirs:
            os.chmod(os.path.join(folder, name), 0o755)
        for name in names_in:
            path = os.path.join(folder, name)
            mode = os.lstat(path).st_mode
            if stat.S_ISREG(mode):
                os.chmod(path, 0o755 if mode & stat.S_IXUSR else 0o644)
    if sandbox.unreadable(copy, config) is not None:
        raise UnreadableBotError(f"{fix} (the temporary folder {copy} is not readable either)")
    return replace(spec, bot_dir=copy)


def build_bot(spec: BotSpec) -> BotSpec:
    """``spec`` built by its runtime, in the sandbox unless trusted, exactly as the
    platform builds an upload: the program unpacked into a folder of its own.

    Raises :class:`BotBuildError` with the build's report when it fails. House
    bots, executables and single Python files are returned as they are.
    """
    if spec.main is None or (spec.runtime == "python" and spec.main != "main.py"):
        return spec
    runtime = RUNTIMES[spec.runtime]
    result = build(spec.bot_dir, runtime, trusted=spec.trusted)
    if not result.ok:
        raise BotBuildError(spec.name, result)
    if not runtime.builds_program:
        return spec
    program_dir = _scratch("vegas-program-")
    unpack_program(result.program, program_dir)
    return replace(spec, program_dir=program_dir)


@functools.cache
def sandbox_config(runtime_id: str = "python") -> sandbox.SandboxConfig:
    """The sandbox a bot of ``runtime_id`` plays in; Python bots can import the
    SDK and the engine (read-only)."""
    view = RUNTIMES[runtime_id].sandbox_view(Stage.RUN)
    if runtime_id == "python":
        for package in ("bots_sdk", "vegas_engine"):
            view = view.with_python_package(PACKAGES_ROOT / package)
    return sandbox.SandboxConfig(runtime=view)


def sandbox_limits(limits: Limits, runtime_id: str = "python") -> sandbox.SandboxLimits:
    pids = max(sandbox.SandboxLimits().pids, RUNTIMES[runtime_id].min_pids)
    return sandbox.SandboxLimits(
        memory_bytes=limits.memory_bytes, cpu_quota=limits.cpu_cores, pids=pids
    )


class Pipe(Protocol):
    """One end of a seat's pipe, as the referee uses it (non-blocking, by descriptor)."""

    def fileno(self) -> int: ...
    def close(self) -> None: ...


class RunningSeat(Protocol):
    """What the referee reads of a running seat: a bot's process
    (:class:`~bots_sdk.sandbox.BotProcess`) or an in-process seat's thread
    (:class:`~bots_sdk.inprocess.ThreadSeatProcess`)."""

    @property
    def stdin(self) -> Pipe: ...
    @property
    def stdout(self) -> Pipe: ...
    @property
    def pid(self) -> int: ...
    @property
    def trusted(self) -> bool: ...

    def poll(self) -> int | None: ...
    def exit_fd(self) -> int: ...
    def kill(self) -> None: ...
    def closed_pipes(self) -> tuple[bool, bool] | None: ...
    def cpu_times(self) -> sandbox.CpuTimes: ...
    def usage(self) -> dict[str, int | float | None]: ...
    def stderr_written(self) -> int: ...
    def stderr_full(self) -> bool: ...
    def stderr_read(self, start: int, size: int) -> bytes: ...
    def close(self, timeout: float = 0.0, stderr_bytes: int = 4096) -> sandbox.ProcessOutcome: ...


Launcher = Callable[[BotSpec, Limits], RunningSeat]


def launch_bot(spec: BotSpec, limits: Limits) -> RunningSeat:
    """Start ``spec``: its thread if it is an in-process seat, bare if trusted (the SDK
    and engine found via PYTHONPATH), else in the sandbox. Raises
    :class:`~bots_sdk.sandbox.SandboxError` or :class:`OSError` when it cannot start."""
    if spec.seat is not None:
        return ThreadSeatProcess(spec.seat)
    runtime = RUNTIMES[spec.runtime]
    env = {**runtime.environment(Stage.RUN, memory_bytes=limits.memory_bytes), **spec.env}
    binds = [] if spec.program_dir is None else [(spec.program_dir, BUILD_MOUNT)]
    if spec.trusted:
        return sandbox.launch(
            spec.command(limits.memory_bytes),
            bot_dir=spec.bot_dir,
            limits=sandbox_limits(limits, spec.runtime),
            trusted=True,
            env={"PYTHONPATH": str(PACKAGES_ROOT), **env},
            extra_binds=binds,
        )
    return sandbox.launch(
        spec.command(limits.memory_bytes),
        bot_dir=spec.bot_dir,
        limits=sandbox_limits(limits, spec.runtime),
        env=env,
        config=sandbox_config(spec.runtime),
        extra_binds=binds,
    )


def sandbox_unavailable() -> sandbox.SandboxUnavailableError | None:
    """Why the sandbox cannot run here (each missing piece), or None when it can."""
    try:
        sandbox.check_host(sandbox_config())
    except sandbox.SandboxUnavailableError as error:
        return error
    return None


def sandbox_problem() -> str | None:
    """Why the sandbox cannot run here, or None when it can."""
    error = sandbox_unavailable()
    return None if error is None else str(error)


def sandbox_note() -> str | None:
    """What the sandbox cannot enforce for a user that is not root, and how to get it
    (one line); None as root, or when the sandbox cannot run at all."""
    try:
        host = sandbox.check_host(sandbox_config())
    except sandbox.SandboxUnavailableError:
        return None
    if host.privileged:
        return None
    who = f"not root: the bots run sandboxed as {host.user} (namespaces of their own, no network)"
    if host.unenforced:
        return (
            f"{who}, but their {' and '.join(host.unenforced)} limits are not enforced: "
            f"to enforce them, {sandbox.ROOT_HINT}"
        )
    return f"{who}, with every limit in your delegated cgroup; as root they run as a bot user"
