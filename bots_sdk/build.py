"""Building a bot: its runtime's compiler (or checker) run inside the sandbox.

Compiling untrusted source is running untrusted input through the compiler:
a small file can take gigabytes or minutes (template explosions, huge
literals, ``#include "/dev/zero"``). So the build runs like a bot, in the
sandbox unless trusted, under limits of its own (:data:`BUILD_LIMITS`,
:data:`BUILD_SECONDS`), with no network. The sources are read-only at
``/bot``; the program goes to ``/build``, a small tmpfs, which a Python
helper inside the sandbox packs into a zip once the compiler succeeded. The
compiler's own output is the report of a build that fails.

A build reads only the bot's files: the compiler's stdin is ``/dev/null``, its
output goes to a file it may write but not open (an ``#include
"/proc/self/fd/1"`` fails at once with the compiler's "Permission denied"),
the sandbox's own stdin is closed, and a build whose processes use no CPU for
:data:`BUILD_IDLE_SECONDS` (one reading a terminal, a pipe or another
process's ``/proc/<pid>/fd``, which never answer) is stopped then, with a
report saying so, rather than at :data:`BUILD_SECONDS`. The platform and
the CLI (``play``, ``tournament``, ``validate``) build through this module.

A build is addressed by its content (:func:`build_key`: the runtime, its
build command and every file of the bot), so a program is built once and
kept: matches never recompile.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import stat
import tempfile
import threading
import time
import zipfile
from dataclasses import dataclass, replace
from pathlib import Path

from . import sandbox
from .runtimes import BUILD_MOUNT, Runtime, Stage, ToolchainMissingError

#: The build's own limits: generous for real bots, fatal to compile bombs.
BUILD_LIMITS = sandbox.SandboxLimits(
    memory_bytes=1 * sandbox.GiB,
    pids=128,  # go build and javac start threads and processes
    cpu_quota=1.0,
    file_size_bytes=64 * sandbox.MiB,
    open_files=256,
    tmp_bytes=256 * sandbox.MiB,  # the Go build cache, javac's scratch
    stderr_bytes=64 * sandbox.KiB,
)
BUILD_SECONDS = 60.0
#: A build using less than BUILD_IDLE_CPU seconds of CPU in this long waits for input
#: that never comes: a compiler never sleeps, and a blocked JVM ticks far below it.
BUILD_IDLE_SECONDS = 5.0
BUILD_IDLE_CPU = 0.05
#: The compiler's output kept for the report (its first errors matter most).
OUTPUT_BYTES = 64 * sandbox.KiB
#: The most a built program may take (the size of the /build tmpfs).
PROGRAM_BYTES = 64 * sandbox.MiB
#: Files in a built program, at most.
PROGRAM_FILES = 10_000

# Runs inside the sandbox: the compiler with its output caught, then /build as a
# zip on stdout after one JSON line. Never follows links: only regular files go.
_DRIVER = """
import json, os, stat, subprocess, sys, tempfile, zipfile
spec = json.loads(sys.argv[1])
limit = spec["output_limit"]
# Write-only to its owner: the compiler writes it as its stdout and stderr, but
# opening it again (/proc/self/fd/1, /dev/stdout) is refused, where a pipe would
# have the compiler wait on itself. This fd, opened before, still reads it.
log, path = tempfile.mkstemp(prefix="vegas-build-output-")
os.fchmod(log, 0o200)
os.unlink(path)
try:
    compiler = subprocess.Popen(
        spec["command"], stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=None,
    )
except OSError as error:
    status, kept = 127, f"cannot start {spec['command'][0]}: {error}".encode()
    total = len(kept)
else:
    status = compiler.wait()
    total, kept = os.fstat(log).st_size, os.pread(log, limit, 0)
out = sys.stdout.buffer
header = {"status": status, "output": kept.decode("utf-8", "replace"), "truncated": total > limit}
out.write(json.dumps(header).encode() + b"\\n")
if status == 0 and spec["pack"]:
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        for root, dirs, files in os.walk(spec["build"]):
            dirs.sort()
            for name in sorted(files):
                path = os.path.join(root, name)
                if stat.S_ISREG(os.lstat(path).st_mode):
                    archive.write(path, os.path.relpath(path, spec["build"]))
out.flush()
"""


class ProgramError(ValueError):
    """A built program's archive that cannot be unpacked safely."""


@dataclass(frozen=True)
class BuildResult:
    """How a build went: ``ok``, the compiler's ``output`` (or why it was stopped),
    and the built ``program`` (a zip of ``/build``; empty when the runtime
    builds none)."""

    runtime: Runtime
    ok: bool
    output: str
    program: bytes = b""
    seconds: float = 0.0

    def describe(self) -> str:
        """One paragraph for a person: what failed and the compiler's words."""
        if self.ok:
            return f"{self.runtime.title}: built in {self.seconds:.1f} s"
        return self.output


def build_key(bot_dir: Path, runtime: Runtime) -> str:
    """The content address of a build: the runtime, its command, every file of the bot."""
    digest = hashlib.sha256()
    digest.update(json.dumps([runtime.id, runtime.build_command]).encode())
    for path in sorted(p for p in bot_dir.rglob("*") if p.is_file()):
        digest.update(path.relative_to(bot_dir).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def build_config(runtime: Runtime) -> sandbox.SandboxConfig:
    """The sandbox of a build: the runtime's toolchain and a writable ``/build``."""
    view = runtime.sandbox_view(Stage.BUILD)
    return sandbox.SandboxConfig(runtime=replace(view, tmpfs=((BUILD_MOUNT, PROGRAM_BYTES),)))


def build(
    bot_dir: Path,
    runtime: Runtime,
    *,
    trusted: bool,
    limits: sandbox.SandboxLimits = BUILD_LIMITS,
    seconds: float = BUILD_SECONDS,
) -> BuildResult:
    """Build (or check) the bot in ``bot_dir`` with ``runtime``.

    Sandboxed unless ``trusted``. A failure of the bot's (a compile error, a
    bomb stopped by the limits, no main file) is a result with ``ok`` false;
    raises :class:`ToolchainMissingError` when this host lacks the toolchain
    and ``sandbox.SandboxError`` when the build could not be run at all
    (ours, not the bot's).
    """
    missing = runtime.missing_toolchain()
    if missing is not None:
        raise ToolchainMissingError(missing)
    if not (bot_dir / runtime.main).is_file():
        return BuildResult(
            runtime,
            ok=False,
            output=f"no {runtime.main} at the top of the bot: a {runtime.title} bot starts "
            f"there (rename your main file, or upload a zip with {runtime.main} at its top)",
        )
    limits = replace(limits, pids=max(limits.pids, runtime.min_pids))
    command = runtime.command(
        Stage.BUILD, sources=runtime.sources(bot_dir), memory_bytes=limits.memory_bytes
    )
    env = runtime.environment(Stage.BUILD, memory_bytes=limits.memory_bytes)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="vegas-build-") as scratch:
        out_dir = BUILD_MOUNT
        if trusted:  # no sandbox to show the paths: the host's own
            mounts = {sandbox.BOT_MOUNT: str(bot_dir.resolve()), BUILD_MOUNT: scratch}
            command = sandbox.rewrite_for_host(command, mounts)
            out_dir = scratch
        spec = {
            "command": command,
            "build": out_dir,
            "pack": runtime.builds_program,
            "output_limit": OUTPUT_BYTES,
        }
        config = build_config(runtime)
        driver = [config.runtime.python, "-I", "-c", _DRIVER, json.dumps(spec)]
        process = sandbox.launch(
            driver, bot_dir=bot_dir, limits=limits, trusted=trusted, env=env, config=config
        )
        # Nothing is sent: an end of file for whatever reads the sandbox's stdin (/proc/1/fd/0).
        process.stdin.close()
        chunks: list[bytes] = []

        def read() -> None:  # a thread, so a build that floods stdout cannot block us
            size, cap = 0, PROGRAM_BYTES + 2 * OUTPUT_BYTES + 65536
            while size < cap and (chunk := process.stdout.read1(65536)):
                chunks.append(chunk)
                size += len(chunk)

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        finished, idle = _wait_working(process, seconds)
        outcome = process.close()
        reader.join(5.0)
    took = time.monotonic() - started
    tool = Path(command[0]).name
    if idle:
        return _failed(
            runtime,
            f"the build was stopped after {BUILD_IDLE_SECONDS:g} s without working: {tool} "
            "waited for input that never comes (a build reads only the bot's own files, "
            "never a device, a pipe or /proc: see what the code includes or embeds)",
            took,
        )
    if not finished:
        return _failed(
            runtime,
            f"the build took more than {seconds:g} s and was stopped: simplify what makes "
            f"{tool} work so hard (huge literals, deep templates or nesting, generated code)",
            took,
        )
    if outcome.oom_killed:
        return _failed(
            runtime,
            f"the build ran out of memory (limit {limits.memory_bytes // sandbox.MiB} MiB) and "
            f"was stopped: simplify what makes {tool} work so hard",
            took,
        )
    header, _, program = b"".join(chunks).partition(b"\n")
    try:
        found = json.loads(header)
        status, output = int(found["status"]), str(found["output"])
        truncated = bool(found["truncated"])
    except (ValueError, KeyError, TypeError):
        tail = outcome.stderr_tail.decode(errors="replace").strip()
        if outcome.exit_code not in (0, None) or outcome.signal is not None:
            # The helper itself was stopped (its file-size or process limits, a signal).
            return _failed(runtime, f"the build was stopped: {tail or outcome}", took)
        raise sandbox.SandboxError(f"the build helper answered nonsense: {tail}") from None
    if truncated:
        output += f"\n[... {tool}'s output cut at {OUTPUT_BYTES // 1024} KiB]"
    if status != 0:
        if not runtime.builds_program and status == 1 and output.strip():
            return _failed(runtime, output.rstrip(), took)  # a checker's own list of errors
        how = f"was killed by signal {-status}" if status < 0 else f"exited with status {status}"
        if runtime.id == "java" and "class Main is public, should be declared in a file" in output:
            # javac's advice (rename main.java) cannot be followed: main.java is the main file.
            output = output.rstrip() + (
                "\nA bot's main file is main.java: write `class Main`, not `public class Main`."
            )
        return _failed(runtime, f"the build failed: {tool} {how}:\n{output.rstrip()}", took)
    if runtime.builds_program and not program:
        return _failed(runtime, f"the build wrote no program ({tool} said: {output})", took)
    return BuildResult(runtime, ok=True, output=output, program=program, seconds=took)


def _busy_seconds(process: sandbox.BotProcess) -> float | None:
    """CPU the build used plus time it waited for one: what it would have used on an
    idle host (a loaded host must not make a working build look idle). Sandboxed only."""
    if process.trusted:
        return None
    times = process.cpu_times()
    if times.cpu_seconds is None:
        return None
    return times.cpu_seconds + (times.wait_seconds or 0.0)


def _wait_working(process: sandbox.BotProcess, seconds: float) -> tuple[bool, bool]:
    """Wait up to ``seconds`` for the build to end: (ended, idle). Idle: it used, or
    waited for, less than BUILD_IDLE_CPU of CPU in BUILD_IDLE_SECONDS (sandboxed only:
    its cgroup tells)."""
    since = time.monotonic()
    deadline, used = since + seconds, _busy_seconds(process)
    while (left := deadline - time.monotonic()) > 0:
        if process.wait(min(left, 0.5)) is not None:
            return True, False
        cpu, now = _busy_seconds(process), time.monotonic()
        if cpu is None or used is None or cpu - used >= BUILD_IDLE_CPU:
            since, used = now, cpu
        elif now - since >= BUILD_IDLE_SECONDS:
            return False, True
    return process.poll() is not None, False


def _failed(runtime: Runtime, output: str, seconds: float) -> BuildResult:
    return BuildResult(runtime, ok=False, output=output, seconds=seconds)


def unpack_program(program: bytes, dest: Path, *, file_mode: int = 0o644) -> None:
    """Write a built program's files into ``dest`` (which exists); executables get
    the execute bits of ``file_mode`` too. Refuses names that leave ``dest`` and
    archives past :data:`PROGRAM_BYTES` or :data:`PROGRAM_FILES`."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(program))
    except zipfile.BadZipFile as error:
        raise ProgramError(f"a built program that is no zip: {error}") from None
    with archive:
        members = [info for info in archive.infolist() if not info.is_dir()]
        if len(members) > PROGRAM_FILES:
            raise ProgramError(f"a built program of {len(members)} files")
        if sum(info.file_size for info in members) > PROGRAM_BYTES:
            raise ProgramError("a built program larger than its limit")
        root = dest.resolve()
        for info in members:
            target = (root / info.filename).resolve()
            if not target.is_relative_to(root) or target == root:
                raise ProgramError(f"a built program's file {info.filename!r} leaves its folder")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(archive.read(info))
            executable = (info.external_attr >> 16) & stat.S_IXUSR
            mode = file_mode | ((file_mode & 0o444) >> 2 if executable else 0)
            os.chmod(target, mode)
