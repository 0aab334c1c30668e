"""Old match logs move to the archive storage (arena.matches.services.retention,
manage.py archive_logs, beat's daily archive-old-logs) and are read there."""

from __future__ import annotations

import io
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.files.storage import storages
from django.core.management import CommandError, call_command
from django.utils import timezone

from arena.ladders import tasks
from arena.matches.models import Match
from arena.matches.selectors import match_log_read, with_participants
from arena.matches.services import match_logs_archive
from tests.platform.factories import BotVersionFactory, LadderFactory
from tests.platform.scenes import play_match

pytestmark = pytest.mark.django_db


@pytest.fixture
def matches() -> list[Match]:
    """Three finished matches: two ended 40 days ago, one now."""
    ladder = LadderFactory(slug="classic-2", rules="classic", seats=2)
    versions = [BotVersionFactory(), BotVersionFactory()]
    played = [play_match(ladder, versions, seed)[0] for seed in range(3)]
    Match.objects.filter(pk__in=[played[0].pk, played[1].pk]).update(
        finished_at=timezone.now() - timedelta(days=40)
    )
    return played


def read(match: Match) -> Any:
    return match_log_read(
        match=with_participants(Match.objects.filter(pk=match.pk)).get(), user=AnonymousUser()
    )


def names(storage: str) -> set[str]:
    found, folders = set(), ["matches/logs"]
    while folders:
        folder = folders.pop()
        try:
            subfolders, files = storages[storage].listdir(folder)
        except FileNotFoundError:
            continue
        found |= {f"{folder}/{name}" for name in files}
        folders += [f"{folder}/{sub}" for sub in subfolders]
    return found


def test_old_logs_move_to_the_archive_and_read_the_same(
    each_storage: str, matches: list[Match]
) -> None:
    logs = [read(match) for match in matches]
    old = {matches[0].log.name, matches[1].log.name}

    dry = match_logs_archive(finished_before=timezone.now() - timedelta(days=30), dry_run=True)
    assert dry.matches == 2 and dry.bytes > 0
    assert names("archive") == set() and not Match.objects.filter(log_archived=True).exists()

    done = match_logs_archive(finished_before=timezone.now() - timedelta(days=30))
    assert (done.matches, done.bytes) == (2, dry.bytes)
    assert names("archive") == old
    assert names("default") == {matches[2].log.name}
    assert set(Match.objects.filter(log_archived=True).values_list("pk", flat=True)) == {
        matches[0].pk,
        matches[1].pk,
    }
    assert [read(match) for match in matches] == logs
    assert match_logs_archive(finished_before=timezone.now()).matches == 1  # then the last


def test_a_run_stopped_half_way_leaves_logs_readable_and_the_next_run_ends_it(
    matches: list[Match],
) -> None:
    first, second = matches[0], matches[1]
    logs = read(first), read(second)
    default, archive = storages["default"], storages["archive"]
    # Stopped after copying the first log (still in both places), and after removing the
    # second from the default storage (in the archive only, not marked archived yet).
    for match in (first, second):
        with default.open(match.log.name, "rb") as handle:
            archive.save(match.log.name, handle)
    default.delete(second.log.name)
    assert (read(first), read(second)) == logs

    done = match_logs_archive(finished_before=timezone.now() - timedelta(days=30))
    assert done.matches == 2
    assert names("default") == {matches[2].log.name}
    assert names("archive") == {first.log.name, second.log.name}
    assert (read(first), read(second)) == logs


def test_a_copy_that_differs_is_left_alone_and_said(
    matches: list[Match], caplog: pytest.LogCaptureFixture
) -> None:
    storages["archive"].save(matches[0].log.name, io.BytesIO(b"something else"))
    done = match_logs_archive(finished_before=timezone.now() - timedelta(days=30))
    assert done.matches == 1
    assert matches[0].log.name in names("default")  # kept where it was
    assert not Match.objects.get(pk=matches[0].pk).log_archived
    assert f"could not archive the log of match {matches[0].pk}" in caplog.text


def test_the_command_and_beat_follow_the_setting(matches: list[Match], settings: Any) -> None:
    settings.ARENA_MATCH_LOG_ARCHIVE_DAYS = 0
    with pytest.raises(CommandError, match="give --days N"):
        call_command("archive_logs")
    assert tasks.match_logs_archive() == 0  # off: every log stays

    out = io.StringIO()
    call_command("archive_logs", "--days", "30", "--dry-run", stdout=out)
    assert out.getvalue().startswith("would move 2 match logs")
    assert names("archive") == set()

    settings.ARENA_MATCH_LOG_ARCHIVE_DAYS = 30
    assert tasks.match_logs_archive() == 2
    assert "archive-old-logs" in settings.CELERY_BEAT_SCHEDULE
