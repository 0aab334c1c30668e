"""What a bot sees of the host: the runtime (an interpreter and its libraries)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

#: Where the bot's own directory appears (read-only) inside the sandbox.
BOT_MOUNT = "/bot"


@dataclass(frozen=True, slots=True)
class BotRuntime:
    """Host paths bound read-only into every sandbox, plus the bot environment.

    ``ro_paths`` are bound at the same path (missing optional ones are listed
    in ``optional_paths`` and skipped), ``binds`` are ``(host, sandbox)``
    pairs, ``symlinks`` are ``(target, link)`` pairs created in the sandbox.
    ``env`` is the whole environment of the bot (plus what ``launch`` adds).
    ``tmpfs`` are ``(path, size in bytes)`` writable mounts of their own (a
    build's output), like ``/tmp`` charged to the bot's memory.
    """

    python: str
    ro_paths: tuple[str, ...]
    optional_paths: tuple[str, ...] = ()
    binds: tuple[tuple[str, str], ...] = ()
    symlinks: tuple[tuple[str, str], ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    tmpfs: tuple[tuple[str, int], ...] = ()
    site_dir: str = "/usr/local/lib/python3.11/dist-packages"
    #: modules that must import in the runtime (checked by self_test)
    required_modules: tuple[str, ...] = field(default=("numpy",))

    def environment(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        env = dict(self.env)
        if extra:
            env.update(extra)
        return env

    def with_python_package(self, source: Path | str, name: str | None = None) -> BotRuntime:
        """Bind a package directory (e.g. the SDK source) read-only where the
        runtime's ``site`` finds it, so ``python -I`` bots can import it."""
        source = Path(source).resolve()
        dest = f"{self.site_dir}/{name or source.name}"
        return replace(self, binds=(*self.binds, (str(source), dest)))

    def python_command(self, main_py: str = "main.py", *args: str) -> list[str]:
        """The command that runs ``main_py`` of the bot directory isolated."""
        if main_py.startswith("/") or ".." in Path(main_py).parts:
            raise ValueError(f"main_py must be relative to the bot directory: {main_py!r}")
        return [self.python, "-I", f"{BOT_MOUNT}/{main_py}", *args]


#: Debian 12's /usr/bin/python3 (3.11) with python3-numpy from apt.
DEBIAN_PYTHON3 = BotRuntime(
    python="/usr/bin/python3",
    ro_paths=(
        "/usr/bin/python3.11",
        "/usr/lib/python3.11",
        "/usr/lib/python3/dist-packages",
        "/usr/lib/x86_64-linux-gnu",
        "/usr/lib64",
        "/etc/alternatives",  # libblas.so.3 / liblapack.so.3 for numpy
    ),
    optional_paths=("/etc/ld.so.cache",),
    symlinks=(
        ("python3.11", "/usr/bin/python3"),
        ("usr/bin", "/bin"),
        ("usr/lib", "/lib"),
        ("usr/lib64", "/lib64"),
    ),
    env=(
        ("PATH", "/usr/bin:/bin"),
        ("HOME", "/tmp"),
        ("LANG", "C.UTF-8"),
        # the bot has one core at most: BLAS thread pools only cost pids
        ("OPENBLAS_NUM_THREADS", "1"),
        ("OMP_NUM_THREADS", "1"),
    ),
)


def runtime_python_command(
    main_py: str = "main.py", *args: str, runtime: BotRuntime = DEBIAN_PYTHON3
) -> list[str]:
    """``['/usr/bin/python3', '-I', '/bot/main.py', *args]`` for ``launch``."""
    return runtime.python_command(main_py, *args)
