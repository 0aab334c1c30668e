"""Celery tasks of the blobs app: the sweep of orphaned stored files."""

from __future__ import annotations

from celery import shared_task

from .sweep import storage_sweep


@shared_task(name="arena.blobs.tasks.storage_sweep")
def storage_sweep_task() -> int:
    """Beat, daily: files no row names, older than ARENA_ORPHAN_GRACE_SECONDS; how many went."""
    return storage_sweep().deleted
