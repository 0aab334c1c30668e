"""Backup and restore of a whole platform (arena.blobs.backup, manage.py backup_platform
and restore_platform).

The round trips are an operator's: a populated platform is backed up, the
file restored by ``manage.py restore_platform`` in a process of its own into
a new empty database and storage, and the restored platform, read in another
process, holds every user, bot, version (its code), match (its log), seat and
rating of the original.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tarfile
from datetime import timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from arena.blobs import backup as backups
from arena.bots.models import VersionStatus
from arena.bots.services import bot_version_transition, bot_version_upload
from arena.matches.models import Match
from arena.matches.services import match_logs_archive
from tests.platform.conftest import REPO_DIR, needs_postgres
from tests.platform.factories import BotFactory, LadderFactory
from tests.platform.processes import manage, platform_env, run_json
from tests.platform.scenes import GOOD_BOT, play_match
from tests.platform.stored import BACKENDS, stored_files

from .fingerprint import fingerprint


def _populate(alice: Any, bob: Any) -> None:
    """Two authors, versions with code, a ladder with played and rated matches, the
    oldest one's log moved to the archive storage."""
    ladder = LadderFactory(slug="classic-2", rules="classic", seats=2)
    versions = []
    for owner, name in ((alice, "shark"), (bob, "minnow")):
        bot = BotFactory(owner=owner, name=name)
        for code in (GOOD_BOT, GOOD_BOT + b"# v2\n"):
            version = bot_version_upload(bot=bot, filename="bot.py", content=code)
            for status in (VersionStatus.VALIDATING, VersionStatus.ACTIVE):
                version = bot_version_transition(version=version, to=status)
            versions.append(version)
    for seed in range(3):
        play_match(ladder, [versions[1], versions[3]], seed)
    oldest = Match.objects.order_by("pk").first()
    assert oldest is not None and oldest.finished_at is not None
    archived = match_logs_archive(finished_before=oldest.finished_at + timedelta(microseconds=1))
    assert archived.matches == 1


@needs_postgres
@pytest.mark.django_db(transaction=True)
def test_a_restored_platform_holds_everything_the_backup_did(
    each_storage: str, alice: Any, bob: Any, empty_database: str, tmp_path: Path
) -> None:
    _populate(alice, bob)
    original = fingerprint()
    assert len(original["versions"]) == 4 and len(original["matches"]) == 3
    assert [archived for _, _, _, archived, _ in original["matches"]] == [True, False, False]
    assert all(sha for *_, sha in original["versions"] + original["matches"])
    assert original["ratings"] and original["seats"]

    out = io.StringIO()
    call_command("backup_platform", str(tmp_path / "arena.tar"), stdout=out)
    assert "backed up" in out.getvalue()
    with tarfile.open(tmp_path / "arena.tar") as archive:
        names = archive.getnames()
    assert names[-1] == backups.MANIFEST and backups.PG_DUMP in names
    assert len([n for n in names if n.startswith(backups.ARCHIVE)]) == 1
    stored = {n.removeprefix(backups.FILES) for n in names if n.startswith(backups.FILES)}
    if each_storage == "filesystem":
        assert set(stored_files("bots/code")) | set(stored_files("matches/logs")) <= stored
    else:
        assert not stored  # the files are rows of the dump

    media = tmp_path / "restored-media"
    env = platform_env(empty_database, each_storage, media)
    done = manage(env, "restore_platform", str(tmp_path / "arena.tar"))
    assert done.returncode == 0, done.stderr
    assert "restored the backup" in done.stdout and "migrate" not in done.stdout

    assert run_json(env, "tests.platform.blobs.fingerprint") == json.loads(json.dumps(original))
    if each_storage == "filesystem":
        assert {str(p.relative_to(media)) for p in media.rglob("*") if p.is_file()} == stored
    restored_archive = tmp_path / "data" / "archive"  # the restored platform's own
    assert len([p for p in restored_archive.rglob("*") if p.is_file()]) == 1

    # A second restore onto the restored platform is refused, and changes nothing.
    again = manage(env, "restore_platform", str(tmp_path / "arena.tar"))
    assert again.returncode != 0
    assert "is not empty" in again.stderr and "restore into an empty database" in again.stderr
    assert run_json(env, "tests.platform.blobs.fingerprint") == json.loads(json.dumps(original))


def test_the_embedded_default_sqlite_round_trips(tmp_path: Path) -> None:
    """``make run``'s platform (SQLite, files in the database), made by its own commands."""
    source = platform_env(f"sqlite:///{tmp_path / 'a.sqlite3'}", "database", tmp_path / "m")
    for command in (("migrate", "--no-input"), ("load_house_bots",)):
        done = manage(source, *command)
        assert done.returncode == 0, done.stderr
    original = run_json(source, "tests.platform.blobs.fingerprint")
    assert original["versions"] and all(sha for *_, sha in original["versions"])

    # Through standard output and input, as `docker compose exec -T web ...` runs them.
    command_line = [sys.executable, str(REPO_DIR / "manage.py")]
    with (tmp_path / "arena.tar").open("wb") as out:
        done = subprocess.run(
            [*command_line, "backup_platform", "-"], env=source, stdout=out, stderr=subprocess.PIPE
        )
    assert done.returncode == 0 and b"backed up" in done.stderr, done.stderr
    assert tarfile.is_tarfile(tmp_path / "arena.tar")
    target = platform_env(f"sqlite:///{tmp_path / 'b.sqlite3'}", "database", tmp_path / "m")
    with (tmp_path / "arena.tar").open("rb") as backup_file:
        done = subprocess.run(
            [*command_line, "restore_platform", "-"],
            env=target,
            stdin=backup_file,
            capture_output=True,
        )
    assert done.returncode == 0 and b"restored the backup" in done.stdout, done.stderr
    assert run_json(target, "tests.platform.blobs.fingerprint") == original


@needs_postgres
@pytest.mark.django_db(transaction=True)
def test_a_failed_restore_leaves_the_database_and_storage_empty(
    alice: Any, bob: Any, empty_database: str, tmp_path: Path, settings: Any, media_root: Path
) -> None:
    """The files go in first and the database in one transaction: a dump that breaks
    half-way leaves no table and removes the files already written."""
    from tests.platform.stored import use_storage

    use_storage(settings, "filesystem")
    _populate(alice, bob)
    call_command("backup_platform", str(tmp_path / "arena.tar"), stdout=io.StringIO())
    broken = tmp_path / "broken.tar"
    with tarfile.open(tmp_path / "arena.tar") as good, tarfile.open(broken, "w") as bad:
        for member in good:
            data = good.extractfile(member)
            assert data is not None
            payload = data.read()
            if member.name == backups.PG_DUMP:
                payload = payload[: len(payload) // 2]  # cut off half-way
            member.size = len(payload)
            bad.addfile(member, io.BytesIO(payload))

    media = tmp_path / "restored-media"
    env = platform_env(empty_database, "filesystem", media)
    done = manage(env, "restore_platform", str(broken))
    assert done.returncode != 0 and "pg_restore failed" in done.stderr
    assert not [p for p in media.rglob("*") if p.is_file()]
    with psycopg.connect(empty_database) as conn:
        tables = conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")
        assert tables.fetchone() == (0,)


@pytest.mark.django_db
def test_files_that_are_not_backups_are_refused_with_what_to_do(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("not a backup")
    with pytest.raises(CommandError, match="not a platform backup"):
        call_command("restore_platform", str(text))
    with pytest.raises(CommandError, match="is not a file"):
        call_command("restore_platform", str(tmp_path / "missing.tar"))
    unfinished = tmp_path / "unfinished.tar"
    with tarfile.open(unfinished, "w") as archive:
        archive.addfile(tarfile.TarInfo(backups.PG_DUMP), io.BytesIO(b""))
    with pytest.raises(CommandError, match=r"no manifest\.json"):
        call_command("restore_platform", str(unfinished))
    with pytest.raises(CommandError, match="is a folder"):
        call_command("backup_platform", str(tmp_path))


@pytest.mark.django_db
def test_a_backup_of_a_newer_release_or_another_engine_is_refused(tmp_path: Path) -> None:
    manifest = backups.Manifest(
        format=backups.FORMAT,
        created_at="2026-11-29T08:00:00+00:00",
        engine=connection.vendor,
        storage=BACKENDS["database"],
        files_in_database=True,
        tables={},
        migrations=["ladders.0001_initial", "ladders.9999_from_the_future"],
    )

    def write(manifest: backups.Manifest) -> Path:
        path = tmp_path / f"{manifest.engine}.tar"
        with tarfile.open(path, "w") as archive:
            data = manifest.to_json()
            info = tarfile.TarInfo(backups.MANIFEST)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        return path

    with pytest.raises(CommandError, match=r"newer release: .*ladders\.9999_from_the_future"):
        call_command("restore_platform", str(write(manifest)))
    manifest.engine = "sqlite" if connection.vendor == "postgresql" else "postgresql"
    with pytest.raises(CommandError, match=f"is of a {manifest.engine} database"):
        call_command("restore_platform", str(write(manifest)))
