"""A league end to end on a real Celery worker, with the clock driven by the test.

Real processes: a Celery worker (prefork) on the test PostgreSQL database and
a Redis queue of its own. The test sends beat's sweep of the leagues,
``leagues_advance_due``, with an explicit ``now`` (beat sends none: the
current time), so the worker runs exactly the code beat would run, at the
league time the test chooses. The worker starts each round at its time, plays its
matches (the uploaded bots in the sandbox, the house bots bare), rates them on
the ladder, and collects the results; the league finishes with a winner and a
bundle holding every game's log.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections import Counter, defaultdict
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from arena.bots.models import BotVersion, VersionStatus
from arena.bots.services import bot_version_upload
from arena.ladders.models import RatingChange
from arena.leagues.models import (
    EntryStatus,
    GameStatus,
    League,
    LeagueFormat,
    LeagueGame,
    LeagueGameSeat,
    LeagueStatus,
    RoundStatus,
)
from arena.leagues.selectors import league_standings, seats_with_results
from arena.leagues.services import league_create
from arena.leagues.tasks import leagues_advance
from arena.matches.models import ForfeitCause, Match, MatchStatus
from tests.dice_checks import compare_seat_dice, rolls_by_seat
from tests.platform.ladders.test_match_pipeline import (
    CHEAT_BOT,
    activate,
    classic_2,
    house_bot,
    player_bot,
    replay,
)
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
# Generous: the machine running the suite may be busy; a game takes well under a second.
PLAY_TIMEOUT = 120
MATCH_LOST = (MatchStatus.FAILED_INFRA, MatchStatus.CANCELLED)


def tick(worker: CeleryWorker, league: League, now: datetime) -> None:
    """The worker runs beat's league sweep at league time ``now``; waits until it did."""
    sent = leagues_advance.delay(now.isoformat())

    def done() -> bool:
        log = worker.log()
        if f"[{sent.id}] raised" in log:
            raise AssertionError(f"the league sweep failed on the worker:\n{log[-4000:]}")
        return f"[{sent.id}] succeeded" in log

    wait_for(done, timeout=60, what=f"the worker to sweep the leagues at {now:%H:%M:%S}")
    league.refresh_from_db()


def round_games(league: League, number: int) -> list[LeagueGame]:
    return list(
        LeagueGame.objects.filter(fixture__round__league=league, fixture__round__number=number)
        .select_related("match")
        .order_by("fixture__table", "number")
    )


def round_status(league: League) -> list[str]:
    return list(league.rounds.order_by("number").values_list("status", flat=True))


def played_and_rated(league: League, count: int) -> list[Match] | None:
    """The league's matches once ``count`` of them finished and were rated on the ladder."""
    matches = list(Match.objects.filter(league_game__fixture__round__league=league).order_by("pk"))
    failed = [(m.pk, m.status, m.error) for m in matches if m.status in MATCH_LOST]
    if failed:
        raise AssertionError(f"league matches were not played: {failed}")
    done = [m for m in matches if m.status == MatchStatus.FINISHED and m.rated_at is not None]
    return done if len(done) == count else None


def test_a_league_plays_on_the_worker_round_by_round_on_a_driven_clock(
    alice: Any, bob: Any, carol: Any, house: Any, media_root: Path, tmp_path: Path
) -> None:
    ladder = classic_2()
    greedy = house_bot(house, "greedy")
    randy = house_bot(house, "random")
    # shark crashes unless sandboxed: a clean seat proves it played in the sandbox.
    shark = player_bot(alice, "shark", SANDBOXED_BOT)
    cheat = player_bot(bob, "cheat", CHEAT_BOT)
    t0 = (timezone.now() + timedelta(days=1)).replace(second=0, microsecond=0)
    # Four entrants, two seats: three rounds of two tables, each table one duplicate deal
    # (the same seed from both seats): 12 matches.
    league = league_create(
        organiser=carol,
        ladder=ladder,
        name="Worker cup",
        slug="worker-cup",
        format=LeagueFormat.ROUND_ROBIN,
        start_at=t0,
        round_interval=HOUR,
        bots=[greedy.bot, randy.bot, shark.bot, cheat.bot],
        duplicate=True,
    )

    with redis_worker(tmp_path, media_root) as (worker, _):
        # A second before the start: nothing happens.
        tick(worker, league, t0 - timedelta(seconds=1))
        assert league.status == LeagueStatus.SCHEDULED
        assert not league.rounds.exists() and not Match.objects.exists()

        # At the start: versions frozen, the calendar stored, round 1 queued and played.
        tick(worker, league, t0)
        assert (league.status, league.started_at) == (LeagueStatus.RUNNING, t0)
        assert list(league.rounds.order_by("number").values_list("scheduled_at", flat=True)) == [
            t0,
            t0 + HOUR,
            t0 + 2 * HOUR,
        ]
        assert round_status(league) == ["running", "scheduled", "scheduled"]
        first = round_games(league, 1)
        assert len(first) == 4 and all(g.status == GameStatus.QUEUED for g in first)
        assert all(g.match is None for n in (2, 3) for g in round_games(league, n))
        wait_for(lambda: played_and_rated(league, 4), timeout=PLAY_TIMEOUT, what="round 1 played")

        # Alice uploads a newer shark: it retires the frozen version, which plays on.
        newer = activate(
            bot_version_upload(
                bot=shark.bot,
                filename="shark.py",
                content=SANDBOXED_BOT + b"\n",
            )
        )
        shark.refresh_from_db()
        assert shark.status == VersionStatus.RETIRED

        # A second before round 2: round 1's results are collected, round 2 waits.
        tick(worker, league, t0 + HOUR - timedelta(seconds=1))
        assert round_status(league) == ["finished", "scheduled", "scheduled"]
        assert all(g.status == GameStatus.FINISHED for g in round_games(league, 1))
        assert all(g.match is None for g in round_games(league, 2))
        assert Match.objects.count() == 4
        assert sorted(s.games for s in league_standings(league=league)) == [2, 2, 2, 2]

        tick(worker, league, t0 + HOUR)
        assert round_status(league) == ["finished", "running", "scheduled"]
        wait_for(lambda: played_and_rated(league, 8), timeout=PLAY_TIMEOUT, what="round 2 played")
        tick(worker, league, t0 + 2 * HOUR)
        assert round_status(league) == ["finished", "finished", "running"]
        matches = wait_for(
            lambda: played_and_rated(league, 12), timeout=PLAY_TIMEOUT, what="round 3 played"
        )
        # The next minute's tick collects the last round and finishes the league.
        tick(worker, league, t0 + 2 * HOUR + timedelta(minutes=1))
        assert "bot sandbox self-test passed" in worker.log()

    assert (league.status, league.finished_at) == (
        LeagueStatus.FINISHED,
        t0 + 2 * HOUR + timedelta(minutes=1),
    )
    assert round_status(league) == [RoundStatus.FINISHED] * 3
    frozen = dict(league.entries.values_list("pk", "bot_version_id"))
    assert set(frozen.values()) == {greedy.pk, randy.pk, shark.pk, cheat.pk}
    assert set(league.entries.values_list("status", flat=True)) == {EntryStatus.PLAYING}

    # Every game was played once by the worker; each seat holds the frozen version and the
    # league reads the match's result.
    by_match = {m.pk: m for m in matches}
    seats = seats_with_results(
        LeagueGameSeat.objects.filter(game__fixture__round__league=league)
    ).select_related("game", "entry")
    deals: dict[int, list[LeagueGame]] = defaultdict(list)
    for seat in seats:
        match = by_match[seat.game.match_id]
        assert (match.attempts, match.rated, seat.game.status) == (1, True, GameStatus.FINISHED)
        participant = match.participants.get(seat=seat.seat)
        assert participant.bot_version_id == frozen[seat.entry_id]
        assert (seat.result_money, seat.result_rank, seat.result_forfeit) == (
            participant.money,
            participant.rank,
            bool(participant.forfeit),
        )
        if participant.bot_version_id == cheat.pk:
            assert participant.forfeit == ForfeitCause.ILLEGAL_ACTION
        else:
            assert participant.forfeit == ""
        if seat.seat == 0:
            deals[seat.game.fixture_id].append(seat.game)
    # A duplicate deal: both games of a table share the seed, each bot once in each seat.
    assert len(deals) == 6
    for games in deals.values():
        assert len(games) == 2 and games[0].seed == games[1].seed
        assert {g.match.seed for g in games if g.match} == {games[0].seed}
        # A table's games are one series, played by one worker run.
        series = sorted((g.match.series_id, g.match.series_game) for g in games if g.match)
        first = min(g.match_id for g in games if g.match_id)
        assert series == [(first, 1), (first, 2)]
    assert not newer.participations.exists()
    # Rated league: every game counts on the ladder's Elo, two changes a match.
    assert RatingChange.objects.filter(match__in=matches).count() == 24

    # The standings: three deals each, the cheat (a forfeit in every deal) last with 0 points.
    standings = list(league_standings(league=league))
    assert [s.position for s in standings] == [1, 2, 3, 4]
    assert all((s.games, s.results) == (6, 3) for s in standings)
    assert sum(s.points for s in standings) == 6  # a point per deal
    last = standings[-1]
    assert (last.entry.bot_version_id, last.forfeits, last.points) == (cheat.pk, 3, 0)
    assert league.winner_id == standings[0].entry_id

    # The bundle: the league, its fixtures and every game's log, which the engine replays.
    response = APIClient().get(f"/api/leagues/{league.slug}/bundle/")
    assert response.status_code == 200
    data = b"".join(response.streaming_content)  # type: ignore[attr-defined]
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        summary = json.loads(archive.read("league.json"))
        assert summary["league"]["winner"] == standings[0].entry.bot.name
        assert {e["bot"]: e["version"] for e in summary["entries"]} == {
            "greedy": 1,
            "random": 1,
            "shark": 1,
            "cheat": 1,
        }
        logs = {
            int(name.rsplit("-match-", 1)[1].removesuffix(".json")): name
            for name in archive.namelist()
            if name.startswith("logs/")
        }
        assert sorted(logs) == sorted(by_match)
        rounds = Counter(name.split("/")[1] for name in logs.values())
        assert rounds == {"round-001": 4, "round-002": 4, "round-003": 4}
        rolls = {}
        for match_id, name in logs.items():
            log = archive.read(name)
            assert json.loads(log)["seed"] == by_match[match_id].seed
            assert "replay ok" in replay(log, tmp_path)
            rolls[match_id] = rolls_by_seat(json.loads(log)["events"])
    # The same dice from each seat in both games of every deal, whoever sat there.
    compared = Counter[str]()
    for games in deals.values():
        compared += compare_seat_dice([rolls[g.match_id] for g in games if g.match_id])
    assert compared["same size"] >= 6 * 2 * 4  # at least each seat's first roll of each round
    assert BotVersion.objects.get(pk=shark.pk).status == VersionStatus.RETIRED
