"""Matches: creation, the status machine, stored logs, retries, rating after finish."""

from __future__ import annotations

import gzip
from datetime import timedelta
from typing import Any

import pytest
from django.core.files.storage import default_storage
from django.utils import timezone

from arena.bots.models import VersionStatus
from arena.ladders.models import Rating
from arena.ladders.tasks import matches_requeue_stale, ratings_apply_match
from arena.matches.models import ForfeitCause, Match, MatchStatus
from arena.matches.outcomes import SeatOutcome
from arena.matches.services import (
    MatchResultError,
    MatchSetupError,
    MatchTransitionError,
    match_cancel,
    match_create,
    match_fail,
    match_finish,
    match_start,
)
from tests.platform.factories import BotFactory, BotVersionFactory, LadderFactory
from tests.platform.scenes import publish_match
from tests.platform.stored import stored_files

pytestmark = pytest.mark.django_db

LOG = b'{"log_schema":1,"rules":"classic","events":[]}'


@pytest.fixture
def ladder() -> Any:
    return LadderFactory(slug="classic-2")


@pytest.fixture
def versions(alice: Any, bob: Any) -> list[Any]:
    return [
        BotVersionFactory(bot=BotFactory(owner=alice, name="shark")),
        BotVersionFactory(bot=BotFactory(owner=bob, name="turtle")),
    ]


def test_create_seats_the_versions_in_order(ladder: Any, versions: list[Any]) -> None:
    match = publish_match(
        match_create(ladder_id=ladder.pk, game=ladder.game, versions=versions, seed=7)
    )

    assert (match.status, match.seed, match.attempts) == (MatchStatus.QUEUED, 7, 0)
    seats = list(match.participants.order_by("seat").values_list("seat", "bot_version"))
    assert seats == [(0, versions[0].pk), (1, versions[1].pk)]


def test_create_draws_a_seed_the_engine_accepts(ladder: Any, versions: list[Any]) -> None:
    match = publish_match(match_create(ladder_id=ladder.pk, game=ladder.game, versions=versions))
    assert 0 <= match.seed < 2**63


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ("seats", "plays 2 seats, got 1"),
        ("inactive", "only active versions play"),
    ],
)
def test_create_refuses_a_bad_setup(
    ladder: Any, versions: list[Any], change: str, words: str
) -> None:
    if change == "seats":
        versions = versions[:1]
    else:
        versions[1].status = VersionStatus.RETIRED
    with pytest.raises(MatchSetupError, match=words):
        publish_match(match_create(ladder_id=ladder.pk, game=ladder.game, versions=versions))


def test_a_league_may_seat_a_retired_version_but_never_a_failed_one(
    ladder: Any, versions: list[Any]
) -> None:
    versions[1].status = VersionStatus.RETIRED
    match = publish_match(
        match_create(
            ladder_id=ladder.pk,
            game=ladder.game,
            versions=versions,
            rated=False,
            allow_retired=True,
        )
    )
    assert (match.status, match.rated) == (MatchStatus.QUEUED, False)

    versions[1].status = VersionStatus.FAILED
    with pytest.raises(MatchSetupError, match=r"only active or retired versions play.*\(failed\)"):
        publish_match(
            match_create(
                ladder_id=ladder.pk, game=ladder.game, versions=versions, allow_retired=True
            )
        )


def test_a_played_match_stores_results_and_its_compressed_log_then_is_rated(
    ladder: Any, versions: list[Any], django_capture_on_commit_callbacks: Any
) -> None:
    match = match_start(
        match=publish_match(
            match_create(ladder_id=ladder.pk, game=ladder.game, versions=versions, seed=1)
        )
    )
    assert (match.status, match.attempts) == (MatchStatus.RUNNING, 1)

    with django_capture_on_commit_callbacks(execute=True):
        match = match_finish(
            match=match,
            outcomes=[
                SeatOutcome(seat=0, money=310_000, rank=1),
                SeatOutcome(seat=1, money=0, rank=2, forfeit=ForfeitCause.TIMEOUT),
            ],
            game_log=LOG,
        )

    assert match.status == MatchStatus.FINISHED and match.finished_at is not None
    with default_storage.open(match.log.name, "rb") as handle:
        assert gzip.decompress(handle.read()) == LOG
    assert match.log_size == len(gzip.compress(LOG, mtime=0))
    loser = match.participants.get(seat=1)
    assert (loser.money, loser.rank, loser.forfeit) == (0, 2, ForfeitCause.TIMEOUT)
    # Its rating is the task's to queue once the game is recorded (tasks.match_run).
    assert match.rated_at is None
    ratings_apply_match(match.pk)
    match.refresh_from_db()
    assert match.rated_at is not None
    assert Rating.objects.get(bot_version=versions[0]).rating == 1570.0
    assert loser.__class__.objects.get(pk=loser.pk).rating_after == 1430.0


@pytest.mark.parametrize(
    ("outcomes", "words"),
    [
        ([SeatOutcome(0, 0, 1)], "results for seats \\[0\\], expected \\[0, 1\\]"),
        ([SeatOutcome(0, 0, 1), SeatOutcome(1, 0, 3)], "rank 3, expected 1-2"),
    ],
)
def test_finish_checks_the_results(
    ladder: Any, versions: list[Any], outcomes: list[SeatOutcome], words: str
) -> None:
    match = match_start(
        match=publish_match(match_create(ladder_id=ladder.pk, game=ladder.game, versions=versions))
    )
    with pytest.raises(MatchResultError, match=words):
        match_finish(match=match, outcomes=outcomes, game_log=LOG)
    assert Match.objects.get(pk=match.pk).status == MatchStatus.RUNNING
    assert stored_files() == []


def test_a_queued_match_cannot_finish(ladder: Any, versions: list[Any]) -> None:
    match = publish_match(match_create(ladder_id=ladder.pk, game=ladder.game, versions=versions))
    with pytest.raises(MatchTransitionError, match="queued: it cannot become finished"):
        match_finish(
            match=match, outcomes=[SeatOutcome(0, 0, 1), SeatOutcome(1, 0, 2)], game_log=LOG
        )
    # Refused before anything was stored.
    assert stored_files() == []


def test_infrastructure_failures_retry_then_give_up(
    settings: Any, ladder: Any, versions: list[Any]
) -> None:
    settings.ARENA_MATCH_MAX_ATTEMPTS = 2
    match = publish_match(match_create(ladder_id=ladder.pk, game=ladder.game, versions=versions))

    match = match_fail(match=match_start(match=match), error="sandbox crashed")
    assert (match.status, match.attempts, match.error) == (MatchStatus.QUEUED, 1, "sandbox crashed")
    match = match_fail(match=match_start(match=match), error="sandbox crashed again")
    assert (match.status, match.attempts) == (MatchStatus.FAILED_INFRA, 2)
    with pytest.raises(MatchTransitionError):
        match_start(match=match)


def test_stale_running_matches_are_requeued(
    settings: Any, ladder: Any, versions: list[Any]
) -> None:
    stale = match_start(
        match=publish_match(match_create(ladder_id=ladder.pk, game=ladder.game, versions=versions))
    )
    fresh = match_start(
        match=publish_match(match_create(ladder_id=ladder.pk, game=ladder.game, versions=versions))
    )
    Match.objects.filter(pk=stale.pk).update(started_at=timezone.now() - timedelta(hours=2))

    assert matches_requeue_stale() == 1

    assert Match.objects.get(pk=stale.pk).status == MatchStatus.QUEUED
    assert Match.objects.get(pk=fresh.pk).status == MatchStatus.RUNNING


def test_cancel(ladder: Any, versions: list[Any]) -> None:
    match = match_cancel(
        match=publish_match(match_create(ladder_id=ladder.pk, game=ladder.game, versions=versions))
    )
    assert match.status == MatchStatus.CANCELLED
    with pytest.raises(MatchTransitionError, match="none \\(final\\)"):
        match_start(match=match)
