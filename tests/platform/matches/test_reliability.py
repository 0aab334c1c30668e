"""Outages and lost messages: nothing a user did is lost or turned into an error, nothing sticks.

A broker that is down when a committed request publishes its task, a message
lost on the way (the beat sweeps publish again), failed attempts retried over
minutes at most, no half-written log left behind.
"""

from __future__ import annotations

import errno
import logging
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.core.files.base import ContentFile
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import OperationalError as DatabaseOperationalError
from django.test import Client
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerOperationalError

from arena.bots.models import BotVersion
from arena.celery import app
from arena.ladders.models import Qualification, QualificationStatus
from arena.ladders.tasks import matches_republish_queued, qualifications_requeue_stuck, queue_rating
from arena.matches.models import Match, MatchStatus
from arena.matches.outcomes import SeatOutcome
from arena.matches.services import (
    match_create,
    match_fail,
    match_finish,
    match_start,
)
from arena.matches.services.attempts import _retry_delay
from tests.platform.api_support import GOOD, client_for
from tests.platform.conftest import _free_port
from tests.platform.factories import BotFactory, BotVersionFactory, LadderFactory
from tests.platform.scenes import publish_match, publish_matches, run_match
from tests.platform.stored import stored_files

pytestmark = pytest.mark.django_db


@pytest.fixture
def broker_down() -> Iterator[None]:
    """Tasks are published (not run eagerly) to a broker nobody listens on."""
    keys = ("task_always_eager", "broker_url", "broker_write_url", "task_publish_retry")
    keys += ("broker_transport_options",)
    saved = {key: app.conf[key] for key in keys}
    closed = f"redis://127.0.0.1:{_free_port()}/0"
    app.conf.update(
        task_always_eager=False,
        broker_url=closed,
        broker_write_url=closed,
        task_publish_retry=False,
        broker_transport_options={"max_retries": 0},  # fail at once, not after 12 s
    )
    app._pool = None
    app.amqp._producer_pool = None
    yield
    app.conf.update(saved)
    app._pool = None
    app.amqp._producer_pool = None


@pytest.fixture
def published(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, tuple[Any, ...]]]:
    """Record what is published instead of running it."""
    sent: list[tuple[str, tuple[Any, ...]]] = []

    def apply_async(self: Any, args: Any = (), kwargs: Any = None, **options: Any) -> None:
        sent.append((self.name, tuple(args)))

    monkeypatch.setattr("celery.app.task.Task.apply_async", apply_async)
    return sent


@pytest.fixture
def ladder() -> Any:
    return LadderFactory(slug="classic-2")


@pytest.fixture
def versions(alice: Any, bob: Any) -> list[Any]:
    return [
        BotVersionFactory(bot=BotFactory(owner=alice, name="shark")),
        BotVersionFactory(bot=BotFactory(owner=bob, name="turtle")),
    ]


# --------------------------------------------------------------------------- broker down


def test_an_upload_committed_while_the_broker_is_down_answers_201(
    alice: Any,
    ladder: Any,
    broker_down: None,
    caplog: pytest.LogCaptureFixture,
    django_capture_on_commit_callbacks: Any,
) -> None:
    caplog.set_level(logging.WARNING, logger="arena.queueing")
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = client_for(alice).post(
            "/api/bots/",
            {
                "name": "shark",
                "file": SimpleUploadedFile("shark.py", GOOD),
                "ladders": ["classic-2"],
            },
            format="multipart",
        )

    assert response.status_code == 201, response.content
    assert callbacks, "the pre-flight was to be queued after the commit"
    version = BotVersion.objects.get(bot__name="shark")
    assert f"arena.ladders.tasks.version_qualify({version.pk},)" in caplog.text
    # Left to the sweep: the version waits for its pre-flight.
    assert Qualification.objects.filter(
        bot_version=version, status=QualificationStatus.PENDING
    ).exists()


def test_a_match_and_its_rating_survive_a_broker_outage(
    ladder: Any,
    versions: list[Any],
    broker_down: None,
    caplog: pytest.LogCaptureFixture,
    django_capture_on_commit_callbacks: Any,
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        (match,) = publish_matches(
            [publish_match(match_create(ladder_id=ladder.pk, game=ladder.game, versions=versions))]
        )
    with django_capture_on_commit_callbacks(execute=True):
        finished = match_finish(
            match=match_start(match=match),
            outcomes=[SeatOutcome(0, 5, 1), SeatOutcome(1, 0, 2)],
            game_log=b"{}",
        )
        queue_rating(finished)  # as the worker's task does once a game is recorded

    assert Match.objects.get(pk=match.pk).status == MatchStatus.FINISHED
    assert f"arena.ladders.tasks.match_run({match.pk},)" in caplog.text
    assert f"arena.ladders.tasks.ratings_apply_match({match.pk},)" in caplog.text


def test_a_task_that_fails_in_eager_mode_still_raises(
    ladder: Any,
    versions: list[Any],
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    """Only the broker's errors are swallowed: a bug in a task still shows in tests."""

    def broken(**kwargs: Any) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr("arena.matches.services.match_run", broken)
    with (
        pytest.raises(RuntimeError, match="a bug"),
        django_capture_on_commit_callbacks(execute=True),
    ):
        publish_matches(
            [publish_match(match_create(ladder_id=ladder.pk, game=ladder.game, versions=versions))]
        )


# --------------------------------------------------------------------------- lost messages


def test_queued_matches_whose_message_was_lost_are_published_again(
    settings: Any, ladder: Any, versions: list[Any], published: list[Any]
) -> None:
    settings.ARENA_MATCH_REPUBLISH_SECONDS = 300
    lost = publish_match(match_create(ladder_id=ladder.pk, game=ladder.game, versions=versions))
    fresh = publish_match(match_create(ladder_id=ladder.pk, game=ladder.game, versions=versions))
    running = match_start(
        match=publish_match(match_create(ladder_id=ladder.pk, game=ladder.game, versions=versions))
    )
    long_ago = timezone.now() - timedelta(minutes=6)
    Match.objects.filter(pk__in=[lost.pk, running.pk]).update(queued_at=long_ago)

    with_commit = matches_republish_queued()

    assert with_commit == 1
    assert Match.objects.get(pk=lost.pk).queued_at > long_ago  # its clock restarted
    assert Match.objects.get(pk=fresh.pk).status == MatchStatus.QUEUED
    # Idempotent: the next sweep, a minute later, leaves it to the message just sent.
    assert matches_republish_queued() == 0


def test_the_republish_sweep_publishes_after_the_commit(
    settings: Any,
    ladder: Any,
    versions: list[Any],
    published: list[Any],
    django_capture_on_commit_callbacks: Any,
) -> None:
    lost = publish_match(match_create(ladder_id=ladder.pk, game=ladder.game, versions=versions))
    Match.objects.filter(pk=lost.pk).update(queued_at=timezone.now() - timedelta(hours=1))

    with django_capture_on_commit_callbacks(execute=True):
        assert matches_republish_queued() == 1

    assert published == [("arena.ladders.tasks.match_run", (lost.pk,))]


def test_a_retry_waiting_for_its_resource_is_not_republished(
    settings: Any, ladder: Any, versions: list[Any], published: list[Any]
) -> None:
    settings.ARENA_MATCH_REPUBLISH_SECONDS = 60
    match = publish_match(match_create(ladder_id=ladder.pk, game=ladder.game, versions=versions))
    Match.objects.filter(pk=match.pk).update(queued_at=timezone.now() - timedelta(hours=1))
    match_fail(match=match_start(match=match), error="disk full")
    Match.objects.filter(pk=match.pk).update(queued_at=timezone.now() - timedelta(hours=1))

    assert Match.objects.get(pk=match.pk).status == MatchStatus.QUEUED
    # The retry sweep publishes it (matches_retry_waiting), not the sweep of lost messages.
    assert matches_republish_queued() == 0


def test_a_pending_preflight_whose_message_was_lost_is_queued_again(
    alice: Any, ladder: Any, published: list[Any], django_capture_on_commit_callbacks: Any
) -> None:
    version = BotVersionFactory(bot=BotFactory(owner=alice, name="shark"))
    Qualification.objects.create(bot_version=version, ladder=ladder)
    Qualification.objects.filter(bot_version=version).update(
        created_at=timezone.now() - timedelta(minutes=11)
    )

    with django_capture_on_commit_callbacks(execute=True):
        assert qualifications_requeue_stuck() == 1

    assert published == [("arena.ladders.tasks.version_qualify", (version.pk,))]


def test_a_new_upload_whose_preflight_message_was_lost_is_queued_again(
    alice: Any, ladder: Any, published: list[Any], django_capture_on_commit_callbacks: Any
) -> None:
    """The case of an upload committed while the broker was down."""
    version = BotVersionFactory(bot=BotFactory(owner=alice, name="shark"), status="pending")
    Qualification.objects.create(bot_version=version, ladder=ladder)
    BotVersion.objects.filter(pk=version.pk).update(
        status_changed_at=timezone.now() - timedelta(minutes=11)
    )

    with django_capture_on_commit_callbacks(execute=True):
        assert qualifications_requeue_stuck() == 1

    assert published == [("arena.ladders.tasks.version_qualify", (version.pk,))]


# --------------------------------------------------------------------------- retries


def test_retries_back_off_over_minutes(settings: Any) -> None:
    from arena import settings as defaults

    # The defaults: a fault of an hour (a full disk, a restarting service) voids nothing.
    for name in ("RETRY_BASE_SECONDS", "RETRY_MAX_SECONDS", "MAX_ATTEMPTS"):
        setattr(settings, f"ARENA_MATCH_{name}", getattr(defaults, f"ARENA_MATCH_{name}"))
    delays = [_retry_delay(attempt) for attempt in range(1, settings.ARENA_MATCH_MAX_ATTEMPTS)]
    assert delays == [30, 120, 480, 1800, 1800]
    assert sum(delays) > 60 * 60


def test_a_failed_attempt_waits_for_its_resource_at_most_its_backoff(
    settings: Any,
    ladder: Any,
    versions: list[Any],
    published: list[Any],
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    settings.ARENA_MATCH_RETRY_BASE_SECONDS = 30

    def broken(table: Any) -> Any:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("arena.matches.play.MatchTable.__enter__", broken)
    # The disk is still full when the worker records the failure.
    monkeypatch.setattr("arena.matches.services.sweeps.resource_answers", lambda fault: False)
    match = publish_match(match_create(ladder_id=ladder.pk, game=ladder.game, versions=versions))
    published.clear()
    with django_capture_on_commit_callbacks(execute=True):
        match = run_match(match)

    assert (match.status, match.attempts) == (MatchStatus.QUEUED, 1)
    assert "No space left on device" in match.error
    assert published == []  # not retried while its resource fails
    assert match.retry_at is not None
    assert match.retry_at > timezone.now() + timedelta(seconds=25)  # the backoff's ceiling
    attempt = match.attempt_log.get()
    assert (attempt.outcome, attempt.fault) == ("failed", "storage")
    assert "No space left on device" in attempt.error


def test_an_attempt_whose_failure_could_not_be_recorded_is_failed_at_once_on_retry(
    ladder: Any, versions: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from django.db import OperationalError

    from arena.matches import services
    from arena.matches.services import running

    def broken(table: Any) -> Any:
        raise OSError(errno.ENOSPC, "No space left on device")

    real_fail = services.match_fail

    def fail_once(**kwargs: Any) -> Any:
        monkeypatch.setattr(running, "match_fail", real_fail)
        raise OperationalError("the database went away")

    monkeypatch.setattr("arena.matches.play.MatchTable.__enter__", broken)
    monkeypatch.setattr(running, "match_fail", fail_once)
    match = publish_match(match_create(ladder_id=ladder.pk, game=ladder.game, versions=versions))

    with pytest.raises(services.AttemptNotRecorded) as raised:
        services.match_run(match=match)
    assert raised.value.attempt == 1
    # Still running, heartbeat fresh, runner alive (this process): a plain redelivery
    # would wait for the lease; the task's retry names the attempt and fails it now.
    assert services.match_run(match=match).match.status == MatchStatus.RUNNING
    assert raised.value.error == "OSError: [Errno 28] No space left on device"
    monkeypatch.setattr("arena.matches.services.sweeps.resource_answers", lambda fault: False)
    run = services.match_run(match=match, abandoned_attempt=1, abandoned_error="OSError: ...")
    assert run.retries == []  # its resource does not answer yet: the retry sweep's
    again = run.match
    assert (again.status, again.attempts) == (MatchStatus.QUEUED, 1)
    attempt = again.attempt_log.get()
    assert (attempt.outcome, attempt.fault) == ("failed", "database")
    assert attempt.error.startswith("OSError: ...; then recording the failure failed")


def test_the_task_retries_with_the_abandoned_attempt(
    ladder: Any, versions: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.ladders import tasks
    from arena.matches import services

    calls: list[Any] = []

    def run(
        *, match: Any, on_finished: Any, abandoned_attempt: Any = None, abandoned_error: str = ""
    ) -> Any:
        calls.append((abandoned_attempt, abandoned_error))
        if abandoned_attempt is None:
            raise services.AttemptNotRecorded(match.pk, 1, "OSError: disk full")
        return services.MatchRun(match, retries=[])

    monkeypatch.setattr(services, "match_run", run)
    match = publish_match(match_create(ladder_id=ladder.pk, game=ladder.game, versions=versions))
    # Eager: the retry runs at once, in this process.
    tasks.match_run.apply(args=(match.pk,), throw=False)
    assert calls == [(None, ""), (1, "OSError: disk full")]


# --------------------------------------------------------------------------- orphan logs


def test_a_log_half_written_by_a_failed_save_is_deleted(
    ladder: Any, versions: list[Any], each_storage: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def disk_full(self: Any, chunk_size: Any = None) -> Any:
        raise OSError(errno.ENOSPC, "No space left on device")
        yield  # a generator, like the real one: the file is open before it fails

    monkeypatch.setattr(ContentFile, "chunks", disk_full)
    match = match_start(
        match=publish_match(match_create(ladder_id=ladder.pk, game=ladder.game, versions=versions))
    )

    with pytest.raises(OSError, match="No space left"):
        match_finish(
            match=match, outcomes=[SeatOutcome(0, 5, 1), SeatOutcome(1, 0, 2)], game_log=b"{}"
        )

    assert stored_files() == []
    assert Match.objects.get(pk=match.pk).status == MatchStatus.RUNNING


def test_a_failed_finish_never_deletes_the_log_of_the_attempt_that_won(
    ladder: Any, versions: list[Any], each_storage: str
) -> None:
    match = match_start(
        match=publish_match(match_create(ladder_id=ladder.pk, game=ladder.game, versions=versions))
    )
    outcomes = [SeatOutcome(0, 5, 1), SeatOutcome(1, 0, 2)]
    match_finish(match=match, outcomes=outcomes, game_log=b"{}", attempt=1)

    from arena.matches.services import MatchTransitionError

    with pytest.raises(MatchTransitionError):
        match_finish(match=match, outcomes=outcomes, game_log=b"{}", attempt=1)
    assert stored_files() == [Match.objects.get(pk=match.pk).log.name]


# --------------------------------------------------------------------------- outages over the API


def _raising(error: Exception) -> Any:
    def raise_it(*args: Any, **kwargs: Any) -> Any:
        raise error

    return raise_it


@pytest.mark.parametrize(
    "error",
    [
        DatabaseOperationalError("connection to server at 127.0.0.1 failed: Connection refused"),
        BrokerOperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused."),
    ],
    ids=["database", "broker"],
)
def test_an_outage_answers_a_json_503_with_retry_after(
    error: Exception, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("arena.matches.apis.match_list", _raising(error))

    response = client_for().get("/api/matches/")

    assert response.status_code == 503
    assert response["Content-Type"] == "application/json"
    assert response.json()["code"] == "unavailable" and "try again" in response.json()["detail"]
    assert response["Retry-After"] == "30"


def test_an_outage_outside_drf_views_under_api_is_json_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The database goes away while the session is read, before any DRF view.
    monkeypatch.setattr(
        "django.contrib.sessions.backends.db.SessionStore.load",
        _raising(DatabaseOperationalError("server closed the connection unexpectedly")),
    )
    monkeypatch.setattr(
        "django.contrib.auth.middleware.AuthenticationMiddleware.process_request",
        lambda self, request: request.session.load(),
    )
    client = Client(raise_request_exception=False)
    client.cookies["sessionid"] = "x" * 32

    api = client.get("/api/matches/")
    page = client.get("/")

    assert (api.status_code, api["Content-Type"], api.json()["code"]) == (
        503,
        "application/json",
        "unavailable",
    )
    assert api["Retry-After"] == "30"
    assert page.status_code == 503 and page["Retry-After"] == "30"


def test_a_bug_under_api_answers_json_500(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("arena.matches.apis.match_list", _raising(RuntimeError("a bug")))
    client = Client(raise_request_exception=False)

    response = client.get("/api/matches/")

    assert response.status_code == 500
    assert response.json() == {
        "code": "server_error",
        "detail": "An unexpected error occurred on our side.",
    }
