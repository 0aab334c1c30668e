"""Series: matches of the same bots played by one worker run, one process per bot.

A series is the scheduler's pick on a ladder: ``Ladder.series_games`` games
(each a match of its own: seed, log, forfeits, rating), seats rotating,
played in order at one table (``play.MatchTable``); a league table's games
are one too, each with its own seats and seed. Here in this process
with bots for real in the sandbox: processes started once per bot, a crash
forfeiting its own game only, an infrastructure failure retrying only the
games not recorded, duplicate deals played lane by lane so that no process
sees two games of one seed; then by a real worker on PostgreSQL and Redis.
"""

from __future__ import annotations

import json
import random
from collections import Counter, defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from django.db import IntegrityError, transaction
from django.test import Client
from django.utils import timezone

from arena.bots import sandboxing
from arena.bots.models import BotVersion
from arena.ladders.flows import ladder_create
from arena.ladders.matchmaking import SERIES_SHARE
from arena.ladders.models import Ladder, RatingChange
from arena.ladders.selectors import matchmaking_candidates
from arena.ladders.services import ladder_fill_queue, ratings_apply
from arena.ladders.tasks import matches_requeue_stale
from arena.leagues.models import GameStatus, League, LeagueFormat, LeagueGame, LeagueStatus
from arena.leagues.selectors import league_standings, seats_with_results
from arena.leagues.services import league_advance, league_create
from arena.matches import services
from arena.matches.models import ForfeitCause, Match, MatchStatus
from arena.matches.services import (
    MatchSetupError,
    Play,
    match_create_plays,
    match_create_series,
    match_start_series,
    matches_heartbeat,
    running,
)
from bots_sdk.protocol import Limits
from bots_sdk.sandbox import BotProcess, SandboxError
from tests.platform.api_support import client_for
from tests.platform.ladders.test_match_pipeline import house_bot, player_bot, stored_log
from tests.platform.scenes import enter, publish_matches, run_match
from tests.platform.worker import (
    SANDBOXED_BOT,
    needs_redis,
    needs_shared_database,
    protocol_bot,
    redis_worker,
    wait_for,
)

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

#: Plays like SANDBOXED_BOT, but its process dies at the first decision of the
#: series' game 2 (the referee numbers a table's games from 1).
CRASHES_IN_GAME_2 = protocol_bot(
    prelude="import os\nassert os.getuid() != 0 and os.uname().nodename == 'vegas-bot'",
    before='if message["game_id"] == 2: os._exit(3)',
)


def classic(seats: int, series_games: int, *, duplicate_deals: bool = False) -> Ladder:
    return ladder_create(
        slug=f"classic-{seats}",
        name=f"Classic {seats}",
        rules="classic",
        seats=seats,
        series_games=series_games,
        duplicate_deals=duplicate_deals,
    )


@pytest.fixture
def launches(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The name of every bot process the platform's launcher starts (for real)."""
    started: list[str] = []
    real = sandboxing.launch_bot

    def counting(spec: Any, limits: Limits) -> BotProcess:
        started.append(spec.name)
        return real(spec, limits)

    monkeypatch.setattr(sandboxing, "launch_bot", counting)
    return started


def referee_seats(match: Match) -> list[dict[str, Any]]:
    """The referee's record of each seat of ``match``, from its stored log."""
    seats: list[dict[str, Any]] = json.loads(stored_log(match))["referee"]["seats"]
    return seats


def seeds_per_process(played: list[Match]) -> dict[int, list[set[int]]]:
    """Per version, the seeds each of its processes played, following the games in play
    order (a new process starts where its seat has a start-up time); asserts none saw a
    seed twice."""
    seen: dict[int, list[set[int]]] = defaultdict(list)
    for game in played:
        records = referee_seats(game)
        for participant in game.participants.all():
            processes = seen[participant.bot_version_id]
            if records[participant.seat]["startup_ms"] is not None:
                processes.append(set())
            assert game.seed not in processes[-1], f"a process saw seed {game.seed} twice"
            processes[-1].add(game.seed)
    return seen


def in_play_order(matches: list[Match]) -> list[Match]:
    return sorted(
        Match.objects.filter(pk__in=[m.pk for m in matches]), key=lambda m: m.series_game or 0
    )


# --------------------------------------------------------------------------- creating


def test_a_series_is_its_games_with_rotating_seats_and_one_run_message(
    alice: Any, bob: Any, published_runs: list[int], django_capture_on_commit_callbacks: Any
) -> None:
    ladder = classic(3, 6)
    versions = [version_row(alice, "a"), version_row(bob, "b"), version_row(bob, "c")]

    with django_capture_on_commit_callbacks(execute=True):
        games = publish_matches(
            match_create_series(ladder_id=ladder.pk, game=ladder.game, versions=versions, units=6)
        )

    first = games[0]
    assert [(g.series_id, g.series_game) for g in games] == [(first.pk, n) for n in range(1, 7)]
    assert len({g.seed for g in games}) == 6 and all(g.deal_id is None for g in games)
    a, b, c = (v.pk for v in versions)
    seated = [
        list(g.participants.order_by("seat").values_list("bot_version_id", flat=True))
        for g in in_play_order(games)
    ]
    assert seated == [[a, b, c], [c, a, b], [b, c, a]] * 2
    # One message runs the whole series.
    assert published_runs == [first.pk]


def test_plays_make_a_series_of_their_own_seats_and_seeds_and_one_play_a_plain_match(
    alice: Any, bob: Any, published_runs: list[int], django_capture_on_commit_callbacks: Any
) -> None:
    ladder = classic(2, 1)
    a, b = version_row(alice, "a"), version_row(bob, "b")

    with django_capture_on_commit_callbacks(execute=True):
        games = publish_matches(
            match_create_plays(
                ladder_id=ladder.pk,
                game=ladder.game,
                plays=[Play([b, a], 7), Play([a, b], 7), Play([a, b], None)],
                rated=False,
            )
        )
        (alone,) = publish_matches(
            match_create_plays(ladder_id=ladder.pk, game=ladder.game, plays=[Play([a, b])])
        )
        # A ladder's series of one game is a plain match too.
        (single,) = publish_matches(
            match_create_series(ladder_id=ladder.pk, game=ladder.game, versions=[a, b], units=1)
        )

    first = games[0]
    assert [(g.series_id, g.series_game, g.rated) for g in games] == [
        (first.pk, n, False) for n in (1, 2, 3)
    ]
    seated = [
        list(g.participants.order_by("seat").values_list("bot_version_id", flat=True))
        for g in in_play_order(games)
    ]
    assert seated == [[b.pk, a.pk], [a.pk, b.pk], [a.pk, b.pk]]
    assert [g.seed for g in games[:2]] == [7, 7] and games[2].seed >= 0
    assert (alone.series_id, alone.series_game, single.series_id) == (None, None, None)
    assert published_runs == [first.pk, alone.pk, single.pk]
    # The games of a series are played by the same bots; nothing is created otherwise.
    c = version_row(bob, "c")
    with pytest.raises(MatchSetupError, match="played by the same bots"):
        publish_matches(
            match_create_plays(
                ladder_id=ladder.pk, game=ladder.game, plays=[Play([a, b]), Play([a, c])]
            )
        )
    assert Match.objects.count() == 5


def test_the_database_refuses_a_game_number_without_its_series(alice: Any, bob: Any) -> None:
    ladder = classic(2, 2)
    versions = [version_row(alice, "a"), version_row(bob, "b")]
    first, second = publish_matches(
        match_create_series(ladder_id=ladder.pk, game=ladder.game, versions=versions, units=2)
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        Match.objects.filter(pk=second.pk).update(series=None)
    with pytest.raises(IntegrityError), transaction.atomic():
        # Game 1 is the series' first match itself; a later game comes after it.
        Match.objects.filter(pk=first.pk).update(series=second)
    with pytest.raises(IntegrityError), transaction.atomic():
        Match.objects.filter(pk=second.pk).update(series_game=1)


def test_the_ladder_fill_queues_a_series_per_pick_counted_in_games_and_as_one_run(
    settings: Any, published_runs: list[int], django_capture_on_commit_callbacks: Any
) -> None:
    settings.ARENA_LADDER_QUEUE_TARGET = 4
    settings.ARENA_BOT_MAX_QUEUED = 1
    ladder = classic(2, 6)
    versions = [version_row(None, f"bot{i}") for i in range(4)]
    for version in versions:
        enter(version, ladder)
        settle(version, ladder)

    with django_capture_on_commit_callbacks(execute=True):
        created = publish_matches(ladder_fill_queue(ladder=ladder, rng=random.Random(3)))

    # A series of 6 is larger than the target of 4: one goes on an empty queue.
    assert len(created) == 6 and {m.series_id for m in created} == {created[0].pk}
    assert published_runs == [created[0].pk]
    counts = {c.version_id: (c.games, c.queued) for c in matchmaking_candidates(ladder=ladder)}
    playing = set(created[0].participants.values_list("bot_version_id", flat=True))
    assert {counts[v] for v in playing} == {(SETTLED + 6, 1)}  # six games, one run
    assert publish_matches(ladder_fill_queue(ladder=ladder)) == []  # the queue is full
    # Once the series runs, the other two bots get the next one; the two playing are
    # at their cap of one run.
    match_start_series(match=created[0])
    second = publish_matches(ladder_fill_queue(ladder=ladder))
    assert len(second) == 6
    assert set(second[0].participants.values_list("bot_version_id", flat=True)) == (
        {v.pk for v in versions} - playing
    )


def test_a_duplicate_ladder_queues_whole_deals_in_a_series_played_lane_by_lane(
    settings: Any,
) -> None:
    settings.ARENA_LADDER_QUEUE_TARGET = 1
    ladder = classic(2, 6, duplicate_deals=True)
    for i in range(2):
        version = version_row(None, f"bot{i}")
        enter(version, ladder)
        settle(version, ladder)

    created = publish_matches(ladder_fill_queue(ladder=ladder))

    # 6 games: three deals of two, game 1 of each deal, then game 2 of each.
    assert len(created) == 6
    order = [(m.series_game, m.deal_game, m.seed) for m in in_play_order(created)]
    seeds = [seed for _, _, seed in order[:3]]
    assert len(set(seeds)) == 3
    assert order == [(n + 1, 1, seeds[n]) for n in range(3)] + [
        (n + 4, 2, seeds[n]) for n in range(3)
    ]
    # A deal is rated once: each counts as one game.
    assert {c.games for c in matchmaking_candidates(ladder=ladder)} == {SETTLED + 3}


# --------------------------------------------------------------------------- playing


def test_a_series_plays_in_one_run_one_process_per_bot_each_game_rated_once(
    alice: Any, house: Any, launches: list[str], django_capture_on_commit_callbacks: Any
) -> None:
    ladder = classic(2, 4)
    shark, greedy = player_bot(alice, "shark", SANDBOXED_BOT), house_bot(house, "greedy")
    games = publish_matches(
        match_create_series(
            ladder_id=ladder.pk, game=ladder.game, versions=[shark, greedy], units=4
        )
    )

    with django_capture_on_commit_callbacks(execute=True):
        run_match(games[0])

    played = in_play_order(games)
    assert [(g.status, g.attempts) for g in played] == [(MatchStatus.FINISHED, 1)] * 4
    # Two processes for four games: each bot started once, in game 1.
    assert sorted(launches) == ["greedy v1", "shark v1"]
    started = [[seat["startup_ms"] is not None for seat in referee_seats(g)] for g in played]
    assert started == [[True, True], [False, False], [False, False], [False, False]]
    assert all(not seat["forfeited"] for g in played for seat in referee_seats(g))
    # Seats rotate: shark plays seat 0, then seat 1, ...
    assert [g.participants.get(bot_version=shark).seat for g in played] == [0, 1, 0, 1]
    for game in played:
        assert game.rated_at is not None
        assert RatingChange.objects.filter(match=game).count() == 2
        assert ratings_apply(match=game) == []  # once only
    assert shark.ratings.get().rated_matches == 4


def test_a_crash_in_game_2_forfeits_game_2_only_and_the_bot_plays_game_3(
    alice: Any, house: Any, launches: list[str], django_capture_on_commit_callbacks: Any
) -> None:
    ladder = classic(2, 3)
    crasher = player_bot(alice, "crasher", CRASHES_IN_GAME_2)
    greedy = house_bot(house, "greedy")
    games = publish_matches(
        match_create_series(
            ladder_id=ladder.pk, game=ladder.game, versions=[crasher, greedy], units=3
        )
    )

    with django_capture_on_commit_callbacks(execute=True):
        run_match(games[0])

    played = in_play_order(games)
    assert [g.status for g in played] == [MatchStatus.FINISHED] * 3
    forfeits = [g.participants.get(bot_version=crasher).forfeit for g in played]
    assert forfeits == ["", ForfeitCause.CRASHED, ""]
    assert [g.participants.get(bot_version=greedy).forfeit for g in played] == ["", "", ""]
    # The crasher got a fresh process for game 3; greedy kept its own.
    assert Counter(launches) == {"crasher v1": 2, "greedy v1": 1}
    crasher_seat = played[2].participants.get(bot_version=crasher).seat
    assert referee_seats(played[2])[crasher_seat]["startup_ms"] is not None
    assert all(RatingChange.objects.filter(match=g).count() == 2 for g in played)


def test_an_infrastructure_failure_mid_series_retries_only_the_games_not_recorded(
    alice: Any,
    house: Any,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    ladder = classic(2, 4)
    crasher = player_bot(alice, "crasher", CRASHES_IN_GAME_2)
    greedy = house_bot(house, "greedy")
    games = publish_matches(
        match_create_series(
            ladder_id=ladder.pk, game=ladder.game, versions=[crasher, greedy], units=4
        )
    )
    # Starting the crasher's fresh process for game 3 fails: the platform's fault.
    real, calls = sandboxing.launch_bot, []

    def third_launch_fails(spec: Any, limits: Limits) -> BotProcess:
        calls.append(spec.name)
        if len(calls) == 3:
            raise SandboxError("cannot create the bot's cgroup: No space left on device")
        return real(spec, limits)

    monkeypatch.setattr(sandboxing, "launch_bot", third_launch_fails)

    with django_capture_on_commit_callbacks() as retries:
        run_match(games[0])

    played = in_play_order(games)
    assert [(g.status, g.attempts) for g in played] == [
        (MatchStatus.FINISHED, 1),
        (MatchStatus.FINISHED, 1),
        (MatchStatus.QUEUED, 1),
        (MatchStatus.QUEUED, 1),
    ]
    assert all("No space left on device" in g.error for g in played[2:])
    assert all(g.rated_at is None for g in played[2:])
    # Games 1 and 2: their ratings (too short to publish a live feed, none to drop);
    # games 3 and 4: one retry message for both (one run), at once: the sandbox answers.
    assert len(retries) == 3
    assert not any(g.retry_at for g in played)
    # The retry (any of the failed games' messages) plays both, in one run.
    monkeypatch.setattr(sandboxing, "launch_bot", real)
    with django_capture_on_commit_callbacks(execute=True):
        run_match(played[3])
    played = in_play_order(games)
    assert [(g.status, g.attempts) for g in played] == [
        (MatchStatus.FINISHED, 1),
        (MatchStatus.FINISHED, 1),
        (MatchStatus.FINISHED, 2),
        (MatchStatus.FINISHED, 2),
    ]
    assert all(RatingChange.objects.filter(match=g).count() == 2 for g in played)


def test_a_deal_series_never_shows_one_process_two_games_of_a_seed(
    alice: Any, house: Any, launches: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ladder = classic(2, 6, duplicate_deals=True)
    shark, greedy = player_bot(alice, "shark", SANDBOXED_BOT), house_bot(house, "greedy")
    games = publish_matches(
        match_create_series(
            ladder_id=ladder.pk,
            game=ladder.game,
            versions=[shark, greedy],
            units=3,
            duplicate_deals=True,
        )
    )
    # Whether each game's log was sealed right after each game was recorded.
    sealed: list[dict[int, bool]] = []
    real_finish = services.match_finish

    def finish(**kwargs: Any) -> Match:
        finished = real_finish(**kwargs)
        sealed.append({g.pk: g.sealed for g in Match.objects.filter(pk__in=ids)})
        return finished

    ids = [g.pk for g in games]
    monkeypatch.setattr(running, "match_finish", finish)

    run_match(games[0])

    played = in_play_order(games)
    assert all(g.status == MatchStatus.FINISHED for g in played)
    # Follow each bot's processes through the games: a new one starts where its seat
    # has a start-up time. No process may meet a seed twice.
    seen = seeds_per_process(played)
    # Lane by lane: one process per bot per lane, each playing a game of every deal.
    assert {version: len(p) for version, p in seen.items()} == {shark.pk: 2, greedy.pk: 2}
    assert len(launches) == 4
    assert all(len(seeds) == 3 for processes in seen.values() for seeds in processes)
    # A deal's first game stays sealed until its second game is recorded (lane 2).
    deal_1 = played[0]
    assert [after[deal_1.pk] for after in sealed] == [True, True, True, False, False, False]


def test_a_redelivered_message_and_the_sweeps_leave_a_running_series_alone(
    alice: Any, bob: Any, settings: Any
) -> None:
    ladder = classic(2, 3)
    versions = [version_row(alice, "a"), version_row(bob, "b")]
    games = publish_matches(
        match_create_series(ladder_id=ladder.pk, game=ladder.game, versions=versions, units=3)
    )
    started = match_start_series(match=games[1])  # a message for game 2 took them all
    assert [(g.series_game, g.status, g.attempts) for g in started] == [
        (1, MatchStatus.RUNNING, 1),
        (2, MatchStatus.RUNNING, 1),
        (3, MatchStatus.RUNNING, 1),
    ]

    # Its worker (this process) is alive: a redelivery and the sweep change nothing.
    assert run_match(games[2]).status == MatchStatus.RUNNING
    assert matches_requeue_stale() == 0
    # One heartbeat covers every game of the series.
    silent = timezone.now() - timedelta(seconds=settings.ARENA_MATCH_LEASE_SECONDS + 1)
    Match.objects.filter(pk__in=[g.pk for g in games]).update(heartbeat_at=silent)
    assert matches_heartbeat(attempts={g.pk: g.attempts for g in started}) == 3
    assert matches_requeue_stale() == 0
    # Silent past the lease, the sweep fails each game's attempt, and queues each again.
    Match.objects.filter(pk__in=[g.pk for g in games]).update(heartbeat_at=silent)
    assert matches_requeue_stale() == 3
    assert set(
        Match.objects.filter(pk__in=[g.pk for g in games]).values_list("status", flat=True)
    ) == {MatchStatus.QUEUED}


# --------------------------------------------------------------------------- leagues

T0 = datetime(2031, 3, 1, 18, 0, tzinfo=UTC)


def league_of(
    organiser: Any,
    ladder: Ladder,
    versions: list[BotVersion],
    slug: str = "series-cup",
    **options: Any,
) -> League:
    """A round robin of ``versions``' bots whose first round starts (and is queued) at T0."""
    league = league_create(
        organiser=organiser,
        ladder=ladder,
        name="Series cup",
        slug=slug,
        format=LeagueFormat.ROUND_ROBIN,
        start_at=T0,
        round_interval=timedelta(days=1),
        bots=[v.bot for v in versions],
        now=T0 - timedelta(days=1),
        **options,
    )
    league_advance(league=league, now=T0)
    return league


def tables_of(league: League, round_number: int = 1) -> dict[int, list[LeagueGame]]:
    """The round's games by table, in game number order."""
    tables: dict[int, list[LeagueGame]] = {}
    for game in LeagueGame.objects.filter(
        fixture__round__league=league, fixture__round__number=round_number
    ).order_by("fixture__table", "number"):
        tables.setdefault(game.fixture_id, []).append(game)
    return tables


def seated_versions(game: LeagueGame) -> list[int]:
    """The frozen versions the league seats at ``game``, in seat order."""
    return list(game.seats.order_by("seat").values_list("entry__bot_version_id", flat=True))


def match_versions(match: Match) -> list[int]:
    return list(match.participants.order_by("seat").values_list("bot_version_id", flat=True))


def test_a_league_table_is_one_series_each_game_with_its_seats_and_seed(
    carol: Any, published_runs: list[int], django_capture_on_commit_callbacks: Any
) -> None:
    ladder = classic(2, 12)
    versions = [version_row(carol, f"bot{i}") for i in range(4)]
    with django_capture_on_commit_callbacks(execute=True):
        league = league_of(carol, ladder, versions, games_per_table=3)

    tables = tables_of(league)
    assert [len(games) for games in tables.values()] == [3, 3]
    firsts = []
    for games in tables.values():
        assert all(g.status == GameStatus.QUEUED and g.match is not None for g in games)
        matches = [g.match for g in games if g.match is not None]
        first = matches[0]
        firsts.append(first.pk)
        # In game number order, each game its own seats and seed, unrated as the ladder's.
        assert [(m.series_id, m.series_game) for m in matches] == [
            (first.pk, 1),
            (first.pk, 2),
            (first.pk, 3),
        ]
        assert [m.seed for m in matches] == [g.seed for g in games]
        assert len({g.seed for g in games}) == 3
        assert [match_versions(m) for m in matches] == [seated_versions(g) for g in games]
        assert len({tuple(seated_versions(g)) for g in games}) == 2  # seats rotate
    # One run message per table.
    assert published_runs == firsts


def test_a_duplicate_league_table_is_a_series_lane_by_lane_and_one_game_a_plain_match(
    carol: Any, published_runs: list[int], django_capture_on_commit_callbacks: Any
) -> None:
    ladder = classic(2, 12)
    versions = [version_row(carol, f"bot{i}") for i in range(2)]
    with django_capture_on_commit_callbacks(execute=True):
        league = league_of(carol, ladder, versions, games_per_table=2, duplicate=True)

    (games,) = tables_of(league).values()
    assert [(g.number, g.deal) for g in games] == [(0, 0), (1, 0), (2, 1), (3, 1)]
    matches = [g.match for g in games if g.match is not None]
    # Every deal's first game, then every deal's second: each lane sees each seed once.
    assert [m.series_game for m in matches] == [1, 3, 2, 4]
    assert {m.series_id for m in matches} == {matches[0].pk}
    assert [m.seed for m in matches] == [g.seed for g in games]
    assert games[0].seed == games[1].seed != games[2].seed == games[3].seed
    assert [match_versions(m) for m in matches] == [seated_versions(g) for g in games]
    assert published_runs == [matches[0].pk]

    # A table of one game: a plain match.
    published_runs.clear()
    with django_capture_on_commit_callbacks(execute=True):
        single = league_of(carol, ladder, versions, "single", games_per_table=1)
    ((game,),) = tables_of(single).values()
    assert game.match is not None and game.match.series_id is None
    assert game.match.seed == game.seed and published_runs == [game.match.pk]


def test_a_league_table_plays_in_one_run_a_crash_forfeiting_its_own_game_only(
    alice: Any,
    carol: Any,
    house: Any,
    launches: list[str],
    django_capture_on_commit_callbacks: Any,
) -> None:
    ladder = classic(2, 12)
    crasher = player_bot(alice, "crasher", CRASHES_IN_GAME_2)
    greedy = house_bot(house, "greedy")
    league = league_of(carol, ladder, [crasher, greedy], games_per_table=3)
    (games,) = tables_of(league).values()
    first = games[0].match
    assert first is not None

    with django_capture_on_commit_callbacks(execute=True):
        run_match(first)

    played = in_play_order([g.match for g in games if g.match is not None])
    assert [(g.status, g.attempts) for g in played] == [(MatchStatus.FINISHED, 1)] * 3
    assert [m.seed for m in played] == [g.seed for g in games]
    forfeits = [g.participants.get(bot_version=crasher).forfeit for g in played]
    assert forfeits == ["", ForfeitCause.CRASHED, ""]
    # Greedy's one process played all three games; the crasher's second took game 3.
    assert Counter(launches) == {"crasher v1": 2, "greedy v1": 1}
    assert all(RatingChange.objects.filter(match=g).count() == 2 for g in played)

    # The league reads each game's result from its match, as when played alone.
    league_advance(league=league, now=T0 + timedelta(minutes=1))
    league.refresh_from_db()
    assert league.status == LeagueStatus.FINISHED
    seats = seats_with_results(LeagueGame.objects.get(pk=games[0].pk).seats.all())
    assert {s.result_forfeit for s in seats} == {False}
    points = dict.fromkeys((crasher.pk, greedy.pk), 0.0)
    money = dict.fromkeys((crasher.pk, greedy.pk), 0)
    for match in played:
        for participant in match.participants.all():
            points[participant.bot_version_id] += league.points_per_rank[participant.rank - 1]
            money[participant.bot_version_id] += participant.money
    standings = {s.entry.bot_version_id: s for s in league_standings(league=league)}
    assert {v: (s.games, s.points, s.money) for v, s in standings.items()} == {
        v: (3, points[v], money[v]) for v in points
    }
    assert (standings[crasher.pk].forfeits, standings[greedy.pk].forfeits) == (1, 0)
    assert standings[greedy.pk].position == 1  # two wins at least: the crasher's forfeit


def test_a_duplicate_league_table_starts_a_process_per_bot_per_lane(
    alice: Any, carol: Any, house: Any, launches: list[str]
) -> None:
    ladder = classic(2, 12)
    shark, greedy = player_bot(alice, "shark", SANDBOXED_BOT), house_bot(house, "greedy")
    league = league_of(carol, ladder, [shark, greedy], games_per_table=3, duplicate=True)
    (games,) = tables_of(league).values()

    run_match(in_play_order([g.match for g in games if g.match is not None])[0])

    played = in_play_order([g.match for g in games if g.match is not None])
    assert [g.status for g in played] == [MatchStatus.FINISHED] * 6
    assert [[seat["forfeited"] for seat in referee_seats(g)] for g in played] == [
        [False, False]
    ] * 6
    # Three deals of two games: two processes per bot (one a lane), none seeing a seed
    # twice; in game number order it would take four (a fresh one at each repeated seed).
    assert Counter(launches) == {"shark v1": 2, "greedy v1": 2}
    seen = seeds_per_process(played)
    assert {version: len(p) for version, p in seen.items()} == {shark.pk: 2, greedy.pk: 2}


# --------------------------------------------------------------------------- API and pages


def test_staff_set_the_games_per_series_and_the_api_and_pages_show_the_series(
    alice: Any, bob: Any, carol: Any, house: Any
) -> None:
    staff = client_for(carol)
    fields = {"slug": "classic-3", "name": "Classic 3", "rules": "classic", "seats": 3}

    refused = staff.post("/api/ladders/", {**fields, "series_games": 65}, format="json")
    assert refused.status_code == 400
    assert refused.json()["detail"].startswith("games per series must be 1-64, got 65")
    created = staff.post("/api/ladders/", {**fields, "series_games": 6}, format="json")
    assert created.status_code == 201, created.content
    assert created.json()["series_games"] == 6
    ladder = Ladder.objects.get(slug="classic-3")
    default = staff.post("/api/ladders/", {**fields, "slug": "other"}, format="json").json()
    assert default["series_games"] == 12

    versions = [version_row(alice, "a"), version_row(bob, "b"), version_row(bob, "c")]
    games = publish_matches(
        match_create_series(ladder_id=ladder.pk, game=ladder.game, versions=versions, units=6)
    )
    shown = client_for().get(f"/api/matches/{games[2].pk}/").json()
    assert (shown["series"], shown["series_game"]) == (games[0].pk, 3)
    page = Client().get(f"/matches/{games[2].pk}/").content.decode()
    assert f'game 3 of series <a href="/matches/{games[0].pk}/">#{games[0].pk}</a>' in page
    ladder_page = Client().get("/ladders/classic-3/").content.decode()
    assert "Played in series of 6 games" in ladder_page


# --------------------------------------------------------------------------- a real worker


@needs_shared_database
@needs_redis
@pytest.mark.django_db(transaction=True)
def test_a_worker_plays_the_series_the_ladder_queues(
    alice: Any, house: Any, settings: Any, media_root: Path, tmp_path: Path
) -> None:
    settings.ARENA_LADDER_QUEUE_TARGET = 4
    ladder = classic(2, 4)
    crasher = player_bot(alice, "crasher", CRASHES_IN_GAME_2)
    greedy = house_bot(house, "greedy")
    for version in (crasher, greedy):
        enter(version, ladder)
        settle(version, ladder)
    with redis_worker(tmp_path, media_root):
        games = publish_matches(ladder_fill_queue(ladder=ladder))
        assert len(games) == 4

        def rated() -> list[Match] | None:
            done = in_play_order(games)
            return done if all(g.rated_at is not None for g in done) else None

        played = wait_for(rated, timeout=90, what="the worker to play and rate the series")
    assert [(g.status, g.attempts) for g in played] == [(MatchStatus.FINISHED, 1)] * 4
    forfeits = [g.participants.get(bot_version=crasher).forfeit for g in played]
    assert forfeits == ["", ForfeitCause.CRASHED, "", ""]
    # Greedy's one process played all four games; the crasher's second took over in game 3.
    greedy_started = [
        referee_seats(g)[g.participants.get(bot_version=greedy).seat]["startup_ms"] is not None
        for g in played
    ]
    assert greedy_started == [True, False, False, False]
    assert all(RatingChange.objects.filter(match=g).count() == 2 for g in played)


# --------------------------------------------------------------------------- helpers


#: Rated games enough for a full series of up to 8 (a shorter one before: matchmaking.series_units).
SETTLED = SERIES_SHARE * 8


def settle(version: BotVersion, ladder: Ladder) -> None:
    """Give ``version`` a settled rating on ``ladder``, so its picks are full series."""
    from tests.platform.factories import RatingFactory

    RatingFactory(ladder=ladder, bot_version=version, rated_matches=SETTLED)


def version_row(owner: Any, name: str) -> BotVersion:
    """An active version row without code, for tests that never play."""
    from tests.platform.factories import BotFactory, BotVersionFactory

    bot = BotFactory(owner=owner, name=name) if owner is not None else BotFactory(name=name)
    version: BotVersion = BotVersionFactory(bot=bot)
    return version


@pytest.fixture
def published_runs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The match ids ``match_run`` is published for (the task does not run)."""
    from arena.ladders import tasks

    sent: list[int] = []
    real = tasks.match_run._get_current_object()

    def apply_async(self: Any, args: Any = (), kwargs: Any = None, **options: Any) -> None:
        sent.append(args[0])

    monkeypatch.setattr(type(real), "apply_async", apply_async)
    return sent
