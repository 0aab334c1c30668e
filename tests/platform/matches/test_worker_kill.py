"""A worker killed with SIGKILL in the middle of a match: after a restart the match
is played to the end and rated exactly once.

Real processes: a Celery worker (prefork) on the test PostgreSQL database and
a Redis queue of its own; the slow bot runs in the sandbox, the house bot bare.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from arena.bots.models import VersionStatus
from arena.bots.services import bot_version_transition, bot_version_upload
from arena.ladders.flows import ladder_create
from arena.ladders.models import Rating, RatingChange
from arena.ladders.services import ratings_apply
from arena.ladders.tasks import match_run
from arena.matches.models import Match, MatchStatus
from arena.matches.services import match_create
from bots_sdk.launcher import HOUSE_DIR
from tests.platform.factories import BotFactory
from tests.platform.scenes import publish_match
from tests.platform.worker import (
    needs_redis,
    needs_shared_database,
    protocol_bot,
    redis_worker,
    wait_for,
)

pytestmark = [
    pytest.mark.slow,
    needs_shared_database,
    needs_redis,
    pytest.mark.django_db(transaction=True),
]

# About 20 decisions of 0.3 s: a match of 6 s or so, within 1 s a decision.
SLOW_BOT = protocol_bot(before="time.sleep(0.3)")


def active_version(owner: Any, name: str, code: bytes) -> Any:
    version = bot_version_upload(
        bot=BotFactory(owner=owner, name=name),
        filename=f"{name}.py",
        content=code,
    )
    bot_version_transition(version=version, to=VersionStatus.VALIDATING)
    return bot_version_transition(version=version, to=VersionStatus.ACTIVE)


def test_a_match_survives_a_killed_worker_and_is_rated_once(
    alice: Any, house: Any, media_root: Path, tmp_path: Path
) -> None:
    ladder = ladder_create(
        slug="slow-2", name="Slow", rules="classic", seats=2, time_bank_ms=60_000
    )
    sloth = active_version(alice, "sloth", SLOW_BOT)
    greedy = active_version(house, "greedy", (HOUSE_DIR / "greedy_bot.py").read_bytes())

    with redis_worker(tmp_path, media_root) as (first, restart):
        match = publish_match(
            match_create(ladder_id=ladder.pk, game=ladder.game, versions=[sloth, greedy])
        )

        def running() -> Match | None:
            current = Match.objects.get(pk=match.pk)
            return current if current.status == MatchStatus.RUNNING else None

        runner = wait_for(running, timeout=30, what="the worker to start the match").runner
        time.sleep(2)  # well into the game
        first.kill()
        lost = Match.objects.get(pk=match.pk)
        assert (lost.status, lost.attempts, lost.runner) == (MatchStatus.RUNNING, 1, runner)
        assert not RatingChange.objects.exists()

        second = restart()  # finds the match its host lost, queues it again and plays it

        def rated() -> Match | None:
            current = Match.objects.get(pk=match.pk)
            return current if current.rated_at is not None else None

        done = wait_for(rated, timeout=60, what="the match to be replayed and rated")

    assert (done.status, done.attempts) == (MatchStatus.FINISHED, 2)
    assert done.runner != runner
    assert "re-queued 1 matches lost by a previous worker" in second.log()
    assert RatingChange.objects.filter(match=done).count() == 2
    ratings = {r.bot_version_id: r for r in Rating.objects.all()}
    assert {r.rated_matches for r in ratings.values()} == {1}

    # The killed worker's message may still be delivered again; so may the rating.
    match_run(done.pk)
    ratings_apply(match=done)
    assert Match.objects.get(pk=done.pk).finished_at == done.finished_at
    assert RatingChange.objects.count() == 2
    assert {r.pk: r.rating for r in Rating.objects.all()} == {
        r.pk: r.rating for r in ratings.values()
    }
