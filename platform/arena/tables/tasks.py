"""Celery tasks of tables: load by id, call a service."""

from __future__ import annotations

from celery import shared_task

from .models import Table
from .play import table_run
from .services import tables_end_lost


# On the tables queue (settings.CELERY_TASK_ROUTES), read by sandboxing workers of its
# own: the task holds a worker process for the whole game, the person's thinking included.
@shared_task(name="arena.tables.tasks.table_play")
def table_play(table_id: int) -> None:
    table = Table.objects.filter(pk=table_id).first()
    if table is not None:
        table_run(table=table)


@shared_task(name="arena.tables.tasks.tables_end_lost")
def tables_end_lost_task() -> int:
    """Beat: tables whose worker is gone, or that no worker took in time, fail."""
    return tables_end_lost()
