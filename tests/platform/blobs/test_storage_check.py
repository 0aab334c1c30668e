"""The storage check (arena.blobs.storage_check): usable, and the one the platform's hosts share.

In this process, on two folders standing for two hosts' disks; the same check
in a real worker process is in test_storage_hosts.py.
"""

from __future__ import annotations

import os
import re
import socket
from pathlib import Path
from typing import Any

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.management import CommandError, call_command
from django.db import connection

from arena.blobs.models import StorageIdentity
from arena.blobs.storage_check import StorageCheckError, check_storage, claim_storage
from tests.platform.stored import stored_files, use_storage

pytestmark = pytest.mark.django_db
HOST = f"on {socket.gethostname()} (pid {os.getpid()})"


def on_folder(settings: Any, folder: Path) -> None:
    """This process now stands for a host whose storage is ``folder`` (FileSystemStorage)."""
    use_storage(settings, "filesystem")
    settings.MEDIA_ROOT = folder


def test_the_first_host_records_its_storage_and_later_checks_pass() -> None:
    first = check_storage(role="web")
    identity = StorageIdentity.objects.get()

    assert first.claimed and identity.host == f"web {HOST}"
    assert identity.storage.startswith(
        f"DatabaseStorage in the database {connection.settings_dict['NAME']}"
    )
    # The marker holds the token; the probe object is gone.
    assert default_storage.listdir("storage-check") == ([], [f"identity-{identity.token}"])
    again = check_storage(role="worker")
    assert not again.claimed
    assert str(again) == f"storage check passed: {identity.storage} is the platform's shared " + (
        f"storage (recorded by web {HOST})"
    )


def test_a_worker_on_a_folder_of_its_own_is_refused_saying_what_to_do(
    settings: Any, tmp_path: Path
) -> None:
    on_folder(settings, tmp_path / "host-one" / "media")
    check_storage(role="web")
    identity = StorageIdentity.objects.get()
    on_folder(settings, tmp_path / "host-two" / "media")

    with pytest.raises(StorageCheckError) as refused:
        check_storage(role="worker")

    assert str(refused.value) == (
        f"this worker's storage FileSystemStorage at {tmp_path}/host-two/media is not the "
        "storage the platform's other hosts share: it lacks the marker "
        f"storage-check/identity-{identity.token} that the web {HOST} wrote to its storage, "
        f"FileSystemStorage at {tmp_path}/host-one/media, on "
        f"{identity.created_at:%Y-%m-%d %H:%M} UTC; bot code and match logs stored by one "
        "host would be missing on the other. Fix: set STORAGE_BACKEND to the database storage "
        "(arena.blobs.storage.DatabaseStorage, the default) on every host, or point MEDIA_ROOT "
        "at the filesystem the other hosts share. If this storage is the platform's from now "
        "on (it moved), run `python manage.py check_storage --claim` on this host."
    )


def test_a_marker_with_another_token_is_not_the_platforms(settings: Any, tmp_path: Path) -> None:
    on_folder(settings, tmp_path / "media")
    check_storage(role="web")
    identity = StorageIdentity.objects.get()
    marker = tmp_path / "media" / "storage-check" / f"identity-{identity.token}"
    marker.write_text("another platform's token")

    with pytest.raises(StorageCheckError, match="is not the storage the platform's other hosts"):
        check_storage(role="worker")


def test_a_storage_that_cannot_be_written_is_refused_naming_the_step(
    settings: Any, tmp_path: Path
) -> None:
    (tmp_path / "blocker").write_text("a file where the media folder's parent should be")
    on_folder(settings, tmp_path / "blocker" / "media")

    with pytest.raises(StorageCheckError) as refused:
        check_storage(role="worker")

    assert re.fullmatch(
        re.escape(f"this worker cannot use its storage FileSystemStorage at {tmp_path}/blocker/")
        + r"media: writing a probe object \(storage-check/probe-\S+\) failed: "
        r"(NotADirectoryError|FileExistsError): .+\. Fix: make MEDIA_ROOT \("
        + re.escape(f"{tmp_path}/blocker/media")
        + r"\) a folder that \w+ can write, or set STORAGE_BACKEND="
        r"arena\.blobs\.storage\.DatabaseStorage \(the default\) to keep files in the database\.",
        str(refused.value),
    ), str(refused.value)
    assert not StorageIdentity.objects.exists()


def test_claim_makes_this_hosts_storage_the_platforms(settings: Any, tmp_path: Path) -> None:
    on_folder(settings, tmp_path / "old" / "media")
    check_storage(role="web")
    on_folder(settings, tmp_path / "new" / "media")

    assert claim_storage().claimed
    check_storage(role="worker")
    on_folder(settings, tmp_path / "old" / "media")
    with pytest.raises(StorageCheckError, match="/old/media is not the storage"):
        check_storage(role="worker")


def test_the_command_runs_the_same_check(settings: Any, tmp_path: Path, capsys: Any) -> None:
    call_command("check_storage")
    assert "storage check passed: DatabaseStorage in the database" in capsys.readouterr().out

    on_folder(settings, tmp_path / "media")
    with pytest.raises(CommandError, match=r"^this host's storage FileSystemStorage at .*--claim"):
        call_command("check_storage")
    call_command("check_storage", "--claim")
    assert "is now recorded as the platform's storage" in capsys.readouterr().out
    call_command("check_storage", "--role", "worker")


def test_files_kept_in_a_folder_are_imported_under_their_names(tmp_path: Path, capsys: Any) -> None:
    old = tmp_path / "var" / "media"
    (old / "bots" / "code" / "ab").mkdir(parents=True)
    (old / "bots" / "code" / "ab" / "ab12.py").write_bytes(b"print('hi')")
    (old / "matches" / "logs" / "000000").mkdir(parents=True)
    (old / "matches" / "logs" / "000000" / "7.json.gz").write_bytes(b"\x1f\x8b log")
    default_storage.save("matches/logs/000000/7.json.gz", ContentFile(b"already here"))

    call_command("storage_import", str(old))
    call_command("storage_import", str(old))

    out = capsys.readouterr().out.splitlines()
    assert out == [
        f"copied 1 files from {old}, 1 already there",
        f"copied 0 files from {old}, 2 already there",
    ]
    assert stored_files() == ["bots/code/ab/ab12.py", "matches/logs/000000/7.json.gz"]
    with default_storage.open("bots/code/ab/ab12.py") as handle:
        assert handle.read() == b"print('hi')"
    with pytest.raises(CommandError, match=r"is not a folder: give the folder"):
        call_command("storage_import", str(tmp_path / "nowhere"))
