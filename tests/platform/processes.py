"""Platform processes of their own for the tests: an operator's commands (the empty
databases to point them at: the conftest's ``empty_database``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from .conftest import REPO_DIR
from .stored import BACKENDS


def platform_env(database_url: str, storage: str, media: Path) -> dict[str, str]:
    """The environment of a platform process on that database and storage (a key of
    ``stored.BACKENDS``), with its files under ``media``'s folder."""
    return {
        **os.environ,
        "PYTHONPATH": f"{REPO_DIR}:{REPO_DIR / 'platform'}",
        "DJANGO_SETTINGS_MODULE": "arena.settings",
        "DATABASE_URL": database_url,
        "STORAGE_BACKEND": BACKENDS[storage],
        "MEDIA_ROOT": str(media),
        "ARENA_DATA_DIR": str(media.parent / "data"),
        "SECRET_KEY": "tests-only-secret-key",
        "CELERY_BROKER_URL": "memory://",
        "CELERY_RESULT_BACKEND": "cache+memory://",
        # Queued, not played here: load_house_bots' pre-flights are a worker's work.
        "CELERY_TASK_ALWAYS_EAGER": "0",
        "DEBUG": "0",
    }


def manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """``manage.py`` ``args`` in a process of its own."""
    return subprocess.run(
        [sys.executable, str(REPO_DIR / "manage.py"), *args],
        env=env,
        cwd=REPO_DIR,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def run_json(env: dict[str, str], module: str, *args: str) -> Any:
    """``python -m module args`` in a process of its own; what it printed, as JSON."""
    done = subprocess.run(
        [sys.executable, "-m", module, *args],
        env=env,
        cwd=REPO_DIR,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout) if done.stdout else None
