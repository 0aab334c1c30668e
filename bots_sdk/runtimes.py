"""The languages a bot may be written in: each runtime is data, found by id.

A :class:`Runtime` names its source suffixes (the first is its main file's:
``main.c``, ``main.java``, ...), the Debian packages that provide it, the
command that builds a bot inside the sandbox (the sources seen at ``/bot``,
read-only; the program written to ``/build``) and the command that runs it,
and the host paths each of the two steps sees. Adding a language is adding
one entry to :data:`RUNTIMES` (and its packages to
``scripts/install_system.sh``); :mod:`bots_sdk.build` and the launcher do
the rest.

Python and JavaScript have no program to build: their build step checks the
sources (Python compiles every file, ``node --check`` the main one), so a
syntax error is reported before any game, and they run from ``/bot``.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from .sandbox import BOT_MOUNT, DEBIAN_PYTHON3, BotRuntime

#: Where the built program appears inside the sandbox (written by the build, read-only to run).
BUILD_MOUNT = "/build"


class Stage(enum.Enum):
    """The two steps of a bot's life in the sandbox."""

    BUILD = "build"
    """Compiling (or checking) the sources: sees the toolchain, writes ``/build``."""
    RUN = "run"
    """Playing: sees what the program needs to run, ``/bot`` and ``/build`` read-only."""


class UnknownRuntimeError(ValueError):
    """A runtime id, or a source suffix, that no runtime has; the message lists them."""


class ToolchainMissingError(RuntimeError):
    """A runtime's compiler or interpreter is not installed on this host."""


#: Compiles every ``.py`` file under the working directory (``/bot``); prints one
#: line per error, the file and line first, and exits with 1 when there was any.
PYTHON_CHECK = """
import os, sys
errors = 0
for root, dirs, files in os.walk("."):
    dirs.sort()
    for name in sorted(files):
        if not name.endswith(".py"):
            continue
        path = os.path.normpath(os.path.join(root, name))
        try:
            with open(path, "rb") as handle:
                compile(handle.read(), path, "exec", dont_inherit=True)
        except SyntaxError as error:
            print(f"{path}, line {error.lineno}: {error.msg}")
            errors += 1
        except (ValueError, RecursionError, MemoryError, OverflowError) as error:
            detail = f": {error}" if str(error) else " (the compiler gave up on this file)"
            print(f"{path}: {type(error).__name__}{detail}")
            errors += 1
sys.exit(1 if errors else 0)
"""

# `python -I` leaves the script's folder off sys.path, so main.py could not import
# the other modules of its bot; put /bot first, as `python main.py` does.
PYTHON_RUN_MAIN = (
    "import runpy, sys; sys.argv.pop(0); sys.path.insert(0, sys.argv[0].rpartition('/')[0]); "
    "runpy.run_path(sys.argv[0], run_name='__main__')"
)

_JAVA_HOME = "/usr/lib/jvm/java-17-openjdk-amd64"
# The JVM sizes its heap from MaxRAM: without it, it would read the host's memory.
_JVM_FLAGS = ("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto")
_GCC_TOOLCHAIN = ("/usr/bin", "/usr/lib/gcc", "/usr/include")


@dataclass(frozen=True, slots=True)
class Runtime:
    """One language: how its bots are built and run in the sandbox.

    In ``build_command`` and ``run_command``, ``{main}`` is the main file as
    the sandbox sees it (``/bot/main.c``), ``{sources}`` (a word of its own)
    every source file of the bot, and ``{memory_bytes}`` / ``{memory_mb}`` the
    bot's memory limit. ``build_paths`` and ``run_paths`` are host paths bound
    read-only (at the same place) for each step, besides the system libraries
    every step sees; ``optional_paths`` are bound where they exist.
    """

    id: str
    title: str
    suffixes: tuple[str, ...]
    packages: tuple[str, ...]
    #: Files that must exist on the host; the first names the toolchain in errors.
    toolchain: tuple[str, ...]
    build_command: tuple[str, ...]
    run_command: tuple[str, ...]
    build_paths: tuple[str, ...] = ()
    run_paths: tuple[str, ...] = ()
    optional_paths: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    build_env: tuple[tuple[str, str], ...] = ()
    #: Whether the build writes a program to ``/build`` (false: it only checks).
    builds_program: bool = True
    #: Processes and threads the runtime needs at least (a JVM starts 14 threads).
    min_pids: int = 0

    @property
    def main(self) -> str:
        """The main file's name: ``main`` and the first suffix."""
        return "main" + self.suffixes[0]

    def missing_toolchain(self) -> str | None:
        """What is missing to build and run this runtime's bots here, or None."""
        absent = [path for path in self.toolchain if not os.path.exists(path)]
        if not absent:
            return None
        return (
            f"the {self.title} toolchain is not installed on this machine ({absent[0]} is "
            f"missing): as root, run scripts/install_system.sh (Debian packages: "
            f"{', '.join(self.packages)})"
        )

    def sources(self, bot_dir: Path) -> list[str]:
        """The bot's source files, relative to its folder, sorted."""
        found = [
            path.relative_to(bot_dir).as_posix()
            for path in bot_dir.rglob("*")
            if path.is_file() and path.suffix in self.suffixes
        ]
        return sorted(found)

    def command(
        self,
        stage: Stage,
        *,
        sources: list[str] | None = None,
        memory_bytes: int = 0,
        main: str | None = None,
    ) -> list[str]:
        """The command line of ``stage``, with its fields filled in; ``main`` names
        another main file (relative to the bot's folder) than :attr:`main`."""
        words = self.build_command if stage is Stage.BUILD else self.run_command
        main = main or self.main
        if main.startswith("/") or ".." in Path(main).parts:
            raise ValueError(f"the main file must be relative to the bot's folder: {main!r}")
        fields = {
            "main": f"{BOT_MOUNT}/{main}",
            "memory_bytes": str(memory_bytes),
            "memory_mb": str(memory_bytes // 2**20),
        }
        out: list[str] = []
        for word in words:
            if word == "{sources}":
                out += [f"{BOT_MOUNT}/{name}" for name in sources or []]
            else:
                out.append(_fill(word, fields))
        return out

    def environment(self, stage: Stage, *, memory_bytes: int) -> dict[str, str]:
        """The runtime's own variables for ``stage`` (added to the sandbox's)."""
        env = dict(self.env)
        if stage is Stage.BUILD:
            env.update(self.build_env)
        fields = {"memory_bytes": str(memory_bytes)}
        return {key: _fill(value, fields) for key, value in env.items()}

    def sandbox_view(self, stage: Stage, base: BotRuntime = DEBIAN_PYTHON3) -> BotRuntime:
        """What the sandbox shows for ``stage``: the system libraries and Python
        (the SDK's helper programs are Python) plus this runtime's paths."""
        paths = (*base.ro_paths, *(self.build_paths if stage is Stage.BUILD else self.run_paths))
        # A folder bound whole (/usr/bin for gcc) already shows its files and links.
        kept = [p for p in dict.fromkeys(paths) if not any(_inside(p, other) for other in paths)]
        return replace(
            base,
            ro_paths=tuple(kept),
            optional_paths=tuple(dict.fromkeys((*base.optional_paths, *self.optional_paths))),
            symlinks=tuple(
                (target, link)
                for target, link in base.symlinks
                if not any(_inside(link, path) for path in kept)
            ),
        )


def _words(command: str) -> tuple[str, ...]:
    return tuple(command.split())


def _inside(path: str, folder: str) -> bool:
    return path != folder and path.startswith(folder.rstrip("/") + "/")


def _fill(word: str, fields: Mapping[str, str]) -> str:
    """``word`` with each ``{field}`` replaced (not str.format: a word may be a
    program with braces of its own)."""
    for name, value in fields.items():
        word = word.replace("{" + name + "}", value)
    return word


RUNTIMES: Mapping[str, Runtime] = {
    runtime.id: runtime
    for runtime in (
        Runtime(
            id="python",
            title="Python 3.11",
            suffixes=(".py",),
            packages=("python3", "python3-numpy"),
            toolchain=("/usr/bin/python3",),
            build_command=("/usr/bin/python3", "-I", "-c", PYTHON_CHECK),
            run_command=("/usr/bin/python3", "-I", "-c", PYTHON_RUN_MAIN, "{main}"),
            builds_program=False,
        ),
        Runtime(
            id="js",
            title="JavaScript (Node.js)",
            suffixes=(".js",),
            packages=("nodejs",),
            toolchain=("/usr/bin/node",),
            build_command=("/usr/bin/node", "--check", "{main}"),
            # V8 sizes its heap from the host's memory: hold it to the bot's.
            run_command=("/usr/bin/node", "--max-old-space-size={memory_mb}", "{main}"),
            build_paths=("/usr/bin/node",),
            run_paths=("/usr/bin/node",),
            optional_paths=("/usr/share/nodejs", "/usr/lib/node_modules"),
            builds_program=False,
        ),
        Runtime(
            id="c",
            title="C (gcc 12, C17)",
            suffixes=(".c",),
            packages=("gcc", "libc6-dev"),
            toolchain=("/usr/bin/gcc", "/usr/include/stdio.h"),
            build_command=_words("/usr/bin/gcc -std=c17 -O2 -o /build/bot {sources} -lm"),
            run_command=(f"{BUILD_MOUNT}/bot",),
            build_paths=_GCC_TOOLCHAIN,
        ),
        Runtime(
            id="cpp",
            title="C++ (g++ 12, C++20)",
            suffixes=(".cpp", ".cc", ".cxx"),
            packages=("g++",),
            toolchain=("/usr/bin/g++",),
            build_command=_words("/usr/bin/g++ -std=c++20 -O2 -o /build/bot {sources}"),
            run_command=(f"{BUILD_MOUNT}/bot",),
            build_paths=_GCC_TOOLCHAIN,
        ),
        Runtime(
            id="java",
            title="Java (OpenJDK 17)",
            suffixes=(".java",),
            packages=("openjdk-17-jdk-headless",),
            toolchain=(f"{_JAVA_HOME}/bin/javac", f"{_JAVA_HOME}/bin/java"),
            build_command=(
                f"{_JAVA_HOME}/bin/javac",
                *(f"-J{flag}" for flag in _JVM_FLAGS),
                "-J-XX:MaxRAM={memory_bytes}",
                # No annotation processing: javac would otherwise run processors found on
                # its class path, which is the upload (META-INF/services), in the compiler.
                "-proc:none",
                "-encoding",
                "UTF-8",
                "-d",
                BUILD_MOUNT,
                "{sources}",
            ),
            run_command=(
                f"{_JAVA_HOME}/bin/java",
                *_JVM_FLAGS,
                "-XX:MaxRAM={memory_bytes}",
                "-XX:MaxRAMPercentage=50",
                "-cp",
                f"{BUILD_MOUNT}:{BOT_MOUNT}",
                "Main",
            ),
            build_paths=("/usr/lib/jvm",),
            run_paths=("/usr/lib/jvm",),
            # The JDK's conf/ and security files are links into /etc.
            optional_paths=("/etc/java-17-openjdk",),
            min_pids=48,
        ),
        Runtime(
            id="rust",
            title="Rust (rustc, edition 2021)",
            suffixes=(".rs",),
            packages=("rustc",),
            toolchain=("/usr/bin/rustc", "/usr/bin/cc"),
            # Only main.rs: rustc finds the other files through its `mod` lines.
            build_command=_words(
                "/usr/bin/rustc --edition 2021 -C opt-level=2 -C strip=symbols -o /build/bot {main}"
            ),
            run_command=(f"{BUILD_MOUNT}/bot",),
            # rustc links with the C toolchain (cc, ld).
            build_paths=(*_GCC_TOOLCHAIN, "/usr/lib/rustlib"),
        ),
        Runtime(
            id="go",
            title="Go 1.19",
            suffixes=(".go",),
            packages=("golang-go",),
            toolchain=("/usr/bin/go", "/usr/lib/go-1.19/bin/go"),
            build_command=_words("/usr/bin/go build -p 1 -o /build/bot {sources}"),
            run_command=(f"{BUILD_MOUNT}/bot",),
            build_paths=("/usr/bin/go", "/usr/lib/go-1.19", "/usr/share/go-1.19"),
            # One core: more would only add threads; the limit keeps the GC ahead of the cgroup.
            env=(("GOMAXPROCS", "1"), ("GOMEMLIMIT", "{memory_bytes}")),
            build_env=(
                ("CGO_ENABLED", "0"),
                ("GOCACHE", "/tmp/go-cache"),
                ("GOPATH", "/tmp/go"),
                ("GO111MODULE", "off"),
            ),
        ),
    )
}


def runtime(runtime_id: str) -> Runtime:
    """The runtime named ``runtime_id``; :class:`UnknownRuntimeError` lists the others."""
    try:
        return RUNTIMES[runtime_id]
    except KeyError:
        raise UnknownRuntimeError(
            f"unknown runtime {runtime_id!r}: choose one of {', '.join(RUNTIMES)}"
        ) from None


def runtime_for_file(name: str) -> Runtime:
    """The runtime of a single source file, by its suffix."""
    suffix = Path(name).suffix
    for candidate in RUNTIMES.values():
        if suffix in candidate.suffixes:
            return candidate
    known = ", ".join(f"{r.main} ({r.id})" for r in RUNTIMES.values())
    raise UnknownRuntimeError(
        f"{name}: no runtime takes {suffix or 'files without a suffix'}; a bot is one of "
        f"{known}, or a folder or zip with one of them at its top"
    )


def runtime_for_folder(names: list[str]) -> Runtime:
    """The runtime of a bot folder (or zip), by the ``main.<ext>`` at its top."""
    mains = [r for r in RUNTIMES.values() if r.main in names]
    if len(mains) == 1:
        return mains[0]
    known = ", ".join(r.main for r in RUNTIMES.values())
    if not mains:
        raise UnknownRuntimeError(f"no main file at the top of the bot: put one of {known} there")
    both = " and ".join(r.main for r in mains)
    raise UnknownRuntimeError(
        f"the bot has {both} at its top: keep one main file, or name the runtime"
    )
