"""A PostgreSQL blip under a real worker: its connections are cut in the middle of a match.

The worker cannot record the result, nor that the attempt failed. It does not
wait out the lease: the task retries with the attempt it gave up on, which is
failed at once, and the match is played again from the start, finished once
and rated once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.db import connection

from arena.ladders.flows import ladder_create
from arena.ladders.models import RatingChange
from arena.ladders.services import ratings_apply
from arena.matches.models import Match, MatchStatus
from arena.matches.services import match_create
from tests.platform.ladders.test_match_pipeline import player_bot
from tests.platform.scenes import publish_match

from .scenes import on_ladder
from .worker import needs_redis, needs_shared_database, protocol_bot, redis_worker, wait_for

pytestmark = [
    pytest.mark.slow,
    needs_shared_database,
    needs_redis,
    pytest.mark.django_db(transaction=True),
]

# About 0.2 s a decision: the game lasts a few seconds, time to cut the database under it.
THINKER = protocol_bot(prelude="import time", before="time.sleep(0.2)")


def cut_other_connections() -> int:
    """Terminate every other session on the test database, as a restart of the server would."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        (count,) = cursor.fetchone()
    return int(count)


def test_a_match_whose_database_vanished_mid_game_is_played_again_and_rated_once(
    alice: Any, bob: Any, media_root: Path, tmp_path: Path
) -> None:
    ladder = ladder_create(
        slug="classic-2", name="Classic 2", rules="classic", seats=2, time_bank_ms=60_000
    )
    thinkers = [player_bot(owner, f"thinker-{owner}", THINKER) for owner in (alice, bob)]
    with redis_worker(tmp_path, media_root, ARENA_MATCH_RETRY_BASE_SECONDS="1"):
        match = publish_match(match_create(**on_ladder(ladder), versions=thinkers))

        def running() -> bool:
            return Match.objects.get(pk=match.pk).status == MatchStatus.RUNNING

        wait_for(running, timeout=60, what="the worker to start the match")
        assert cut_other_connections() >= 1  # the worker's, and its heartbeat's

        def finished() -> Match | None:
            current = Match.objects.get(pk=match.pk)
            if current.status in (MatchStatus.FAILED_INFRA, MatchStatus.CANCELLED):
                raise AssertionError(f"the match was lost: {current.error}")
            return current if current.status == MatchStatus.FINISHED and current.rated_at else None

        # No beat runs here: without the worker giving up on its attempt, nothing would
        # fail it before the lease sweep, and the match would stay running.
        done = wait_for(finished, timeout=120, what="the match to be played again and rated")
    assert done.attempts == 2  # the cut attempt was failed, not waited out
    assert RatingChange.objects.filter(match=done).count() == 2
    assert ratings_apply(match=done) == []
