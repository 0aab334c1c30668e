"""Failed attempts: each one's cause kept for staff, and retried once the resource answers.

A failure of ours names what it failed on (the database, the storage or disk
space, the broker, the sandbox, a lost worker); the retry sweep probes that
resource and publishes the retry as soon as it answers, at the latest after
the backoff, with a cap on the retries in flight. The full-disk test fills a
real file system (a small tmpfs) and counts sweeps, not seconds.
"""

from __future__ import annotations

import errno
import json
import subprocess
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.db import OperationalError
from django.test import Client
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerError

from arena.bots.sandboxing import InfrastructureError, IsolationUnavailableError, LaunchError
from arena.ladders.tasks import matches_retry_waiting
from arena.matches.models import AttemptFault, Match, MatchStatus
from arena.matches.outcomes import SeatOutcome
from arena.matches.retries import fault_of
from arena.matches.services import (
    Play,
    match_create,
    match_create_plays,
    match_fail,
    match_finish,
    match_start,
    match_start_series,
)
from bots_sdk.sandbox import SandboxError
from tests.platform.api_support import client_for, played_log
from tests.platform.factories import BotFactory, BotVersionFactory, LadderFactory
from tests.platform.ladders.test_match_pipeline import classic_2, house_bot
from tests.platform.scenes import on_ladder, publish_match, publish_matches, run_match
from tests.platform.stored import use_storage

pytestmark = pytest.mark.django_db


@pytest.fixture
def ladder() -> Any:
    return LadderFactory(slug="classic-2")


@pytest.fixture
def versions(alice: Any, bob: Any) -> list[Any]:
    return [
        BotVersionFactory(bot=BotFactory(owner=alice, name="shark")),
        BotVersionFactory(bot=BotFactory(owner=bob, name="turtle")),
    ]


@pytest.fixture
def published(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    """The match_run messages published (their match ids), instead of running them."""
    sent: list[tuple[Any, ...]] = []

    def apply_async(self: Any, args: Any = (), kwargs: Any = None, **options: Any) -> None:
        sent.append(tuple(args))

    monkeypatch.setattr("celery.app.task.Task.apply_async", apply_async)
    return sent


def failed(match: Match, fault: AttemptFault, error: str = "it failed") -> Match:
    """``match`` started and its attempt failed on ``fault``."""
    started = match_start(match=match) if match.status == MatchStatus.QUEUED else match
    return match_fail(match=started, error=error, attempt=started.attempts, fault=fault)


# --------------------------------------------------------------------------- a real full disk


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A file system of its own, 2 MiB (a tmpfs), unmounted at the end."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=2m,mode=0755", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def fill(disk: Path) -> Path:
    """Fill ``disk`` with one file until it has no space left; returns that file."""
    filler = disk / "filler"
    with filler.open("wb", buffering=0) as handle:  # unbuffered: nothing left to flush
        try:
            while True:
                handle.write(b"\0" * 65536)
        except OSError as error:
            assert error.errno == errno.ENOSPC
    return filler


def test_a_match_that_met_a_full_disk_is_retried_at_the_first_sweep_once_space_is_back(
    house: Any, settings: Any, small_disk: Path, django_capture_on_commit_callbacks: Any
) -> None:
    use_storage(settings, "filesystem")
    settings.MEDIA_ROOT = small_disk / "media"
    settings.ARENA_MATCH_RETRY_BASE_SECONDS = 3600  # the backoff never decides here
    match = publish_match(
        match_create(
            **on_ladder(classic_2()),
            versions=[house_bot(house, "greedy"), house_bot(house, "random")],
        )
    )
    filler = fill(small_disk)

    with django_capture_on_commit_callbacks(execute=True):
        match = run_match(match)  # played, but its log cannot be stored
    assert (match.status, match.attempts) == (MatchStatus.QUEUED, 1)
    for _ in range(3):  # the disk is still full: the probe fails, the retry waits
        with django_capture_on_commit_callbacks(execute=True):
            assert matches_retry_waiting() == 0
    assert Match.objects.get(pk=match.pk).attempts == 1

    filler.unlink()  # space comes back
    with django_capture_on_commit_callbacks(execute=True):
        assert matches_retry_waiting() == 1  # the first sweep since: played (eager) and stored

    match.refresh_from_db()
    assert (match.status, match.attempts, match.error) == (MatchStatus.FINISHED, 2, "")
    first, second = match.attempt_log.order_by("number")
    assert (first.outcome, first.fault) == ("failed", "storage")
    assert "No space left on device" in first.error  # kept after the later success
    assert (second.outcome, second.fault, second.error) == ("finished", "", "")


# --------------------------------------------------------------------------- the sweep


def test_beat_runs_the_retry_sweep_every_few_seconds(settings: Any) -> None:
    entry = settings.CELERY_BEAT_SCHEDULE["retry-failed-matches"]
    assert entry["task"] == "arena.ladders.tasks.matches_retry_waiting"
    assert entry["schedule"] <= 15


def test_retries_in_flight_are_capped_and_a_series_counts_once(
    settings: Any,
    ladder: Any,
    versions: list[Any],
    published: list[Any],
    django_capture_on_commit_callbacks: Any,
) -> None:
    """A flapping resource (here: lost workers, which need no probe) cannot flood the
    workers: at most ARENA_MATCH_RETRIES_IN_FLIGHT runs of retries at once."""
    settings.ARENA_MATCH_RETRIES_IN_FLIGHT = 2
    series = publish_matches(
        match_create_plays(
            ladder_id=ladder.pk, game=ladder.game, plays=[Play(versions), Play(versions[::-1])]
        )
    )
    for game in match_start_series(match=series[0]):
        failed(game, AttemptFault.WORKER_LOST)
    singles = [
        failed(
            publish_match(match_create(ladder_id=ladder.pk, game=ladder.game, versions=versions)),
            fault,
        )
        for fault in (AttemptFault.WORKER_LOST, AttemptFault.DATABASE, AttemptFault.DATABASE)
    ]
    published.clear()

    with django_capture_on_commit_callbacks(execute=True):
        assert matches_retry_waiting() == 3  # the series (both games) and one match
    assert published == [(series[0].pk,), (singles[0].pk,)]
    assert not Match.objects.filter(pk__in=[g.pk for g in series], retry_at__isnull=False).exists()
    with django_capture_on_commit_callbacks(execute=True):
        assert matches_retry_waiting() == 0  # the cap is full: they wait

    # One retry played (here: taken and finished): room for one more.
    taken = match_start(match=Match.objects.get(pk=singles[0].pk))
    outcomes = [SeatOutcome(0, 5, 1), SeatOutcome(1, 0, 2)]
    match_finish(match=taken, outcomes=outcomes, game_log=b"{}", attempt=taken.attempts)
    with django_capture_on_commit_callbacks(execute=True):
        assert matches_retry_waiting() == 1
    assert published[-1] == (singles[1].pk,)
    assert Match.objects.get(pk=singles[2].pk).retry_at is not None


def test_a_retry_waits_while_its_resource_fails_and_comes_at_its_backoff_anyway(
    ladder: Any,
    versions: list[Any],
    published: list[Any],
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    from arena.bots import sandboxing

    monkeypatch.setattr(sandboxing, "_self_tested", True)
    monkeypatch.setattr(sandboxing, "_self_test_problem", "bot sandbox unavailable: no bwrap")
    sandbox = failed(
        publish_match(match_create(ladder_id=ladder.pk, game=ladder.game, versions=versions)),
        AttemptFault.SANDBOX,
    )
    unknown = failed(
        publish_match(match_create(ladder_id=ladder.pk, game=ladder.game, versions=versions)),
        AttemptFault.OTHER,
    )
    published.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert matches_retry_waiting() == 0

    monkeypatch.setattr(sandboxing, "_self_test_problem", None)  # the sandbox works again
    with django_capture_on_commit_callbacks(execute=True):
        assert matches_retry_waiting() == 1
    assert published == [(sandbox.pk,)]

    # A fault of unknown cause has no probe: its backoff ends the wait.
    Match.objects.filter(pk=unknown.pk).update(retry_at=timezone.now() - timedelta(seconds=1))
    with django_capture_on_commit_callbacks(execute=True):
        assert matches_retry_waiting() == 1
    assert published[-1] == (unknown.pk,)


def test_a_message_for_a_match_waiting_for_its_retry_is_dropped(
    ladder: Any, versions: list[Any]
) -> None:
    """Only the retry sweep publishes a waiting match: any other message is an old one."""
    waiting = failed(
        publish_match(match_create(ladder_id=ladder.pk, game=ladder.game, versions=versions)),
        AttemptFault.OTHER,
    )
    after = run_match(waiting)
    assert (after.status, after.attempts) == (MatchStatus.QUEUED, 1)


def test_a_lost_worker_s_match_is_retried_by_the_stale_sweep_at_once(
    settings: Any,
    ladder: Any,
    versions: list[Any],
    published: list[Any],
    django_capture_on_commit_callbacks: Any,
) -> None:
    from arena.ladders.tasks import matches_requeue_stale

    running = match_start(
        match=publish_match(match_create(ladder_id=ladder.pk, game=ladder.game, versions=versions))
    )
    Match.objects.filter(pk=running.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1))
    published.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert matches_requeue_stale() == 1
    assert published == [(running.pk,)]
    attempt = Match.objects.get(pk=running.pk).attempt_log.get()
    assert (attempt.outcome, attempt.fault) == ("failed", "worker_lost")
    assert "no heartbeat" in attempt.error


@pytest.mark.parametrize(
    ("error", "fault"),
    [
        (OperationalError("server closed the connection"), AttemptFault.DATABASE),
        (OSError(errno.ENOSPC, "No space left on device"), AttemptFault.STORAGE),
        (BrokerError("Connection refused"), AttemptFault.BROKER),
        (IsolationUnavailableError("no bwrap"), AttemptFault.SANDBOX),
        (LaunchError("cannot start shark"), AttemptFault.SANDBOX),
        (OSError(errno.ENOMEM, "Cannot allocate memory"), AttemptFault.OTHER),
        (ValueError("a bug"), AttemptFault.OTHER),
    ],
)
def test_a_failure_names_the_resource_it_failed_on(error: Exception, fault: AttemptFault) -> None:
    assert fault_of(error) == fault


def test_a_wrapped_failure_names_the_resource_of_its_cause() -> None:
    def wrapped(cause: Exception) -> InfrastructureError:
        try:
            raise cause
        except Exception as error:
            try:
                raise InfrastructureError(f"the referee failed: {error}") from error
            except InfrastructureError as wrapper:
                return wrapper

    assert fault_of(wrapped(OSError(errno.EROFS, "Read-only file system"))) == "storage"
    assert fault_of(wrapped(SandboxError("bwrap: setting up uid map"))) == "sandbox"


# --------------------------------------------------------------------------- shown to staff


def test_an_attempt_s_cause_survives_a_later_success_and_only_staff_see_it(
    ladder: Any, versions: list[Any], alice: Any, carol: Any
) -> None:
    match = failed(
        publish_match(
            match_create(ladder_id=ladder.pk, game=ladder.game, versions=versions, seed=1)
        ),
        AttemptFault.STORAGE,
        "OSError: [Errno 28] No space left on device",
    )
    taken = match_start(match=match)
    log = played_log(ladder, 1)
    outcomes = [
        SeatOutcome(seat=row["seat"], money=row["money"], rank=row["rank"])
        for row in log["referee"]["result"]
    ]
    done = match_finish(
        match=taken, outcomes=outcomes, game_log=json.dumps(log).encode(), attempt=2
    )
    assert done.error == ""  # the match's own field says the last attempt's

    staff = client_for(carol).get(f"/api/matches/{match.pk}/").json()
    history = staff["attempt_history"]
    assert [(a["number"], a["outcome"], a["fault"]) for a in history] == [
        (1, "failed", "storage"),
        (2, "finished", ""),
    ]
    assert history[0]["error"] == "OSError: [Errno 28] No space left on device"
    assert "attempt_history" not in client_for(alice).get(f"/api/matches/{match.pk}/").json()

    web = Client()
    web.force_login(carol)
    page = web.get(f"/matches/{match.pk}/").content.decode()
    assert 'id="attempts"' in page and "No space left on device" in page
    web.force_login(alice)
    page = web.get(f"/matches/{match.pk}/").content.decode()
    assert 'id="attempts"' not in page and "No space left" not in page

    web.force_login(carol)
    admin = web.get(f"/admin/matches/match/{match.pk}/change/").content.decode()
    assert "No space left on device" in admin and "Storage or disk space" in admin
