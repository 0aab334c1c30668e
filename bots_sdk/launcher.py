"""Which program a bot is, and how the referee starts it: bare or sandboxed.

A :class:`BotSpec` names a bot's command and files. A :data:`Launcher` turns
it into a running :class:`~bots_sdk.sandbox.BotProcess`; the referee needs
nothing else of it, so tests or a platform worker may pass their own.
:func:`launch_bot` is the default: house bots and ``trusted`` specs run as
plain processes, everything else in the sandbox.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from . import sandbox
from .protocol import Limits

#: The house bots: name -> file in ``bots_sdk/house/``.
HOUSE_BOTS: Mapping[str, str] = {
    "random": "random_bot.py",
    "greedy": "greedy_bot.py",
    "montecarlo": "montecarlo_bot.py",
    "gambler": "gambler_bot.py",
}

HOUSE_DIR = Path(__file__).resolve().parent / "house"
#: The directory holding the ``bots_sdk`` and ``vegas_engine`` packages.
PACKAGES_ROOT = Path(__file__).resolve().parent.parent


class BotNotFoundError(ValueError):
    """A bot argument that is no file, folder with ``main.py``, or house bot."""


@dataclass(frozen=True)
class BotSpec:
    """A bot program: ``command`` runs in ``bot_dir``, seen as ``/bot`` when sandboxed.

    ``main`` is the Python file to run, relative to ``bot_dir`` (None: the
    command is an executable of its own, any language).
    """

    name: str
    bot_dir: Path
    main: str | None = "main.py"
    executable: str | None = None
    trusted: bool = False
    env: Mapping[str, str] = field(default_factory=dict)

    def command(self) -> list[str]:
        """The command line, with the bot's files under ``/bot`` (see the sandbox)."""
        if self.main is None:
            assert self.executable is not None
            return [f"{sandbox.BOT_MOUNT}/{self.executable}"]
        if self.trusted:
            # The running interpreter, so a local run uses the same Python and packages.
            return [sys.executable, f"{sandbox.BOT_MOUNT}/{self.main}"]
        return sandbox_config().runtime.python_command(self.main)


def house_bot(name: str) -> BotSpec:
    """A house bot; trusted, since it is the platform's own code."""
    return BotSpec(name=name, bot_dir=HOUSE_DIR, main=HOUSE_BOTS[name], trusted=True)


def resolve_bot(argument: str, *, trusted: bool = False) -> BotSpec:
    """A bot from the command line: a house bot name, a ``.py`` file, a folder
    with ``main.py``, or an executable file in any language."""
    if argument in HOUSE_BOTS and not Path(argument).exists():
        return house_bot(argument)
    path = Path(argument).resolve()
    if path.is_dir():
        if not (path / "main.py").is_file():
            raise BotNotFoundError(f"{argument}: a bot folder needs a main.py")
        return BotSpec(name=path.name, bot_dir=path, main="main.py", trusted=trusted)
    if path.is_file():
        if path.suffix == ".py":
            # A folder's main.py is that folder's bot: name it after the folder.
            name = path.parent.name if path.name == "main.py" else path.stem
            return BotSpec(name=name, bot_dir=path.parent, main=path.name, trusted=trusted)
        if os.access(path, os.X_OK):
            return BotSpec(
                name=path.name,
                bot_dir=path.parent,
                main=None,
                executable=path.name,
                trusted=trusted,
            )
        raise BotNotFoundError(f"{argument}: not a .py file and not executable")
    raise BotNotFoundError(
        f"{argument}: no such file or folder, and not a house bot ({', '.join(HOUSE_BOTS)})"
    )


@functools.cache
def sandbox_config() -> sandbox.SandboxConfig:
    """The sandbox with the SDK and the engine importable by bots (read-only)."""
    runtime = sandbox.DEFAULT_CONFIG.runtime
    for package in ("bots_sdk", "vegas_engine"):
        runtime = runtime.with_python_package(PACKAGES_ROOT / package)
    return sandbox.SandboxConfig(runtime=runtime)


def sandbox_limits(limits: Limits) -> sandbox.SandboxLimits:
    return sandbox.SandboxLimits(memory_bytes=limits.memory_bytes, cpu_quota=limits.cpu_cores)


Launcher = Callable[[BotSpec, Limits], sandbox.BotProcess]


def launch_bot(spec: BotSpec, limits: Limits) -> sandbox.BotProcess:
    """Start ``spec``: bare if trusted (the SDK and engine found via PYTHONPATH),
    else in the sandbox. Raises :class:`~bots_sdk.sandbox.SandboxError` or
    :class:`OSError` when it cannot start."""
    if spec.trusted:
        env = {"PYTHONPATH": str(PACKAGES_ROOT), **spec.env}
        return sandbox.launch(
            spec.command(),
            bot_dir=spec.bot_dir,
            limits=sandbox_limits(limits),
            trusted=True,
            env=env,
        )
    return sandbox.launch(
        spec.command(),
        bot_dir=spec.bot_dir,
        limits=sandbox_limits(limits),
        env=dict(spec.env),
        config=sandbox_config(),
    )


def sandbox_problem() -> str | None:
    """Why the sandbox cannot run here, or None when it can."""
    try:
        sandbox.check_host(sandbox_config())
    except sandbox.SandboxUnavailableError as error:
        return str(error)
    return None
