"""The database storage (arena.blobs.storage.DatabaseStorage): Django's Storage API on one table.

On the test database (PostgreSQL unless ARENA_TEST_DB=sqlite); the platform's
own code reaches it only as ``default_storage``, which these tests use too.
"""

from __future__ import annotations

import gzip
import os
import threading
from datetime import UTC, datetime

import pytest
from django.core.exceptions import ImproperlyConfigured, SuspiciousFileOperation
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage, storages
from django.db import connection, transaction

from arena.blobs.models import Blob
from arena.blobs.storage import DatabaseStorage
from tests.platform.conftest import needs_postgres

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

# Every byte value, and a log-sized gzip member (incompressible: as large stored as sent).
EVERY_BYTE = bytes(range(256)) * 4
BIG_LOG = gzip.compress(os.urandom(3 * 1024 * 1024), mtime=0)


def read(name: str) -> bytes:
    with default_storage.open(name, "rb") as handle:
        data: bytes = handle.read()
        return data


def test_the_default_storage_is_the_database() -> None:
    assert isinstance(storages["default"], DatabaseStorage)


def test_a_file_saved_reads_back_byte_for_byte_with_its_size() -> None:
    name = default_storage.save("bots/code/ab/abc.py", ContentFile(EVERY_BYTE))
    log = default_storage.save("matches/logs/000000/7.json.gz", ContentFile(BIG_LOG))

    assert (name, log) == ("bots/code/ab/abc.py", "matches/logs/000000/7.json.gz")
    assert read(name) == EVERY_BYTE and read(log) == BIG_LOG
    assert default_storage.size(log) == len(BIG_LOG) == Blob.objects.get(name=log).size
    assert default_storage.exists(name)


def test_save_never_overwrites_it_picks_a_free_name() -> None:
    first = default_storage.save("matches/logs/000000/7.json.gz", ContentFile(b"first"))
    second = default_storage.save("matches/logs/000000/7.json.gz", ContentFile(b"second"))

    assert first == "matches/logs/000000/7.json.gz"
    assert second.startswith("matches/logs/000000/7_") and second.endswith(".json.gz")
    assert (read(first), read(second)) == (b"first", b"second")


def test_a_file_saved_in_a_transaction_that_rolls_back_is_gone() -> None:
    # The log and its match's result commit together, or neither does.
    with pytest.raises(RuntimeError), transaction.atomic():
        default_storage.save("matches/logs/000000/8.json.gz", ContentFile(b"{}"))
        raise RuntimeError("the result could not be stored")

    assert not default_storage.exists("matches/logs/000000/8.json.gz")


def test_delete_removes_the_file_and_a_missing_one_is_no_error() -> None:
    name = default_storage.save("bots/code/ab/abc.py", ContentFile(b"code"))
    default_storage.delete(name)
    default_storage.delete(name)

    assert not default_storage.exists(name)
    missing = "no file 'bots/code/ab/abc.py' in the database storage"
    for read_it in (default_storage.open, default_storage.size, default_storage.get_modified_time):
        with pytest.raises(FileNotFoundError) as raised:
            read_it(name)
        assert str(raised.value) == missing


def test_listdir_names_the_folders_and_files_at_one_level() -> None:
    for name in ("bots/code/ab/1.py", "bots/code/ab/2.zip", "bots/code/cd/3.py", "bots/readme"):
        default_storage.save(name, ContentFile(b"x"))

    assert default_storage.listdir("") == (["bots"], [])
    assert default_storage.listdir("bots") == (["code"], ["readme"])
    assert default_storage.listdir("bots/code/") == (["ab", "cd"], [])
    assert default_storage.listdir("bots/code/ab") == ([], ["1.py", "2.zip"])
    assert default_storage.listdir("matches") == ([], [])


def test_times_are_the_creation_time() -> None:
    before = datetime.now(UTC)
    name = default_storage.save("bots/code/ab/abc.py", ContentFile(b"code"))

    modified = default_storage.get_modified_time(name)
    assert before <= modified <= datetime.now(UTC)
    assert default_storage.get_created_time(name) == default_storage.get_accessed_time(name)


def test_what_the_database_storage_cannot_do_is_refused_saying_so() -> None:
    name = default_storage.save("bots/code/ab/abc.py", ContentFile(b"code"))

    with pytest.raises(NotImplementedError, match=r"no URL for 'bots/code/ab/abc\.py'.*private"):
        default_storage.url(name)
    with pytest.raises(ValueError, match=r"mode 'wb'.*reading only; write a new file with save"):
        default_storage.open(name, "wb")
    with pytest.raises(SuspiciousFileOperation, match=r"the name has 300 characters.*at most 255"):
        DatabaseStorage()._save("x" * 300, ContentFile(b"x"))
    with pytest.raises(ImproperlyConfigured, match=r"OPTIONS \['bucket_name'\].*no options"):
        DatabaseStorage(bucket_name="arena")


def test_an_alternative_name_still_fits_the_column() -> None:
    long_name = "bots/" + "n" * 246 + ".py"  # 254 characters
    default_storage.save(long_name, ContentFile(b"first"))

    second = default_storage.save(long_name, ContentFile(b"second"))

    assert second != long_name and len(second) <= 255 and read(second) == b"second"


@needs_postgres
@pytest.mark.django_db(transaction=True)
def test_two_hosts_saving_one_name_at_once_both_keep_their_file() -> None:
    """The second writer waits on the first's uncommitted row, then takes another name."""
    storage = DatabaseStorage()
    names: dict[str, str] = {}
    first_wrote, release = threading.Event(), threading.Event()

    def first() -> None:
        try:
            with transaction.atomic():
                names["first"] = storage.save("bots/code/ab/abc.py", ContentFile(b"first"))
                first_wrote.set()
                release.wait(10)
        finally:
            connection.close()

    def second() -> None:
        try:
            names["second"] = storage.save("bots/code/ab/abc.py", ContentFile(b"second"))
        finally:
            connection.close()

    writers = [threading.Thread(target=first)]
    writers[0].start()
    assert first_wrote.wait(10)
    writers.append(threading.Thread(target=second))
    writers[1].start()
    writers[1].join(0.5)
    assert writers[1].is_alive(), "the second save should wait for the first to commit"
    release.set()
    for writer in writers:
        writer.join(10)

    assert names["first"] == "bots/code/ab/abc.py"
    assert names["second"].startswith("bots/code/ab/abc_") and names["second"].endswith(".py")
    assert (read(names["first"]), read(names["second"])) == (b"first", b"second")
