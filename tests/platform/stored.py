"""The platform's files as any storage backend holds them, for assertions."""

from __future__ import annotations

from typing import Any

from django.core.files.storage import default_storage

from arena.blobs.storage_check import CHECK_FOLDER

BACKENDS = {
    "database": "arena.blobs.storage.DatabaseStorage",
    "filesystem": "django.core.files.storage.FileSystemStorage",
}


def use_storage(settings: Any, backend: str) -> None:
    """Make ``backend`` (a key of BACKENDS) the default storage for this test."""
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {"BACKEND": BACKENDS[backend], "OPTIONS": {}},
    }


def stored_files(path: str = "") -> list[str]:
    """Every file name in the default storage under ``path``, sorted, the storage
    check's probe and marker objects aside (a worker writes them when it starts)."""
    if path == CHECK_FOLDER:
        return []
    try:
        folders, files = default_storage.listdir(path)
    except FileNotFoundError:  # FileSystemStorage before its folder exists
        return []
    prefix = f"{path}/" if path else ""
    names = [prefix + name for name in files]
    for folder in folders:
        names += stored_files(prefix + folder)
    return sorted(names)
