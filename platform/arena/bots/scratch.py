"""Where a run writes bot code on a worker's disk, and the sweep of what dead workers left.

A run (a match, a validation) writes a version's files into fresh folders and
removes them when it ends; a process killed meanwhile (SIGKILL, the OOM
killer) cannot. So every such folder is made inside its process's own folder
under ``$TMPDIR/arena-code-<uid>``, whose ``owner`` file names the process
(``arena.runners``: host, pid namespace, pid, start time).
:func:`sweep` removes the folders of processes that no longer run: a worker
calls it when it starts, when each pool process starts, and periodically
(``arena.celery``); a pool process that exits cleanly removes its own. A
live process's folder is never removed, whichever worker of the host sweeps;
a folder whose owner is of another host or pid namespace (a temp folder
shared across containers) is left alone.

The names are random: a bound folder's host path shows in the bot's
``/proc/self/mountinfo`` (docs/sandbox.md), and tells it nothing.
"""

from __future__ import annotations

import logging
import os
import shutil
import stat
import tempfile
import time
from pathlib import Path

from arena.runners import current_runner, runner_is_dead

log = logging.getLogger(__name__)

OWNER_FILE = "owner"
#: A process folder with no owner file is one whose process died making it (the
#: owner is written right after): removed once this old.
UNOWNED_GRACE_SECONDS = 600

# This process's folder, made on first use (a forked pool process makes its own).
_folder: Path | None = None
_folder_pid = 0


def scratch_root() -> Path:
    """The folder of every worker process's folder on this host, for this user."""
    return Path(tempfile.gettempdir()) / f"arena-code-{os.geteuid()}"


def _checked_root() -> Path:
    """The root, made if missing: refuse one another user made (or a link) in a shared /tmp."""
    root = scratch_root()
    try:
        root.mkdir(mode=0o711)
    except FileExistsError:
        pass
    else:
        root.chmod(0o711)  # the bot user traverses it to its folder; lists nothing
    info = root.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
        raise PermissionError(f"{root} is not a folder of this user ({os.geteuid()})")
    return root


def process_folder(gid: int | None) -> Path:
    """This process's folder under the root, with its owner file (made on first use).

    ``gid``: the bot user's group, which traverses it to the folders of its
    bots; None when only this user runs bots.
    """
    global _folder, _folder_pid
    if _folder is not None and _folder_pid == os.getpid() and _folder.is_dir():
        return _folder
    folder = Path(tempfile.mkdtemp(dir=_checked_root()))
    if gid is not None:
        os.chown(folder, -1, gid)
    folder.chmod(0o710 if gid is not None else 0o700)
    (folder / OWNER_FILE).write_text(current_runner())
    _folder, _folder_pid = folder, os.getpid()
    return folder


def release() -> None:
    """Remove this process's folder as it exits cleanly (what a kill leaves, the sweep removes)."""
    global _folder
    if _folder is not None and _folder_pid == os.getpid():
        shutil.rmtree(_folder, ignore_errors=True)
        _folder = None


def run_folder(prefix: str, gid: int | None) -> Path:
    """A fresh private folder for one run's files, in this process's folder."""
    return Path(tempfile.mkdtemp(prefix=prefix, dir=process_folder(gid))).resolve()


def _stale(folder: Path, now: float) -> bool:
    """Whether ``folder`` is a process folder whose process is gone."""
    try:
        owner = (folder / OWNER_FILE).read_text().strip()
    except FileNotFoundError:
        try:
            return folder.stat().st_mtime < now - UNOWNED_GRACE_SECONDS
        except FileNotFoundError:
            return False  # removed meanwhile by another sweep
    return runner_is_dead(owner)


def sweep() -> int:
    """Remove the folders of this host's dead processes; returns how many went."""
    root = scratch_root()
    try:
        entries = list(root.iterdir())
    except FileNotFoundError:
        return 0
    now = time.time()
    removed = 0
    for folder in entries:
        if folder == _folder and _folder_pid == os.getpid():
            continue  # this process's own
        if folder.is_symlink() or not folder.is_dir() or not _stale(folder, now):
            continue
        shutil.rmtree(folder, ignore_errors=True)
        removed += not folder.exists()
    if removed:
        log.warning("removed the bot code folders of %s dead worker processes", removed)
    return removed
