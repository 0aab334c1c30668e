"""Leagues on the database: calendar, formats, duplicate deals, forfeits, organiser controls.

Games are played with the engine's policies and recorded through the matches
services, as a worker would; the clock is driven through ``now`` parameters
(or a patched ``timezone.now`` for the beat task).
"""

from __future__ import annotations

import io
import itertools
import json
import zipfile
from collections import Counter, defaultdict
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any
from unittest import mock

import pytest
from django.conf import settings
from django_celery_beat.models import PeriodicTask

import vegas_engine
from arena.bots.models import Bot, BotVersion, VersionStatus, Visibility
from arena.bots.services import bot_version_transition
from arena.ladders.elo import k_factor
from arena.ladders.models import Ladder, Rating, RatingChange
from arena.ladders.services import ratings_apply
from arena.leagues import formats
from arena.leagues.models import (
    EntryStatus,
    GameStatus,
    League,
    LeagueBye,
    LeagueEntry,
    LeagueFormat,
    LeagueGame,
    LeagueGameSeat,
    LeagueStatus,
    LeagueVisibility,
    RoundStatus,
)
from arena.leagues.selectors import league_bundle, league_standings, seats_with_results
from arena.leagues.services import (
    LeagueConfigError,
    LeagueEntryError,
    LeagueTransitionError,
    league_advance,
    league_cancel,
    league_create,
    league_entry_add,
    league_entry_remove,
    league_entry_respond,
    league_pause,
    league_resume,
    leagues_advance_due,
)
from arena.leagues.tasks import league_tick, leagues_advance
from arena.matches.models import ForfeitCause, Match, MatchStatus
from arena.matches.outcomes import SeatOutcome
from arena.matches.services import match_finish, match_start
from arena.players.models import User
from bots_sdk.referee import standings as referee_standings
from tests.platform.factories import BotVersionFactory, LadderFactory, RatingFactory
from tests.platform.leagues.test_leagues_formats import _min_repeats
from vegas_engine.log import dumps, game_log
from vegas_engine.policies import Policy, greedy_policy, play, random_policy
from vegas_engine.state import State

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

T0 = datetime(2031, 3, 1, 18, 0, tzinfo=UTC)
DAY = timedelta(days=1)
CREATED = T0 - DAY


@pytest.fixture
def ladder(db: None) -> Ladder:
    return LadderFactory(slug="classic-4", rules="classic", seats=4)


@pytest.fixture
def pairs(db: None) -> Ladder:
    return LadderFactory(slug="classic-2", rules="classic", seats=2)


def make_bots(owner: User, count: int, prefix: str = "bot") -> list[Bot]:
    return [BotVersionFactory(bot__owner=owner, bot__name=f"{prefix}{i}").bot for i in range(count)]


def create(organiser: User, ladder: Ladder, bots: list[Bot], **options: Any) -> League:
    values: dict[str, Any] = {
        "name": "Spring cup",
        "slug": "spring",
        "format": LeagueFormat.ROUND_ROBIN,
        "start_at": T0,
        "round_interval": DAY,
        "now": CREATED,
        **options,
    }
    return league_create(organiser=organiser, ladder=ladder, bots=bots, **values)


def advance(league: League, now: datetime) -> League:
    league_advance(league=league, now=now)
    league.refresh_from_db()
    return league


def queued_games(league: League, number: int) -> list[LeagueGame]:
    return list(
        LeagueGame.objects.filter(
            fixture__round__league=league, fixture__round__number=number, status=GameStatus.QUEUED
        )
        .select_related("match__ladder")
        .order_by("fixture__table", "number")
    )


def play_game(
    game: LeagueGame,
    policies: Mapping[int, Policy] | None = None,
    crash: frozenset[int] = frozenset(),
) -> State:
    """Play the game's match with the engine as a worker would, and record it."""
    match = game.match
    assert match is not None
    ladder = match.ladder
    entries = list(game.seats.order_by("seat").values_list("entry_id", flat=True))
    description = vegas_engine.describe(ladder.rules, ladder.seats, ladder.options)
    state = play(description, match.seed, [(policies or {}).get(e, greedy_policy) for e in entries])
    result = state.result()
    assert result is not None
    # Ranked as the referee ranks a game with forfeits: crashed seats last, the rest among
    # themselves.
    crashed = {seat for seat, entry in enumerate(entries) if entry in crash}
    outcomes = [
        SeatOutcome(
            seat=r["seat"],
            money=r["money"],
            rank=r["rank"],
            forfeit=ForfeitCause.CRASHED if r["forfeited"] else None,
        )
        for r in referee_standings(result, crashed)
    ]
    match_finish(
        match=match_start(match=match),
        outcomes=outcomes,
        game_log=dumps(game_log(state)).encode(),
    )
    return state


def play_round(league: League, number: int, **options: Any) -> None:
    for game in queued_games(league, number):
        play_game(game, **options)


def play_out(league: League, **options: Any) -> League:
    """Play every round on its day until the league ends."""
    now = T0
    league = advance(league, now)
    for number in itertools.count(1):
        if league.status != LeagueStatus.RUNNING:
            return league
        play_round(league, number, **options)
        now = max(now, league.rounds.get(number=number).scheduled_at) + DAY
        league = advance(league, now)
        assert number < 100
    raise AssertionError("unreachable")


def seat_counts(league: League) -> dict[int, list[int]]:
    seats = league.ladder.seats
    counts: dict[int, list[int]] = defaultdict(lambda: [0] * seats)
    for entry, seat in LeagueGameSeat.objects.filter(
        game__fixture__round__league=league
    ).values_list("entry_id", "seat"):
        counts[entry][seat] += 1
    return dict(counts)


# --------------------------------------------------------------------------- bad input


def test_bad_inputs_are_rejected_with_clear_messages(
    ladder: Ladder, carol: User, alice: User, bob: User
) -> None:
    four = make_bots(carol, 4)
    cases: list[tuple[type[Exception], str, dict[str, Any]]] = [
        (
            LeagueConfigError,
            "3 entrants cannot fill a table of 4 seats: add at least 1 more",
            {"bots": four[:3]},
        ),
        (LeagueConfigError, "is in the past", {"start_at": CREATED - timedelta(minutes=1)}),
        (
            LeagueConfigError,
            "k must be 1-3 for 4 seats, got 4",
            {"format": "knockout", "advance": 4},
        ),
        (LeagueConfigError, "a knockout needs `advance`", {"format": "knockout"}),
        (LeagueConfigError, "unknown format 'league'", {"format": "league"}),
        (LeagueConfigError, "at least 0:01:00 apart", {"round_interval": timedelta(seconds=10)}),
        (LeagueConfigError, "one value per seat (4), got 2", {"points_per_rank": [1, 0]}),
        (LeagueConfigError, "games per table must be 1-100, got 0", {"games_per_table": 0}),
        (LeagueEntryError, "a bot is entered twice", {"bots": [*four, four[0]]}),
    ]
    for error, message, options in cases:
        values: dict[str, Any] = {"bots": four, **options}
        with pytest.raises(error) as raised:
            create(carol, ladder, **values)
        assert message in str(raised.value), (message, str(raised.value))

    boulevard = LadderFactory(slug="boulevard-4", rules="boulevard", seats=4, options={})
    rated = make_bots(bob, 1, "blv")[0]
    RatingFactory(ladder=boulevard, bot_version=rated.versions.get())
    with pytest.raises(LeagueEntryError, match="blv0 plays boulevard, not classic"):
        create(carol, ladder, [*four[:3], rated])

    with pytest.raises(LeagueConfigError, match="only staff organise public leagues"):
        create(alice, ladder, make_bots(alice, 4, "a"))
    secret = BotVersionFactory(bot__owner=bob, bot__visibility=Visibility.PRIVATE).bot
    with pytest.raises(
        LeagueEntryError, match=r"private bot: only its owner or its team's members can enter it"
    ):
        create(alice, ladder, [*make_bots(alice, 3, "b"), secret], visibility="private")

    ladder.is_open = False
    ladder.save()
    with pytest.raises(LeagueConfigError, match="is closed"):
        create(carol, ladder, four)
    assert not League.objects.exists()


def test_the_slug_is_unique(ladder: Ladder, carol: User) -> None:
    bots = make_bots(carol, 4)
    create(carol, ladder, bots)
    with pytest.raises(LeagueConfigError, match="slug 'spring' already exists"):
        create(carol, ladder, bots)


# --------------------------------------------------------------------------- calendar


def test_a_scheduled_round_starts_at_its_time(ladder: Ladder, carol: User) -> None:
    bots = make_bots(carol, 5)
    league = create(carol, ladder, bots)
    # One static sweep advances every league: no beat job of its own.
    sweep = settings.CELERY_BEAT_SCHEDULE["advance-leagues"]
    assert (sweep["task"], sweep["schedule"]) == (leagues_advance.name, 10.0)
    assert not PeriodicTask.objects.exists()

    with mock.patch("django.utils.timezone.now", return_value=T0 - timedelta(seconds=1)):
        assert leagues_advance.delay().get() == 0  # not due yet
    league.refresh_from_db()
    assert league.status == LeagueStatus.SCHEDULED
    assert not Match.objects.exists()

    with mock.patch("django.utils.timezone.now", return_value=T0):
        assert leagues_advance.delay().get() == 1
    league.refresh_from_db()
    assert (league.status, league.started_at) == (LeagueStatus.RUNNING, T0)
    rounds = list(league.rounds.order_by("number"))
    # C(5, 4) = 5 tables, any two share players: one table a round, one round a day.
    assert [r.scheduled_at for r in rounds] == [T0 + k * DAY for k in range(5)]
    assert not PeriodicTask.objects.exists()
    assert [r.status for r in rounds] == [RoundStatus.RUNNING] + [RoundStatus.SCHEDULED] * 4
    (game,) = queued_games(league, 1)
    assert game.match is not None and game.match.status == MatchStatus.QUEUED
    assert game.match.seed == game.seed
    # The versions frozen at the start are the ones seated in the match.
    frozen = dict(league.entries.values_list("pk", "bot_version_id"))
    seated = list(game.seats.order_by("seat").values_list("entry_id", flat=True))
    versions = list(
        game.match.participants.order_by("seat").values_list("bot_version_id", flat=True)
    )
    assert versions == [frozen[e] for e in seated]
    assert all(v is not None for v in frozen.values())

    with mock.patch("django.utils.timezone.now", return_value=T0 + DAY - timedelta(seconds=1)):
        leagues_advance.delay()
    assert league.rounds.get(number=2).status == RoundStatus.SCHEDULED
    with mock.patch("django.utils.timezone.now", return_value=T0 + DAY):
        leagues_advance.delay()
    assert league.rounds.get(number=2).status == RoundStatus.RUNNING
    assert len(queued_games(league, 2)) == 1


def test_the_tasks_run_at_the_time_they_are_given(ladder: Ladder, carol: User) -> None:
    """Beat sends no time (the worker's clock); a test drives a worker's clock with one."""
    league = create(carol, ladder, make_bots(carol, 4))
    other = create(carol, ladder, make_bots(carol, 4, prefix="other"), slug="later", name="Later")
    League.objects.filter(pk=other.pk).update(start_at=T0 + DAY)
    leagues_advance.delay((T0 - timedelta(seconds=1)).isoformat())
    league.refresh_from_db()
    assert league.status == LeagueStatus.SCHEDULED
    leagues_advance.delay(T0.isoformat())
    league.refresh_from_db()
    other.refresh_from_db()
    assert (league.status, league.started_at) == (LeagueStatus.RUNNING, T0)
    assert other.status == LeagueStatus.SCHEDULED  # its time has not come
    league_tick.delay(other.pk, (T0 + DAY).isoformat())  # one league, now
    other.refresh_from_db()
    assert other.status == LeagueStatus.RUNNING
    with pytest.raises(ValueError, match="has no UTC offset; send an aware time"):
        leagues_advance.delay("2031-03-02T18:00:00")


def test_a_frozen_version_retired_by_a_newer_upload_keeps_playing(
    ladder: Ladder, carol: User
) -> None:
    bots = make_bots(carol, 5)
    league = advance(create(carol, ladder, bots), T0)
    entry = league.entries.get(bot=bots[0])
    first = entry.bot_version
    assert first is not None
    play_round(league, 1)

    # Mid-league, the author uploads an improvement: it passes validation, which
    # retires the frozen version (bots.services), as any upload does.
    newer = BotVersionFactory(bot=bots[0], number=2, parent=first, status=VersionStatus.PENDING)
    bot_version_transition(version=newer, to=VersionStatus.VALIDATING)
    bot_version_transition(version=newer, to=VersionStatus.ACTIVE)
    first.refresh_from_db()
    assert first.status == VersionStatus.RETIRED

    league = play_out(league)
    assert league.status == LeagueStatus.FINISHED
    entry.refresh_from_db()
    assert (entry.status, entry.reason, entry.bot_version) == (EntryStatus.PLAYING, "", first)
    # Bot 0 sits at 4 of the 5 tables, all played (no walkover): each match seats exactly
    # the frozen version, never the newer one.
    games = LeagueGame.objects.filter(fixture__round__league=league).select_related("match")
    assert {g.status for g in games} == {GameStatus.FINISHED}
    seats = LeagueGameSeat.objects.filter(game__in=games, entry=entry).select_related("game")
    assert seats.count() == 4
    for seat in seats:
        assert seat.game.match is not None
        played = seat.game.match.participants.get(seat=seat.seat).bot_version_id
        assert played == first.pk
    assert not newer.participations.exists()
    line = league_standings(league=league).get(entry=entry)
    assert (line.games, line.forfeits, line.entry.bot_version) == (4, 0, first)


# --------------------------------------------------------------------------- formats


def test_round_robin_fixtures_are_complete_and_fair(ladder: Ladder, carol: User) -> None:
    bots = make_bots(carol, 6)
    league = advance(create(carol, ladder, bots, games_per_table=4), T0)
    # Every fixture of a round robin is on the calendar from the start.
    tables: dict[int, set[int]] = defaultdict(set)
    for fixture, entry in LeagueGameSeat.objects.filter(
        game__fixture__round__league=league
    ).values_list("game__fixture_id", "entry_id"):
        tables[fixture].add(entry)
    entries = sorted(league.entries.values_list("pk", flat=True))
    assert sorted(tuple(sorted(t)) for t in tables.values()) == list(
        itertools.combinations(entries, 4)
    )
    counts = seat_counts(league)
    # C(5, 3) = 10 tables each, 4 rotated games a table: 10 games in every seat.
    assert all(row == [10, 10, 10, 10] for row in counts.values())
    assert len(counts) == 6


def test_round_robin_plays_to_the_end_and_keeps_the_final_table(
    ladder: Ladder, carol: User
) -> None:
    bots = make_bots(carol, 5)
    league = create(carol, ladder, bots)
    league = play_out(league)
    assert league.status == LeagueStatus.FINISHED
    standings = list(league_standings(league=league))
    assert league.winner_id == standings[0].entry_id
    assert [s.position for s in standings] == [1, 2, 3, 4, 5]
    # Five tables of one game each, 3 + 2 + 1 + 0 points per table.
    assert sum(s.points for s in standings) == 5 * 6
    assert all(s.games == 4 for s in standings)
    assert sorted(s.points for s in standings) == sorted((s.points for s in standings), key=float)
    points = [s.points for s in standings]
    assert points == sorted(points, reverse=True) or len(set(points)) < len(points)
    # The results and logs stay.
    assert Match.objects.filter(status=MatchStatus.FINISHED).count() == 5
    assert all(m.log for m in Match.objects.all())


def test_swiss_repeats_no_table_and_balances_seats(pairs: Ladder, carol: User) -> None:
    bots = make_bots(carol, 6)
    league = create(carol, pairs, bots, format=LeagueFormat.SWISS, rounds=5, games_per_table=1)
    policies = {}
    league = advance(league, T0)
    for entry in league.entries.all():
        policies[entry.pk] = greedy_policy if entry.seed % 2 else random_policy
    league = play_out(league, policies=policies)
    assert league.status == LeagueStatus.FINISHED
    rows = LeagueGameSeat.objects.filter(game__fixture__round__league=league).values_list(
        "game__fixture__round__number", "game__fixture_id", "entry_id"
    )
    members: dict[tuple[int, int], set[int]] = defaultdict(set)
    for number, fixture, entry in rows:
        members[(number, fixture)].add(entry)
    played: set[frozenset[int]] = set()
    for number in range(1, 6):
        tables = [frozenset(m) for (n, _), m in members.items() if n == number]
        players = sorted(e for t in tables for e in t)
        assert len(tables) == 3
        # Each round repeats a table only when every split of its players must.
        repeats = sum(t in played for t in tables)
        assert repeats == _min_repeats(players, 2, played)
        played.update(tables)
    # The first three rounds can always avoid repeats.
    assert len(played) >= 9
    counts = seat_counts(league)
    assert all(sum(row) == 5 and max(row) - min(row) <= 1 for row in counts.values())


def test_knockout_the_top_k_of_each_table_go_through(ladder: Ladder, carol: User) -> None:
    bots = make_bots(carol, 8)
    league = create(carol, ladder, bots, format=LeagueFormat.KNOCKOUT, advance=2)
    league = advance(league, T0)
    assert league.rounds.count() == 2
    first_round = queued_games(league, 1)
    assert len(first_round) == 2
    play_round(league, 1)
    league = advance(league, T0 + DAY)
    out = league.entries.filter(status=EntryStatus.ELIMINATED)
    assert out.count() == 4
    assert set(out.values_list("last_round", flat=True)) == {1}
    (final,) = queued_games(league, 2)
    finalists = set(final.seats.values_list("entry_id", flat=True))
    assert finalists.isdisjoint(out.values_list("pk", flat=True))
    state = play_game(final)
    league = advance(league, T0 + 2 * DAY)
    assert league.status == LeagueStatus.FINISHED
    result = state.result()
    assert result is not None
    seated = list(final.seats.order_by("seat").values_list("entry_id", flat=True))
    champion = seated[next(r.seat for r in result if r.rank == 1)]
    assert league.winner_id == champion
    standings = [s.entry_id for s in league_standings(league=league)]
    assert standings[0] == champion
    assert set(standings[:4]) == finalists


def bundle(league: League, user: User) -> dict[str, bytes]:
    archive = zipfile.ZipFile(io.BytesIO(b"".join(league_bundle(league=league, user=user))))
    return {name: archive.read(name) for name in archive.namelist()}


def test_a_deal_s_seed_and_logs_stay_out_of_the_bundle_until_the_deal_is_played(
    ladder: Ladder, carol: User
) -> None:
    league = advance(create(carol, ladder, make_bots(carol, 4), duplicate=True), T0)
    games = queued_games(league, 1)
    play_game(games[0])
    league = advance(league, T0)
    assert LeagueGame.objects.get(pk=games[0].pk).status == GameStatus.FINISHED

    files = bundle(league, carol)
    assert not [name for name in files if name.startswith("logs/")]
    fixtures = json.loads(files["fixtures.json"])
    assert {g["seed"] for f in fixtures for g in f["games"]} == {None}

    for game in games[1:]:
        play_game(game)
    league = advance(league, T0)  # the league takes in the results
    files = bundle(league, carol)
    assert len([name for name in files if name.startswith("logs/")]) == 4
    fixtures = json.loads(files["fixtures.json"])
    assert {g["seed"] for f in fixtures if f["round"] == 1 for g in f["games"]} == {games[0].seed}


def test_a_duplicate_deal_gives_every_seat_the_same_dice(ladder: Ladder, carol: User) -> None:
    bots = make_bots(carol, 4)
    league = advance(create(carol, ladder, bots, duplicate=True), T0)
    games = queued_games(league, 1)
    assert len(games) == 4
    assert len({g.seed for g in games}) == 1
    assert {g.deal for g in games} == {0}
    assert all(row == [1, 1, 1, 1] for row in seat_counts(league).values())

    description = vegas_engine.describe("classic", 4, ladder.options)
    seed = games[0].seed
    entries_by_game = [
        list(g.seats.order_by("seat").values_list("entry_id", flat=True)) for g in games
    ]

    def rolls(state: State, seat: int) -> list[Any]:
        events = state.events() or []
        return [e["dice"] for e in events if e["type"] == "roll" and e["seat"] == seat]

    # The same program everywhere: every seat position gets the same dice in every game
    # of the deal, whoever sits there.
    states = [play(description, seed, [greedy_policy] * 4) for _ in entries_by_game]
    for seat in range(4):
        assert len({repr(rolls(s, seat)) for s in states}) == 1
    # Different programs (greedy and random by entrant): each seat still opens with the same
    # dice in every rotation, and the dice stay the same as long as the play does.
    styles = {
        e: greedy_policy if i % 2 else random_policy for i, e in enumerate(entries_by_game[0])
    }
    states = [play(description, seed, [styles[e] for e in seated]) for seated in entries_by_game]
    for seat in range(4):
        openings = {repr(rolls(s, seat)[0]) for s in states}
        assert len(openings) == 1
    for a, b in itertools.combinations(states, 2):
        events_a, events_b = a.events() or [], b.events() or []
        same = next(
            (i for i, (x, y) in enumerate(zip(events_a, events_b, strict=False)) if x != y),
            min(len(events_a), len(events_b)),
        )
        assert events_a[0] == events_b[0]  # the same deal: notes stocked alike
        assert all(e["type"] != "roll" or e == events_b[i] for i, e in enumerate(events_a[:same]))

    # Standings use the total over the deal: one result per entrant, ranked by the sum.
    money: Counter[int] = Counter()
    for game in games:
        state = play_game(game, policies=styles)
        seated = list(game.seats.order_by("seat").values_list("entry_id", flat=True))
        for r in state.result() or []:
            money[seated[r.seat]] += r.money
    league = advance(league, T0 + DAY)
    assert league.status == LeagueStatus.FINISHED
    standings = list(league_standings(league=league))
    assert all(s.games == 4 and s.results == 1 for s in standings)
    assert {s.entry_id: s.money for s in standings} == dict(money)
    ranks = formats.competition_ranks([money[s.entry_id] for s in standings])
    expected = formats.table_points(ranks, [3, 2, 1, 0])
    assert [s.points for s in standings] == expected


# --------------------------------------------------------------------------- ladder Elo


def test_league_games_count_on_the_ladder_elo_only_when_rated(pairs: Ladder, carol: User) -> None:
    rated = create(carol, pairs, make_bots(carol, 3, "r"), slug="rated")
    unrated = create(carol, pairs, make_bots(carol, 3, "u"), slug="unrated", rated=False)
    assert (rated.rated, unrated.rated) == (True, False)
    for league in (rated, unrated):
        league = play_out(league)
        assert league.status == LeagueStatus.FINISHED
        # As the worker's ratings task does after each match (in finish order).
        for match in Match.objects.filter(league_game__fixture__round__league=league).order_by(
            "finished_at", "id"
        ):
            ratings_apply(match=match)

    # Three tables of two seats: each bot plays two games.
    played = Match.objects.filter(league_game__fixture__round__league=rated)
    assert played.count() == 3
    assert all(m.rated and m.rated_at is not None for m in played)
    assert RatingChange.objects.filter(match__in=played).count() == 6
    ladder_games = dict(
        Rating.objects.filter(ladder=pairs).values_list("bot__name", "rated_matches")
    )
    assert ladder_games == {"r0": 2, "r1": 2, "r2": 2}

    skipped = Match.objects.filter(league_game__fixture__round__league=unrated)
    assert skipped.count() == 3
    assert all(not m.rated and m.rated_at is None for m in skipped)
    assert not RatingChange.objects.filter(match__in=skipped).exists()

    # The league's own rating (standings) counts its games either way.
    for league in (rated, unrated):
        lines = list(league_standings(league=league))
        assert [line.rated_results for line in lines] == [2, 2, 2]
        # K falls with each entrant's own games (0 or 1 before each of the 3 games here),
        # so a game may move the sum by up to the gap between the two Ks.
        drift = sum(line.rating for line in lines) - 3 * 1500
        assert abs(drift) <= 3 * (k_factor(0) - k_factor(1))
        ranks = seats_with_results(
            LeagueGameSeat.objects.filter(game__fixture__round__league=league)
        )
        decisive = ranks.filter(result_rank=2).exists()  # else every game was a tie
        assert any(line.rating != 1500 for line in lines) == decisive


# --------------------------------------------------------------------------- forfeits


def test_a_failing_bot_forfeits_its_games_and_the_league_goes_on(
    ladder: Ladder, carol: User
) -> None:
    bots = make_bots(carol, 5)
    league = advance(create(carol, ladder, bots), T0)
    crasher = league.entries.get(bot=bots[1])
    (game,) = queued_games(league, 1)
    assert crasher.pk in game.seats.values_list("entry_id", flat=True)
    play_game(game, crash=frozenset({crasher.pk}))
    # Bot 0's frozen version is marked failed (no service fails an active version:
    # an operator's verdict, e.g. code found to break the rules): it cannot play any more.
    broken = league.entries.get(bot=bots[0])
    assert broken.bot_version is not None
    BotVersion.objects.filter(pk=broken.bot_version.pk).update(status=VersionStatus.FAILED)
    now = T0
    for number in range(2, 6):
        now += DAY
        league = advance(league, now)
        play_round(league, number)
    league = advance(league, now + DAY)
    assert league.status == LeagueStatus.FINISHED
    broken.refresh_from_db()
    assert broken.status == EntryStatus.FORFEITED
    assert broken.reason == (
        "its frozen version bot0 v1 is failed: only versions that passed validation "
        "(active, or retired by a newer upload) play, so its remaining games are lost by forfeit"
    )
    walkovers = LeagueGame.objects.filter(fixture__round__league=league, status=GameStatus.WALKOVER)
    # Bot 0 sits at 4 of the 5 tables; the first was played before it broke.
    assert walkovers.count() == 3
    lines = {s.entry_id: s for s in league_standings(league=league)}
    assert lines[broken.pk].forfeits == 3
    assert lines[crasher.pk].forfeits == 1
    assert lines[broken.pk].position == 5
    # Its result is read from its match, where it is kept.
    seat = seats_with_results(LeagueGameSeat.objects.filter(game=game, entry=crasher)).get()
    assert (seat.result_forfeit, seat.result_rank) == (True, 4)
    assert (seat.forfeit, seat.rank) == (False, None)  # nothing copied


def test_a_bye_counts_in_the_standings_once_its_round_has_begun(
    ladder: Ladder, carol: User, alice: User
) -> None:
    # Five bots, four seats, a balanced design of four rounds: one table and a bye a round,
    # every bye stored at the start.
    league = advance(create(carol, ladder, make_bots(alice, 5), max_tables=4, rounds=4), T0)
    assert LeagueBye.objects.filter(round__league=league).count() == 4

    def byes() -> dict[int, int]:
        return {s.entry_id: s.byes for s in league_standings(league=league) if s.byes}

    (sitting_out,) = LeagueBye.objects.filter(round__league=league, round__number=1)
    assert byes() == {sitting_out.entry_id: 1}
    play_round(league, 1)
    league = advance(league, T0 + DAY)
    assert sum(byes().values()) == 2
    standings = {s.entry_id: s for s in league_standings(league=league)}
    # A bye is worth a table's average points (3 + 2 + 1 + 0) / 4.
    assert standings[sitting_out.entry_id].points >= 1.5


# --------------------------------------------------------------------------- withdrawals


def test_an_owner_withdraws_a_bot_from_a_running_league(
    ladder: Ladder, carol: User, alice: User
) -> None:
    # Carol (staff) runs a public round robin of Alice's five bots, as a balanced design of
    # four rounds: one table of four a round, and a bye.
    bots = make_bots(alice, 5)
    league = advance(create(carol, ladder, bots, max_tables=4, rounds=4), T0)
    play_round(league, 1)
    league = advance(league, T0 + DAY)
    (first,) = LeagueGame.objects.filter(fixture__round__league=league, fixture__round__number=1)
    (second,) = queued_games(league, 2)
    # A bot that played round 1, sits at round 2's queued table and has its bye ahead.
    entry = (
        league.entries.select_related("bot")
        .filter(seats__game=first)
        .filter(seats__game=second)
        .filter(byes__round__number__gt=2)
        .order_by("seed")
        .first()
    )
    assert entry is not None

    entry = league_entry_remove(
        league=league, bot=entry.bot, by=alice, now=T0 + DAY + timedelta(hours=1)
    )
    assert (entry.status, entry.reason) == (
        EntryStatus.FORFEITED,
        "withdrawn by its owner on 2031-03-02 19:00 UTC, so its remaining games are lost "
        "by forfeit",
    )
    # Its bye still to come is gone (a bye is worth points, and it left), in the table too.
    assert not LeagueBye.objects.filter(entry=entry).exists()
    assert league_standings(league=league).get(entry=entry).byes == 0
    # The game already queued still plays and counts as a real result.
    second.refresh_from_db()
    assert second.status == GameStatus.QUEUED
    assert second.match is not None and second.match.status == MatchStatus.QUEUED
    with pytest.raises(LeagueEntryError, match=r"has already forfeited Spring cup \(withdrawn"):
        league_entry_remove(league=league, bot=entry.bot, by=carol)

    league = play_out(league)
    assert league.status == LeagueStatus.FINISHED
    second.refresh_from_db()
    assert second.status == GameStatus.FINISHED
    played = seats_with_results(LeagueGameSeat.objects.filter(game=second, entry=entry)).get()
    assert played.result_forfeit is False and played.result_rank is not None
    # Its table in the round it did not sit out was a walkover: last, no money, no match.
    (later,) = LeagueGameSeat.objects.filter(
        entry=entry, game__fixture__round__number__gt=2
    ).select_related("game")
    assert (later.game.status, later.game.match_id) == (GameStatus.WALKOVER, None)
    assert (later.rank, later.money, later.forfeit) == (4, 0, True)
    others = later.game.seats.exclude(entry=entry)
    assert {(s.rank, s.forfeit) for s in others} == {(1, False)}
    # Its results so far stay in the standings, with its status and reason.
    finished = LeagueGameSeat.objects.filter(entry=entry, game__status=GameStatus.FINISHED)
    money = sum(seat.result_money for seat in seats_with_results(finished))
    line = league_standings(league=league).get(entry=entry)
    assert (line.games, line.forfeits, line.byes, line.money) == (3, 1, 0, money)
    assert line.entry.status == EntryStatus.FORFEITED
    with pytest.raises(LeagueEntryError, match="Spring cup is finished: its entrants and results"):
        league_entry_remove(league=league, bot=bots[0], by=alice)


def test_a_withdrawn_entrant_never_goes_through_a_knockout(
    pairs: Ladder, carol: User, alice: User
) -> None:
    # Five bots on two seats, the winner of each table through: round 1 gives seed 1 a bye
    # and seats (2, 5) and (3, 4).
    bots = make_bots(alice, 5)
    league = create(carol, pairs, bots, format=LeagueFormat.KNOCKOUT, advance=1)
    league = advance(league, T0)
    seeds = {e.seed: e for e in league.entries.all()}
    assert [sorted(_seeds_at(game)) for game in queued_games(league, 1)] == [[2, 5], [3, 4]]
    # Seed 1 (on its bye) is withdrawn by its owner, seed 2 (its game queued) by the organiser.
    league_entry_remove(league=league, bot=bots[0], by=alice, now=T0 + timedelta(hours=1))
    league_entry_remove(league=league, bot=bots[1], by=carol, now=T0 + timedelta(hours=1))
    assert LeagueEntry.objects.get(pk=seeds[2].pk).reason.startswith(
        "withdrawn by the organiser on 2031-03-01 19:00 UTC"
    )
    # Seed 2's game still plays, and seed 2 wins it (seed 5 crashes): it still goes out.
    play_round(league, 1, crash=frozenset({seeds[5].pk}))
    league = advance(league, T0 + DAY)
    won = seats_with_results(
        LeagueGameSeat.objects.filter(game__fixture__round__number=1, entry=seeds[2])
    ).get()
    assert (won.result_rank, won.result_forfeit) == (1, False)
    out = {e.seed: (e.status, e.last_round, e.last_place) for e in league.entries.all()}
    assert out[1] == (EntryStatus.FORFEITED, 1, 3)  # below everyone out in round 1
    assert out[2] == (EntryStatus.FORFEITED, 1, 2)
    # Seed 5 goes through in seed 2's stead, and seed 1's bye place goes to a lucky loser,
    # the loser of (3, 4): round 2 keeps the three entrants its plan gives it.
    assert {seed: row for seed, row in out.items() if seed > 2} == {
        seed: (EntryStatus.PLAYING, None, None) for seed in (3, 4, 5)
    }
    (game,) = queued_games(league, 2)
    assert set(_seeds_at(game)) < {3, 4, 5}

    league = play_out(league)
    assert league.status == LeagueStatus.FINISHED
    assert league.winner is not None and league.winner.seed in (3, 4, 5)
    standings = [s.entry.seed for s in league_standings(league=league)]
    assert standings[-2:] == [2, 1]


def _seeds_at(game: LeagueGame) -> list[int]:
    return list(game.seats.order_by("seat").values_list("entry__seed", flat=True))


def test_an_eliminated_entrant_cannot_be_withdrawn(pairs: Ladder, carol: User, alice: User) -> None:
    bots = make_bots(alice, 4)
    league = create(carol, pairs, bots, format=LeagueFormat.KNOCKOUT, advance=1)
    league = advance(league, T0)
    play_round(league, 1)
    league = advance(league, T0 + DAY)
    out = league.entries.select_related("bot").filter(status=EntryStatus.ELIMINATED)
    assert out.count() == 2
    with pytest.raises(LeagueEntryError, match=r"is already out of Spring cup \(round 1\)"):
        league_entry_remove(league=league, bot=out[0].bot, by=alice)


def test_swiss_pairs_a_withdrawn_entrant_no_more(pairs: Ladder, carol: User, alice: User) -> None:
    bots = make_bots(alice, 4)
    league = create(carol, pairs, bots, format=LeagueFormat.SWISS, rounds=3)
    league = advance(league, T0)
    play_round(league, 1)
    league_entry_remove(league=league, bot=bots[3], by=alice, now=T0 + timedelta(hours=1))
    league = advance(league, T0 + DAY)
    gone = league.entries.get(bot=bots[3])
    # Three left on two seats: one table and a bye, neither for the withdrawn bot.
    (game,) = queued_games(league, 2)
    assert gone.pk not in game.seats.values_list("entry_id", flat=True)
    assert not LeagueBye.objects.filter(round__number=2, entry=gone).exists()
    assert LeagueBye.objects.filter(round__number=2).count() == 1
    # Its round 1 game stays in the table.
    line = league_standings(league=league).get(entry=gone)
    assert (line.games, line.forfeits) == (1, 0)


def test_withdrawing_before_the_start_names_who_did_it(
    ladder: Ladder, carol: User, alice: User
) -> None:
    bots = make_bots(alice, 5)
    league = create(carol, ladder, bots)
    entry = league_entry_remove(league=league, bot=bots[4], by=alice)
    assert (entry.status, entry.reason) == (
        EntryStatus.WITHDRAWN,
        "removed before the start by its owner",
    )
    with pytest.raises(LeagueEntryError, match="bot4 is not entered in Spring cup"):
        league_entry_remove(league=league, bot=bots[4], by=alice)
    with pytest.raises(LeagueEntryError, match="without bot3, 3 entrants cannot fill a table"):
        league_entry_remove(league=league, bot=bots[3], by=carol)
    league = league_cancel(league=league, now=CREATED)
    with pytest.raises(LeagueEntryError, match="Spring cup is cancelled: its entrants and results"):
        league_entry_remove(league=league, bot=bots[0], by=carol)


# --------------------------------------------------------------------------- organiser


def test_pause_resume_and_cancel(ladder: Ladder, carol: User) -> None:
    bots = make_bots(carol, 5)
    league = advance(create(carol, ladder, bots), T0)
    league = league_pause(league=league, now=T0 + timedelta(hours=1))
    assert league.status == LeagueStatus.PAUSED
    # The sweep goes on for a paused league: it records the games already queued.
    assert leagues_advance_due(now=T0 + timedelta(hours=2)) == 1

    # Round 1 still finishes and counts; round 2 does not start while paused.
    play_round(league, 1)
    league = advance(league, T0 + DAY)
    assert league.rounds.get(number=1).status == RoundStatus.FINISHED
    assert league.rounds.get(number=2).status == RoundStatus.SCHEDULED
    assert league_standings(league=league).count() == 5

    # Resumed two days later in the evening: the calendar keeps its 18:00 rhythm.
    league = league_resume(league=league, now=T0 + 2 * DAY + timedelta(hours=3))
    assert league.status == LeagueStatus.RUNNING
    times = list(
        league.rounds.filter(number__gte=2)
        .order_by("number")
        .values_list("scheduled_at", flat=True)
    )
    assert times == [T0 + (k + 3) * DAY for k in range(4)]
    league = advance(league, T0 + 3 * DAY)
    assert league.rounds.get(number=2).status == RoundStatus.RUNNING

    league = league_cancel(league=league, reason="venue closed", now=T0 + 3 * DAY)
    assert (league.status, league.note) == (LeagueStatus.CANCELLED, "venue closed")
    (game,) = LeagueGame.objects.filter(fixture__round__number=2, fixture__round__league=league)
    assert game.status == GameStatus.VOID
    assert game.match is not None
    game.match.refresh_from_db()
    assert game.match.status == MatchStatus.CANCELLED
    assert leagues_advance_due(now=T0 + 4 * DAY) == 0  # cancelled: the sweep passes it by
    assert league.rounds.get(number=1).status == RoundStatus.FINISHED
    assert league_standings(league=league).count() == 5
    with pytest.raises(LeagueTransitionError, match="only a paused league resumes"):
        league_resume(league=league)
    with pytest.raises(LeagueTransitionError, match="cannot become paused"):
        league_pause(league=league)


def test_a_league_paused_before_its_start_starts_on_resume(ladder: Ladder, carol: User) -> None:
    league = create(carol, ladder, make_bots(carol, 4))
    league_pause(league=league, now=T0 - timedelta(hours=1))
    league = advance(league, T0 + timedelta(hours=1))
    assert league.status == LeagueStatus.PAUSED
    later = T0 + timedelta(hours=5)
    league = league_resume(league=league, now=later)
    assert (league.status, league.start_at) == (LeagueStatus.SCHEDULED, later)
    league = advance(league, later)
    assert league.status == LeagueStatus.RUNNING


def test_private_league_of_invited_bots(ladder: Ladder, alice: User, bob: User) -> None:
    mine = make_bots(alice, 2, "a")
    theirs = make_bots(bob, 2, "b")
    league = create(alice, ladder, [*mine, *theirs], visibility=LeagueVisibility.PRIVATE)
    statuses = dict(league.entries.values_list("bot__name", "status"))
    assert statuses == {"a0": "accepted", "a1": "accepted", "b0": "invited", "b1": "invited"}
    league_entry_respond(entry=league.entries.get(bot=theirs[0]), accept=True)
    with pytest.raises(LeagueEntryError, match="already entered"):
        league_entry_add(league=league, bot=theirs[1], by=alice)
    # b1 never answers: at the start it is withdrawn and three bots cannot fill a table.
    league = advance(league, T0)
    assert league.status == LeagueStatus.CANCELLED
    assert "3 entrants cannot fill a table of 4 seats" in league.note
    entry = league.entries.get(bot=theirs[1])
    assert (entry.status, entry.reason) == (
        EntryStatus.WITHDRAWN,
        "the invitation was not accepted before the start",
    )
    assert leagues_advance_due(now=T0 + 4 * DAY) == 0  # cancelled: the sweep passes it by


def test_house_bots_enter_a_private_league_at_once(
    ladder: Ladder, alice: User, house: User
) -> None:
    # Nobody answers invitations for the house account: its bots play at once.
    house_bots = make_bots(house, 2, "house")
    league = create(
        alice, ladder, [*make_bots(alice, 2, "a"), *house_bots], visibility=LeagueVisibility.PRIVATE
    )
    statuses = dict(league.entries.values_list("bot__name", "status"))
    assert statuses == {
        "a0": "accepted",
        "a1": "accepted",
        "house0": "accepted",
        "house1": "accepted",
    }
    assert advance(league, T0).status == LeagueStatus.RUNNING


def test_entrants_without_an_active_version_are_withdrawn_at_the_start(
    ladder: Ladder, carol: User
) -> None:
    bots = make_bots(carol, 5)
    pending = bots[4].versions.get()
    pending.status = VersionStatus.PENDING
    pending.save()
    league = advance(create(carol, ladder, bots), T0)
    assert league.status == LeagueStatus.RUNNING
    entry = LeagueEntry.objects.get(league=league, bot=bots[4])
    assert entry.status == EntryStatus.WITHDRAWN
    assert "no active version at the start" in entry.reason
    # Four left: one table, one round.
    assert league.rounds.count() == 1
