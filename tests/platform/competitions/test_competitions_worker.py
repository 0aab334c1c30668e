"""A competition end to end on a real Celery worker, with the clock driven by the test.

Real processes, as the leagues' worker test: a Celery worker (prefork) on the test
PostgreSQL database and a Redis queue of its own. The test sends beat's two sweeps,
``competitions_advance_due`` and ``leagues_advance_due``, with an explicit ``now``:
the worker opens and closes entry, freezes the versions, forms the final event, plays
its games in the sandbox, finishes it and archives the standings. The competition is
invitation-only: entering without the link's token is refused.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from celery import Task
from django.utils import timezone

from arena.bots.models import VersionStatus
from arena.bots.services import bot_version_upload
from arena.competitions.models import (
    Access,
    Competition,
    CompetitionEntry,
    CompetitionPlacing,
    Phase,
)
from arena.competitions.services import (
    CompetitionEntryError,
    LadderSettings,
    competition_create,
    competition_enter,
)
from arena.competitions.tasks import competitions_advance
from arena.leagues.models import League, LeagueGame, LeagueStatus
from arena.leagues.tasks import leagues_advance
from arena.matches.models import Match, MatchStatus, Participant
from tests.platform.ladders.test_match_pipeline import activate, player_bot
from tests.platform.worker import (
    SANDBOXED_BOT,
    CeleryWorker,
    needs_redis,
    needs_shared_database,
    redis_worker,
    wait_for,
)

pytestmark = [
    pytest.mark.slow,
    needs_shared_database,
    needs_redis,
    pytest.mark.django_db(transaction=True),
]

HOUR = timedelta(hours=1)
PLAY_TIMEOUT = 180


def sweep(worker: CeleryWorker, task: Task, now: datetime) -> None:  # type: ignore[type-arg]
    """The worker runs one of beat's sweeps at time ``now``; waits until it did."""
    sent = task.delay(now.isoformat())

    def done() -> bool:
        log = worker.log()
        if f"[{sent.id}] raised" in log:
            raise AssertionError(f"the sweep failed on the worker:\n{log[-4000:]}")
        return f"[{sent.id}] succeeded" in log

    wait_for(done, timeout=60, what=f"the worker to sweep at {now:%Y-%m-%d %H:%M}")


def both(worker: CeleryWorker, now: datetime) -> Competition:
    sweep(worker, competitions_advance, now)
    sweep(worker, leagues_advance, now)
    return Competition.objects.get(slug="worker-cup")


def final_played(league: League) -> list[Match] | None:
    """The final's matches once every one of them is finished (a series records its
    games one by one: the check waits for the last, not for a count seen on the way)."""
    matches = list(Match.objects.filter(league_game__fixture__round__league=league).order_by("pk"))
    lost = [(m.pk, m.status, m.error) for m in matches if m.status != MatchStatus.FINISHED]
    if any(status in (MatchStatus.FAILED_INFRA, MatchStatus.CANCELLED) for _, status, _ in lost):
        raise AssertionError(f"final matches were not played: {lost}")
    return matches if matches and not lost else None


def test_an_invitation_only_competition_runs_on_the_worker(
    alice: Any, bob: Any, carol: Any, media_root: Path, tmp_path: Path
) -> None:
    opens = (timezone.now() + timedelta(days=1)).replace(second=0, microsecond=0)
    closes, freeze = opens + timedelta(days=7), opens + timedelta(days=8)
    final = freeze + HOUR
    competition = competition_create(
        organiser=carol,
        slug="worker-cup",
        title="Worker cup",
        ladders=[LadderSettings(rules="classic", seats=2)],
        entry_opens_at=opens,
        entry_closes_at=closes,
        freeze_at=freeze,
        final_starts_at=final,
        round_interval=HOUR,
        access=Access.INVITATION,
    )
    # shark crashes unless sandboxed: clean seats prove the final played in the sandbox.
    shark = player_bot(alice, "shark", SANDBOXED_BOT)
    rival = player_bot(bob, "rival", SANDBOXED_BOT)

    with redis_worker(tmp_path, media_root) as (worker, _):
        competition = both(worker, opens - timedelta(seconds=1))
        assert competition.phase == Phase.DRAFT
        competition = both(worker, opens)
        assert competition.phase == Phase.ENTRY
        with pytest.raises(CompetitionEntryError, match="by invitation only"):
            competition_enter(competition=competition, bot=shark.bot, by=alice, now=opens)
        for version, owner in ((shark, alice), (rival, bob)):
            competition_enter(
                competition=competition,
                bot=version.bot,
                by=owner,
                token=competition.invitation_token,
                now=opens,
            )
        assert both(worker, closes).phase == Phase.SEASON
        competition = both(worker, freeze)
        assert competition.phase == Phase.FROZEN
        league = competition.ladders.get().league
        assert league is not None and league.status == LeagueStatus.SCHEDULED

        # Alice uploads after the freeze: the final plays the frozen version all the same.
        newer = activate(
            bot_version_upload(bot=shark.bot, filename="shark.py", content=SANDBOXED_BOT + b"\n")
        )
        shark.refresh_from_db()
        assert shark.status == VersionStatus.RETIRED

        # The final: one table, a deal per seat (the default), each played from both seats.
        competition = both(worker, final)
        assert competition.phase == Phase.FINAL
        try:
            matches = wait_for(
                lambda: final_played(league), timeout=PLAY_TIMEOUT, what="the final's games"
            )
        except AssertionError as error:
            states = list(Match.objects.values_list("pk", "status", "error"))
            log = worker.log()[-6000:]
            raise AssertionError(f"{error}; matches {states}; worker log:\n{log}") from error
        deals = LeagueGame.objects.filter(fixture__round__league=league).values_list(
            "deal", flat=True
        )
        assert (len(matches), sorted(deals)) == (4, [0, 0, 1, 1])
        # The next sweeps collect the results, finish the league and archive.
        later = final + timedelta(minutes=1)
        sweep(worker, leagues_advance, later)
        sweep(worker, competitions_advance, later)
        assert "bot sandbox self-test passed" in worker.log()

    competition.refresh_from_db()
    assert (competition.phase, competition.archived_at) == (Phase.ARCHIVED, later)
    league.refresh_from_db()
    assert league.status == LeagueStatus.FINISHED
    played = set(
        Participant.objects.filter(match__in=matches).values_list("bot_version_id", flat=True)
    )
    assert played == {shark.pk, rival.pk} and newer.pk not in played
    assert not Participant.objects.filter(match__in=matches).exclude(forfeit="").exists()
    assert set(CompetitionEntry.objects.values_list("frozen_version_id", flat=True)) == {
        shark.pk,
        rival.pk,
    }
    placings = list(CompetitionPlacing.objects.order_by("rank"))
    assert [p.rank for p in placings] == [1, 2]
    assert {(p.bot_name, p.owner_username, p.version_number) for p in placings} == {
        ("shark", "alice", 1),
        ("rival", "bob", 1),
    }
    assert not competition.ladders.get().ladder.is_open
