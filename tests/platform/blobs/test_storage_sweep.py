"""The sweep of orphaned stored files (arena.blobs.sweep, manage.py storage_sweep).

Orphans are made as a killed process leaves them: a file written, its row
never committed. Their age is set on the storage itself (the file's mtime,
the blob's creation time), as a day passing would.
"""

from __future__ import annotations

import io
import os
from datetime import timedelta
from typing import Any

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import FileSystemStorage, default_storage
from django.core.management import call_command
from django.utils import timezone

from arena.blobs import sweep
from arena.blobs.models import Blob, StorageIdentity
from arena.blobs.storage import DatabaseStorage
from arena.blobs.storage_check import check_storage, marker_name
from arena.blobs.tasks import storage_sweep_task
from arena.bots.services import bot_upload
from arena.matches.services import log_storage_name
from arena.tables.models import Table
from arena.tables.services import log_storage_name as table_log_name
from tests.platform.factories import BotVersionFactory, MatchFactory, UserFactory
from tests.platform.stored import stored_files

pytestmark = pytest.mark.django_db
OLD = timedelta(days=30)


def store(name: str, data: bytes, *, age: timedelta = OLD) -> str:
    """Write ``name`` as the platform does and make it ``age`` old."""
    stored = default_storage.save(name, ContentFile(data))
    when = timezone.now() - age
    storage = default_storage._wrapped
    if isinstance(storage, FileSystemStorage):
        os.utime(storage.path(stored), (when.timestamp(), when.timestamp()))
    else:
        assert isinstance(storage, DatabaseStorage)
        Blob.objects.filter(name=stored).update(created_at=when)
    return stored


def everything() -> list[str]:
    """Every stored file, the storage check's included."""
    try:
        checks = default_storage.listdir("storage-check")[1]
    except FileNotFoundError:  # FileSystemStorage: never written
        checks = []
    return stored_files() + [f"storage-check/{name}" for name in checks]


def build_name(n: int) -> str:
    return f"bots/builds/{n:02d}/{n:064d}.zip"


def test_old_orphans_go_and_named_files_stay_whatever_their_age(
    each_storage: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sweep, "BATCH", 2)  # several batches per folder
    version = BotVersionFactory()
    code = store(version.code.name, b"print('kept')")
    version.build = store(build_name(1), b"built, kept")
    version.save(update_fields=["build"])
    orphan_build = store(build_name(2), b"built, orphan")
    kept = {code, version.build}
    orphans = {orphan_build: len(b"built, orphan")}
    if each_storage == "filesystem":
        # Logs and code are written in their row's transaction in the database storage:
        # orphans of them exist only in the other storages.
        match = MatchFactory()
        canonical = log_storage_name(match.pk)
        orphans[store(canonical, b"attempt 1, killed")] = len(b"attempt 1, killed")
        match.log = store(canonical, b"attempt 2")  # saved under another name
        match.save(update_fields=["log"])
        table = Table.objects.create(
            player=UserFactory(),
            rules="classic",
            seats=2,
            seat=0,
            time_per_decision_ms=1,
            time_bank_ms=1,
            memory_mb=64,
            decision_seconds=90,
            seed=1,
        )
        table.log = store(table_log_name(table.pk), b"table log")
        table.save(update_fields=["log"])
        orphans[store(table_log_name(table.pk + 1), b"no table")] = len(b"no table")
        orphans[store(f"bots/code/ab/{'ab' * 32}.py", b"never versioned")] = 15
        kept |= {match.log.name, table.log.name}
    assert set(everything()) == kept | set(orphans)

    result = sweep.storage_sweep()

    assert sorted(everything()) == sorted(kept)
    assert (result.deleted, result.bytes) == (len(orphans), sum(orphans.values()))
    with default_storage.open(code) as handle:
        assert handle.read() == b"print('kept')"


def test_a_young_orphan_stays(each_storage: str) -> None:
    young = store(build_name(3), b"its transaction may not have committed", age=timedelta(hours=1))

    result = sweep.storage_sweep(grace=timedelta(hours=2))

    assert everything() == [young]
    assert (result.deleted, result.kept_young) == (0, 1)
    # The same file, past the grace period, goes.
    assert sweep.storage_sweep(grace=timedelta(minutes=30)).deleted == 1
    assert everything() == []


def test_the_storage_checks_marker_stays_and_a_dead_probe_goes(each_storage: str) -> None:
    check_storage(role="worker")
    marker = marker_name(StorageIdentity.objects.get().token)
    Blob.objects.update(created_at=timezone.now() - OLD)
    storage = default_storage._wrapped
    if isinstance(storage, FileSystemStorage):
        os.utime(storage.path(marker), (0, 0))
    dead_probe = store("storage-check/probe-lost-host-1-abcd", b"killed between write and delete")
    live_probe = store("storage-check/probe-this-host-2-ef01", b"being checked", age=timedelta())

    sweep.storage_sweep()

    assert sorted(everything()) == sorted([marker, live_probe])
    assert dead_probe not in everything()
    check_storage(role="worker")  # still the platform's storage


def test_dry_run_lists_the_orphans_and_deletes_nothing(each_storage: str) -> None:
    orphan = store(build_name(4), b"orphan")
    named = BotVersionFactory(build=store(build_name(5), b"named")).build

    out = io.StringIO()
    call_command("storage_sweep", "--dry-run", stdout=out)

    assert out.getvalue().splitlines() == [
        f"would delete {orphan} (6 bytes)",
        "would delete 1 orphaned files (6 bytes); 2 files checked, 0 younger than 86400 s kept",
    ]
    assert sorted(everything()) == sorted([orphan, named])
    out = io.StringIO()
    call_command("storage_sweep", stdout=out)
    assert out.getvalue().splitlines()[0] == f"deleted {orphan} (6 bytes)"
    assert everything() == [named]


def test_an_upload_of_an_orphans_bytes_gets_a_file_of_its_own(
    each_storage: str, settings: Any
) -> None:
    """An orphan at the code's name may be being swept: the upload must not rely on it."""
    content = b"def play(state):\n    return state.legal[0]\n"
    first = bot_upload(owner=UserFactory(), name="first", filename="main.py", content=content)
    orphan = first.code.name
    # The version's transaction never committed: its file stayed alone.
    first.delete()
    store_age = timezone.now() - OLD
    storage = default_storage._wrapped
    if isinstance(storage, FileSystemStorage):
        os.utime(storage.path(orphan), (store_age.timestamp(), store_age.timestamp()))
    else:
        Blob.objects.filter(name=orphan).update(created_at=store_age)

    again = bot_upload(owner=UserFactory(), name="again", filename="main.py", content=content)

    assert again.code.name != orphan
    sweep.storage_sweep()
    with default_storage.open(again.code.name) as handle:
        assert handle.read() == content
    if each_storage == "filesystem":
        assert not default_storage.exists(orphan)


def test_beat_runs_the_sweep_daily(settings: Any) -> None:
    entry = settings.CELERY_BEAT_SCHEDULE["sweep-orphaned-files"]
    assert (entry["task"], entry["schedule"]) == (storage_sweep_task.name, 86400.0)
    orphan = store(build_name(6), b"orphan")
    assert storage_sweep_task.apply().get() == 1
    assert orphan not in everything()
