"""Several hosts: a second worker sharing only PostgreSQL and Redis with the first host.

Host one is this process (uploads over the API, the web through the test
client), with its own media folder. Host two is a real Celery worker started
from another directory, with its own ARENA_DATA_DIR, MEDIA_ROOT and TMPDIR: on
the database storage (the default) it plays the matches of code host one
stored, and host one serves their logs and the ladder's JSON Lines export in
full. On FileSystemStorage in separate folders it refuses to start, saying why.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from arena.blobs.models import StorageIdentity
from arena.blobs.storage_check import check_storage
from arena.bots.models import BotVersion, VersionStatus
from arena.bots.scratch import OWNER_FILE
from arena.ladders.matchmaking import SERIES_SHARE
from arena.ladders.services import ladder_fill_queue
from tests.platform.ladders.test_match_pipeline import (
    classic_2,
    finished_and_rated,
    house_bot,
    replay,
)
from tests.platform.scenes import publish_matches

from .api_support import api_upload
from .factories import RatingFactory
from .scenes import enter
from .stored import stored_files, use_storage
from .worker import (
    REDIS_URL,
    SANDBOXED_BOT,
    CeleryWorker,
    needs_redis,
    needs_shared_database,
    process_env,
    redis_worker,
    unique_queue,
    wait_for,
)
from .worker import (
    test_database_url as shared_database_url,
)

pytestmark = [
    pytest.mark.slow,
    needs_shared_database,
    needs_redis,
    pytest.mark.django_db(transaction=True),
]


@dataclass(frozen=True)
class Host:
    """A host's own directories: data (also its cwd), media, and temp."""

    data: Path
    media: Path
    scratch: Path


@pytest.fixture
def host_two(tmp_path: Path) -> Iterator[Host]:
    """The second host's directories. Its TMPDIR is outside pytest's private tmp_path:
    the bot user must get through to the folders the worker writes bots' code into."""
    (tmp_path / "host-two" / "data").mkdir(parents=True)
    scratch = Path(tempfile.mkdtemp(prefix="arena-host-two-tmp-"))
    scratch.chmod(0o711)  # traverse only
    yield Host(tmp_path / "host-two" / "data", tmp_path / "host-two" / "media", scratch)
    shutil.rmtree(scratch, ignore_errors=True)


def test_a_second_host_plays_the_matches_of_code_the_first_host_stored(
    alice: Any, house: Any, settings: Any, media_root: Path, host_two: Host, tmp_path: Path
) -> None:
    settings.ARENA_LADDER_QUEUE_TARGET = 6
    ladder = classic_2(series_games=3)
    # Settled ratings: their picks are full series (matchmaking.series_units).
    settled = SERIES_SHARE * 3
    for name in ("greedy", "random"):
        version = house_bot(house, name)
        enter(version, ladder)
        RatingFactory(ladder=ladder, bot_version=version, rated_matches=settled)
    with redis_worker(host_two.data, host_two.media, TMPDIR=str(host_two.scratch)) as (worker, _):
        assert "storage check passed: DatabaseStorage" in worker.log()
        # Alice uploads to host one over the REST API.
        shark = api_upload(alice, "shark", "shark.py", SANDBOXED_BOT)
        wait_for(
            lambda: (
                BotVersion.objects.get(pk=shark.pk).status
                in (VersionStatus.ACTIVE, VersionStatus.FAILED)
            ),
            timeout=60,
            what="host two to validate shark",
        )
        shark.refresh_from_db()
        assert shark.status == VersionStatus.ACTIVE, shark.validation_report
        assert shark.validation_report["sandboxed"] is True

        RatingFactory(ladder=ladder, bot_version=shark, rated_matches=settled)
        # Two series of three games: the bot left out of the first seeds the second.
        assert len(publish_matches(ladder_fill_queue(ladder=ladder))) == 6
        matches = wait_for(
            lambda: finished_and_rated(ladder, 6), timeout=120, what="host two to play 6 matches"
        )

    # Neither host kept a file on its own disk, and host two left no code in its temp dir
    # (its processes' folders name their owners only: arena.bots.scratch).
    assert not media_root.exists() and not host_two.media.exists()
    left = [path for path in host_two.scratch.rglob("*") if path.is_file()]
    assert {path.name for path in left} <= {OWNER_FILE}
    assert len(stored_files("matches")) == 6
    assert shark.participations.count() >= 1

    # Host one serves every log host two wrote, and the export holds all of them.
    anonymous = APIClient()
    logs = {}
    for match in matches:
        assert match.attempts == 1
        downloaded = anonymous.get(f"/api/matches/{match.pk}/log/")
        assert downloaded.status_code == 200
        assert "replay ok" in replay(downloaded.content, tmp_path)
        logs[match.pk] = downloaded.json()
        assert anonymous.get(f"/matches/{match.pk}/").status_code == 200
    export = anonymous.get(f"/api/ladders/{ladder.slug}/logs/")
    assert export.status_code == 200
    lines = b"".join(export.streaming_content).decode().splitlines()  # type: ignore[attr-defined]
    records = [json.loads(line) for line in lines]
    assert {record["match"]["id"]: record["log"] for record in records} == logs


def test_a_second_host_on_a_folder_of_its_own_refuses_to_start(
    settings: Any, tmp_path: Path, host_two: Host
) -> None:
    # Both hosts keep files in folders: host one's is the platform's storage.
    use_storage(settings, "filesystem")
    settings.MEDIA_ROOT = tmp_path / "host-one" / "media"
    check_storage(role="web")
    identity = StorageIdentity.objects.get()
    env = process_env(
        host_two.data,
        DATABASE_URL=shared_database_url(),
        DATABASE_CONN_MAX_AGE="0",
        CELERY_BROKER_URL=REDIS_URL,
        CELERY_TASK_DEFAULT_QUEUE=unique_queue(),
        CELERY_TASK_ALWAYS_EAGER="0",
        SECRET_KEY="tests-only-secret-key",
        STORAGE_BACKEND="django.core.files.storage.FileSystemStorage",
        MEDIA_ROOT=str(host_two.media),
        TMPDIR=str(host_two.scratch),
    )

    worker = CeleryWorker(env, host_two.data / "worker.log").start()
    assert worker.process is not None
    try:
        status = worker.process.wait(timeout=90)
    finally:
        worker.stop()

    assert status == 1, worker.log()[-3000:]
    expected = (
        f"refusing to start: this worker's storage FileSystemStorage at {host_two.media} is not "
        "the storage the platform's other hosts share: it lacks the marker "
        f"storage-check/identity-{identity.token} that the web on {socket.gethostname()} "
        f"(pid {os.getpid()}) wrote to its storage, FileSystemStorage at {tmp_path}/host-one/"
        f"media, on {identity.created_at:%Y-%m-%d %H:%M} UTC; bot code and match logs stored "
        "by one host would be missing on the other. Fix: set STORAGE_BACKEND to the database "
        "storage (arena.blobs.storage.DatabaseStorage, the default) on every host, or point "
        "MEDIA_ROOT at the filesystem the other hosts share. If this storage is the platform's "
        "from now on (it moved), run `python manage.py check_storage --claim` on this host."
    )
    # Logged, and the process's last words on stderr.
    assert worker.log().count(expected) == 2, worker.log()[-3000:]
    assert worker.log().rstrip().endswith(expected)
    assert " ready." not in worker.log()

    # Pointed at host one's folder (a shared filesystem), the same worker starts.
    env["MEDIA_ROOT"] = str(tmp_path / "host-one" / "media")
    shared = CeleryWorker(env, host_two.data / "shared-worker.log").start()
    try:
        shared.wait_ready()
        assert "storage check passed: FileSystemStorage at" in shared.log()
    finally:
        shared.stop()
