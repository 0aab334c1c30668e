"""Running stored bot versions: their code on disk for one run, and whether we may isolate them.

Uploaded code and built programs live in the default storage, never on a
worker's disk: each run (a validation, a match) writes the version's files,
and its built program, into private temporary folders, readable by the
sandbox's bot user only through its group, and removes them afterwards (the
folders of a killed process are swept: ``arena.bots.scratch``).
House bots are the platform's own code and run trusted (bare); every other
version runs in the bots SDK's sandbox, and a worker that cannot isolate
refuses to run it.
"""

from __future__ import annotations

import io
import logging
import os
import pwd
import shutil
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from django.core.files.storage import default_storage

from arena.players.models import Profile
from bots_sdk import sandbox
from bots_sdk.build import ProgramError, unpack_program
from bots_sdk.launcher import BotSpec, RunningSeat, launch_bot, sandbox_config, sandbox_problem
from bots_sdk.protocol import Limits
from bots_sdk.runtimes import RUNTIMES

from . import scratch
from .models import BotVersion, CodeFormat
from .uploads import member_name

log = logging.getLogger(__name__)


class InfrastructureError(Exception):
    """A run failed for a reason of ours (sandbox, storage, launch), never the bot's."""


class IsolationUnavailableError(InfrastructureError):
    """This worker cannot isolate untrusted bots; the message names what is missing."""


class LaunchError(InfrastructureError):
    """A bot could not be started (the sandbox, its runtime): ours, never the bot's."""


# None: not self-tested in this process (eager tasks, the web): fall back to the host check.
_self_test_problem: str | None = None
_self_tested = False


def worker_self_test() -> str | None:
    """Run the sandbox self-test (a probe bot end to end); the problem, or None when it works.

    Called once when a worker starts; the answer holds for the worker's life
    (prefork children inherit it).
    """
    global _self_test_problem, _self_tested
    try:
        report = sandbox.self_test(sandbox_config())
    except sandbox.SandboxError as error:
        _self_test_problem = str(error)
        log.error("this worker will not run untrusted bots: %s", error)
    else:
        _self_test_problem = None
        log.info("bot sandbox self-test passed:\n%s", report)
    _self_tested = True
    return _self_test_problem


def isolation_problem() -> str | None:
    """Why untrusted bots cannot run in this process, or None when they can."""
    if _self_tested:
        return _self_test_problem
    return sandbox_problem()


def is_trusted(version: BotVersion) -> bool:
    """House bots are the platform's own code: they may run bare."""
    return Profile.objects.filter(user_id=version.bot.owner_id, is_house=True).exists()


def require_isolation(versions: list[BotVersion]) -> None:
    """Refuse, naming what is missing, to run untrusted versions without the sandbox."""
    if all(is_trusted(v) for v in versions):
        return
    problem = isolation_problem()
    if problem is not None:
        raise IsolationUnavailableError(f"this worker cannot isolate untrusted bots: {problem}")


def _bot_gid() -> int | None:
    """The bot user's group, when this process may hand files to it (root, as the sandbox)."""
    if os.geteuid() != 0:
        return None  # no sandbox without root: only trusted bots run, as this user
    try:
        return pwd.getpwnam(sandbox_config().user).pw_gid
    except KeyError:
        return None


def _private(path: Path, gid: int | None, *, directory: bool) -> None:
    # The worker and the bot user's group only: other host users read nothing,
    # and a sandboxed bot sees no folder but its own (bound at /bot).
    if gid is not None:
        os.chown(path, -1, gid)
    os.chmod(path, (0o750 if directory else 0o640) if gid is not None else 0o700)


def _write_files(version: BotVersion, content: bytes | None, root: Path, gid: int | None) -> None:
    if content is None:
        with default_storage.open(str(version.code.name), "rb") as handle:
            content = handle.read()
    if version.code_format == CodeFormat.FILE:
        files = {RUNTIMES[version.runtime].main: content}
    else:
        with zipfile.ZipFile(io.BytesIO(content)) as archive:
            files = {
                member_name(info).replace("\\", "/").removeprefix("./"): archive.read(info)
                for info in archive.infolist()
                if not info.is_dir()
            }
    for name, data in files.items():
        target = (root / name).resolve()
        # Uploads were checked for absolute paths and '..'; check again before writing.
        if not target.is_relative_to(root):
            raise InfrastructureError(f"{version}: archive member {name!r} escapes the bot folder")
        for folder in reversed(target.relative_to(root).parents[:-1]):
            if not (root / folder).exists():
                (root / folder).mkdir()
                _private(root / folder, gid, directory=True)
        target.write_bytes(data)
        _private(target, gid, directory=False)


@dataclass(frozen=True)
class BotFiles:
    """A version on disk for one run: its files (``/bot``) and built program (``/build``)."""

    bot_dir: Path
    program_dir: Path | None


def _read_program(version: BotVersion) -> bytes | None:
    """The version's built program from the storage; None for runtimes that build none."""
    if not RUNTIMES[version.runtime].builds_program:
        return None
    if not version.build:
        raise InfrastructureError(f"{version} has no built program: validate it first")
    with default_storage.open(version.build, "rb") as handle:
        program: bytes = handle.read()
        return program


@contextmanager
def materialised(
    version: BotVersion, *, content: bytes | None = None, program: bytes | None = None
) -> Iterator[BotFiles]:
    """The version's files (``content``, else read from the storage) and its built
    program (``program``, else its stored build) in fresh private folders,
    removed when the block ends. Before its first build, pass ``program=b""``:
    no program (then :func:`with_program` adds the one just built)."""
    gid = _bot_gid()
    try:
        # In this process's folder, which the sweep removes if this process is killed.
        root = scratch.run_folder("b", gid)
    except OSError as error:
        raise InfrastructureError(f"cannot write the code of {version}: {error}") from error
    try:
        try:
            _private(root, gid, directory=True)
            _write_files(version, content, root, gid)
            if program is None:
                program = _read_program(version)
        except (OSError, zipfile.BadZipFile) as error:
            raise InfrastructureError(f"cannot write the code of {version}: {error}") from error
        with with_program(version, BotFiles(root, None), program or b"") as files:
            yield files
    finally:
        shutil.rmtree(root, ignore_errors=True)


@contextmanager
def with_program(version: BotVersion, files: BotFiles, program: bytes) -> Iterator[BotFiles]:
    """``files`` with ``program`` (a built program's zip; empty: none) unpacked into a
    fresh private folder of its own, removed when the block ends."""
    if not program:
        yield files
        return
    gid = _bot_gid()
    try:
        program_dir = scratch.run_folder("p", gid)
    except OSError as error:
        raise InfrastructureError(f"cannot unpack the program of {version}: {error}") from error
    try:
        try:
            _private(program_dir, gid, directory=True)
            unpack_program(program, program_dir, file_mode=0o640 if gid is not None else 0o600)
            for path in program_dir.rglob("*"):
                if path.is_dir():
                    _private(path, gid, directory=True)
                elif gid is not None:  # keep the mode unpack gave (executables)
                    os.chown(path, -1, gid)
        except (OSError, ProgramError) as error:
            raise InfrastructureError(f"cannot unpack the program of {version}: {error}") from error
        yield BotFiles(files.bot_dir, program_dir)
    finally:
        shutil.rmtree(program_dir, ignore_errors=True)


def bot_spec(version: BotVersion, files: BotFiles) -> BotSpec:
    return BotSpec(
        name=f"{version.bot.name} v{version.number}",
        bot_dir=files.bot_dir,
        main=RUNTIMES[version.runtime].main,
        trusted=is_trusted(version),
        runtime=version.runtime,
        program_dir=files.program_dir,
    )


class RecordingLauncher:
    """The SDK's launcher, remembering launch errors: those are ours, not the bot's.

    The referee turns a launch error into the seat's ``launch_failed`` fault;
    the platform must instead retry the run and never blame the bot.
    """

    def __init__(self) -> None:
        self.errors: list[str] = []

    def __call__(self, spec: BotSpec, limits: Limits) -> RunningSeat:
        try:
            return launch_bot(spec, limits)
        except (sandbox.SandboxError, OSError, ValueError) as error:
            self.errors.append(f"cannot start {spec.name}: {error}")
            raise

    def check(self) -> None:
        if self.errors:
            raise LaunchError("; ".join(self.errors))
