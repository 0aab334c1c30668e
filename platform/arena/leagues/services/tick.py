"""The life of a league, advanced by beat's sweep (:func:`leagues_advance_due`).

At ``start_at`` the entrants' versions are frozen and the rounds put on the
calendar; at each round's time its tables are formed and its games queued as
matches; finished matches close their games (their results stay in the
matches, read by the selectors), rounds close, standings follow, and after
the last round the league finishes. Every step holds the league's row lock.
"""

from __future__ import annotations

import logging
import secrets
from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime

from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from arena.bots.models import BotVersion, VersionStatus
from arena.ladders.tasks import publish_runs
from arena.matches.models import MatchStatus
from arena.matches.services import (
    MAX_SEED,
    PLAYABLE_FROZEN,
    MatchSetupError,
    Play,
    match_create_plays,
    runs_to_publish,
)

from .. import formats, scoring
from ..models import (
    EntryStatus,
    GameStatus,
    League,
    LeagueBye,
    LeagueEntry,
    LeagueFixture,
    LeagueFormat,
    LeagueGame,
    LeagueGameSeat,
    LeagueRound,
    LeagueStatus,
    RoundStatus,
)
from ..selectors import league_units
from .common import (
    GAME_FINAL,
    IN_PLAY,
    MATCH_FINAL,
    MAX_ROUNDS,
    forfeit_entry,
    lock_league,
    planned_rounds,
)
from .standings import _byes_so_far, _compute_lines, league_standings_recompute

log = logging.getLogger(__name__)


def leagues_advance_due(*, now: datetime | None = None) -> int:
    """Advance every league with something due at ``now`` (beat's static sweep).

    One sweep for all leagues, every few seconds, instead of a beat job per
    league and per round: a league starts, and each round starts, at the
    first sweep at or after its time (never before), and running leagues
    collect their results. Returns how many leagues it advanced.
    """
    now = now or timezone.now()
    due = League.objects.filter(
        Q(status=LeagueStatus.SCHEDULED, start_at__lte=now)
        | Q(status__in=[LeagueStatus.RUNNING, LeagueStatus.PAUSED])
    ).order_by("pk")
    count = 0
    for league in due.only("pk"):
        league_advance(league=league, now=now)
        count += 1
    return count


def league_advance(*, league: League, now: datetime | None = None) -> League:
    """Everything due at ``now``: start, collect results, close and start rounds, finish."""
    now = now or timezone.now()
    with transaction.atomic():
        locked = lock_league(league)
        if locked.status == LeagueStatus.SCHEDULED and now >= locked.start_at:
            _start(locked, now)
        if locked.status not in (LeagueStatus.RUNNING, LeagueStatus.PAUSED):
            return locked
        changed = _collect(locked)
        # A round may end at once (walkovers), letting the next start: loop until quiet.
        for _ in range(MAX_ROUNDS):
            closed = _close_rounds(locked, now)
            started = _start_due_rounds(locked, now) if locked.status == LeagueStatus.RUNNING else 0
            changed = changed or bool(closed or started)
            if not (closed or started):
                break
        unfinished = LeagueRound.objects.filter(league=locked).exclude(status=RoundStatus.FINISHED)
        if locked.status == LeagueStatus.RUNNING and not unfinished.exists():
            _finish(locked, now)
        elif changed:
            league_standings_recompute(league=locked, now=now)
    return locked


def _start(locked: League, now: datetime) -> None:
    """Freeze versions, put the rounds on the calendar, store a round robin's fixtures."""
    entries = list(locked.entries.select_related("bot").order_by("seed"))
    active = {
        v.bot_id: v
        for v in BotVersion.objects.filter(
            bot__in=[e.bot_id for e in entries], status=VersionStatus.ACTIVE
        )
    }
    playing = []
    for entry in entries:
        if entry.status == EntryStatus.INVITED:
            entry.status, entry.reason = (
                EntryStatus.WITHDRAWN,
                "the invitation was not accepted before the start",
            )
        elif entry.status == EntryStatus.ACCEPTED:
            # A version frozen before the start (a competition's submission freeze) is kept.
            version = entry.bot_version or active.get(entry.bot_id)
            if version is None:
                entry.status = EntryStatus.WITHDRAWN
                entry.reason = "no active version at the start (upload or fix the bot)"
            else:
                entry.status, entry.bot_version = EntryStatus.PLAYING, version
                playing.append(entry)
    LeagueEntry.objects.bulk_update(entries, ["status", "reason", "bot_version"])
    seats = locked.ladder.seats
    try:
        count = planned_rounds(
            format=locked.format,
            entrants=len(playing),
            seats=seats,
            advance=locked.advance,
            rounds=locked.rounds_requested,
            max_tables=locked.max_tables,
        )
    except formats.FormatError as error:
        locked.status = LeagueStatus.CANCELLED
        locked.note = f"could not start: {error}"
        locked.finished_at = now
        locked.save(update_fields=["status", "note", "finished_at"])
        log.warning("league %s cancelled at its start: %s", locked.pk, error)
        return
    rounds = LeagueRound.objects.bulk_create(
        LeagueRound(
            league=locked,
            number=number,
            scheduled_at=locked.start_at + (number - 1) * locked.round_interval,
        )
        for number in range(1, count + 1)
    )
    if locked.format == LeagueFormat.ROUND_ROBIN:
        _store_round_robin(locked, rounds, playing)
    locked.status = LeagueStatus.RUNNING
    locked.started_at = now
    locked.save(update_fields=["status", "started_at"])


def _store_round_robin(
    league: League, rounds: Sequence[LeagueRound], playing: Sequence[LeagueEntry]
) -> None:
    seats = league.ladder.seats
    plans = formats.round_robin(
        len(playing),
        seats,
        max_tables=league.max_tables,
        rounds=league.rounds_requested,
        seed=secrets.randbits(32),
    )
    ids = [entry.pk for entry in playing]
    tables = [[tuple(ids[i] for i in table) for table in plan.tables] for plan in plans]
    # Seats are balanced over the whole design at once: it is known in advance.
    flat = [table for round_tables in tables for table in round_tables]
    seatings = formats.seat_tables(
        flat, seats=seats, games_per_table=league.games_per_table, duplicate=league.duplicate
    )
    position = 0
    for rnd, plan, round_tables in zip(rounds, plans, tables, strict=True):
        _store_round(
            league,
            rnd,
            round_tables,
            seatings[position : position + len(round_tables)],
            byes=[ids[i] for i in plan.byes],
        )
        position += len(round_tables)


def _store_round(
    league: League,
    rnd: LeagueRound,
    tables: Sequence[formats.Table],
    seatings: Sequence[Sequence[formats.Seating]],
    *,
    byes: Iterable[int] = (),
    advances: Sequence[int] | None = None,
) -> None:
    """Bulk-store a round's tables, games (with their secret seeds), seats and byes."""
    seats = league.ladder.seats
    fixtures = LeagueFixture.objects.bulk_create(
        LeagueFixture(
            round=rnd, table=index, advance=None if advances is None else advances[index - 1]
        )
        for index in range(1, len(tables) + 1)
    )
    games: list[LeagueGame] = []
    seat_entries: list[formats.Seating] = []
    for fixture, table_games in zip(fixtures, seatings, strict=True):
        deal_seeds: dict[int, int] = {}
        for number, seating in enumerate(table_games):
            deal = number // seats if league.duplicate else number
            if deal not in deal_seeds:
                deal_seeds[deal] = secrets.randbelow(MAX_SEED + 1)
            games.append(
                LeagueGame(fixture=fixture, number=number, deal=deal, seed=deal_seeds[deal])
            )
            seat_entries.append(seating)
    LeagueGame.objects.bulk_create(games, batch_size=2000)
    LeagueGameSeat.objects.bulk_create(
        (
            LeagueGameSeat(game=game, seat=seat, entry_id=entry)
            for game, seating in zip(games, seat_entries, strict=True)
            for seat, entry in enumerate(seating)
        ),
        batch_size=5000,
    )
    LeagueBye.objects.bulk_create(LeagueBye(round=rnd, entry_id=entry) for entry in byes)


def _seat_history(league: League) -> dict[int, list[int]]:
    seats = league.ladder.seats
    history: dict[int, list[int]] = defaultdict(lambda: [0] * seats)
    rows = (
        LeagueGameSeat.objects.filter(game__fixture__round__league=league)
        .values_list("entry_id", "seat")
        .annotate(n=Count("id"))
        .order_by()
    )
    for entry, seat, n in rows:
        history[entry][seat] += n
    return dict(history)


def _played_tables(league: League) -> set[frozenset[int]]:
    members: dict[int, set[int]] = defaultdict(set)
    rows = LeagueGameSeat.objects.filter(
        game__fixture__round__league=league, game__number=0
    ).values_list("game__fixture_id", "entry_id")
    for fixture, entry in rows:
        members[fixture].add(entry)
    return {frozenset(m) for m in members.values()}


def league_round_store_swiss(*, league: League, rnd: LeagueRound) -> None:
    """Form and store a Swiss round: neighbours in the standings, no table repeated if avoidable."""
    seats = league.ladder.seats
    lines = _compute_lines(league)
    active = set(league.entries.filter(status=EntryStatus.PLAYING).values_list("pk", flat=True))
    order = [line.entry for line in lines if line.entry in active]
    byes = _byes_so_far(league)
    players, sitting_out = formats.swiss_byes(order, seats, byes)
    if len(players) < seats:
        _store_round(league, rnd, [], [], byes=sitting_out)
        return
    history = _seat_history(league)
    # Games short of whole rotations leave seats to even out: pairing helps then.
    uneven = not league.duplicate and league.games_per_table % seats
    tables = formats.swiss_tables(
        players, seats, _played_tables(league), history=history if uneven else None
    )
    seatings = formats.seat_tables(
        tables,
        seats=seats,
        games_per_table=league.games_per_table,
        duplicate=league.duplicate,
        history=history,
    )
    _store_round(league, rnd, tables, seatings, byes=sitting_out)


def _knockout_survivors(league: League, rnd: LeagueRound) -> list[int]:
    """Who plays this knockout round, best first: by place at their last table, then seed."""
    alive = list(
        league.entries.filter(status__in=(EntryStatus.PLAYING, EntryStatus.FORFEITED))
        .filter(last_round__isnull=True)
        .values_list("pk", "seed", "status")
    )
    if rnd.number == 1:
        return [
            pk
            for pk, _, _ in sorted(alive, key=lambda row: (row[2] == EntryStatus.FORFEITED, row[1]))
        ]
    previous = LeagueRound.objects.get(league=league, number=rnd.number - 1)
    place = _previous_places(league, previous)
    # Byes of the last round count as first places; forfeited entrants go last.
    return [
        pk
        for pk, seed, status in sorted(
            alive,
            key=lambda row: (row[2] == EntryStatus.FORFEITED, place.get(row[0], 0), row[1]),
        )
    ]


def _previous_places(league: League, rnd: LeagueRound) -> dict[int, int]:
    places: dict[int, int] = {}
    by_fixture: dict[int, list[scoring.Unit]] = defaultdict(list)
    for unit in league_units(league=league, round_number=rnd.number):
        by_fixture[unit.fixture].append(unit)
    for units in by_fixture.values():
        for place, entry in enumerate(fixture_order(units, league.points_per_rank), start=1):
            places[entry] = place
    return places


def fixture_order(units: Sequence[scoring.Unit], points: Sequence[float]) -> list[int]:
    return scoring.fixture_order(units, points)


def league_round_store_knockout(*, league: League, rnd: LeagueRound) -> None:
    """Form and store a knockout round from the plan: byes to the best, serpentine tables."""
    seats = league.ladder.seats
    started = league.entries.filter(status__in=IN_PLAY).count()
    plan = formats.knockout_plan(started, seats, league.advance or 1)[rnd.number - 1]
    order = _knockout_survivors(league, rnd)
    tables, _ = formats.knockout_tables(order, plan)
    seatings = formats.seat_tables(
        tables,
        seats=seats,
        games_per_table=league.games_per_table,
        duplicate=league.duplicate,
        history=_seat_history(league),
    )
    # Byes in a knockout just go through: not stored as byes (they earn no points).
    _store_round(league, rnd, tables, seatings, advances=plan.advance)


def _start_due_rounds(locked: League, now: datetime) -> int:
    """Start every round that is due; Swiss and knockout rounds wait for the previous one."""
    started = 0
    pending = LeagueRound.objects.filter(
        league=locked, status=RoundStatus.SCHEDULED, scheduled_at__lte=now
    ).order_by("number")
    for rnd in pending:
        if locked.format != LeagueFormat.ROUND_ROBIN:
            unfinished = LeagueRound.objects.filter(league=locked, number__lt=rnd.number).exclude(
                status=RoundStatus.FINISHED
            )
            if unfinished.exists():
                break
            if locked.format == LeagueFormat.SWISS:
                league_round_store_swiss(league=locked, rnd=rnd)
            else:
                league_round_store_knockout(league=locked, rnd=rnd)
        _queue_games(locked, rnd)
        rnd.status, rnd.started_at = RoundStatus.RUNNING, now
        rnd.save(update_fields=["status", "started_at"])
        started += 1
    return started


def _unplayable(version: BotVersion | None) -> str | None:
    """Why a frozen version cannot play any more, or None if it can."""
    if version is None:
        return "it has no frozen version"
    if version.status not in PLAYABLE_FROZEN:
        return (
            f"its frozen version {version} is {version.status}: only versions that passed "
            "validation (active, or retired by a newer upload) play"
        )
    return None


def _forfeit_unplayable(entries: Iterable[LeagueEntry]) -> None:
    """Entrants whose frozen version genuinely cannot play forfeit the rest of the league.

    A newer upload retires the frozen version but does not stop it: the
    league keeps playing exactly the version it froze.
    """
    for entry in entries:
        why = _unplayable(entry.bot_version)
        if entry.status != EntryStatus.FORFEITED and why is not None:
            forfeit_entry(entry, why)


def _queue_games(locked: League, rnd: LeagueRound) -> None:
    """Queue the round's games: each table's playable games as one series.

    A table's games have the same entrants, so one worker run plays them at
    one table, one process per bot (``match_create_plays``), each game its
    own match with its seats and seed; a table of one game is a plain match.
    Duplicate deals are played lane by lane (every deal's first game, then
    every deal's second, ...): a process sees each seed once, so a bot starts
    once per lane, not once per game. Walkovers and void games have no match.
    """
    games = list(
        LeagueGame.objects.filter(fixture__round=rnd, status=GameStatus.SCHEDULED).order_by(
            "fixture__table", "number"
        )
    )
    seats_of: dict[int, list[LeagueGameSeat]] = defaultdict(list)
    for seat in (
        LeagueGameSeat.objects.filter(game__in=games)
        .select_related("entry__bot_version__bot")
        .order_by("game_id", "seat")
    ):
        seats_of[seat.game_id].append(seat)
    entries = {s.entry_id: s.entry for seats in seats_of.values() for s in seats}
    _forfeit_unplayable(entries.values())
    walkover_seats: list[LeagueGameSeat] = []
    tables: dict[int, list[LeagueGame]] = defaultdict(list)
    for game in games:
        seats = seats_of[game.pk]
        forfeited = [entries[s.entry_id].status == EntryStatus.FORFEITED for s in seats]
        if any(forfeited):
            if all(forfeited):
                game.status = GameStatus.VOID
                continue
            for seat, rank, lost in zip(
                seats, scoring.walkover_ranks(forfeited), forfeited, strict=True
            ):
                seat.money, seat.rank, seat.forfeit = 0, rank, lost
            walkover_seats.extend(seats)
            game.status = GameStatus.WALKOVER
            continue
        if not locked.ladder.is_open:
            log.warning(
                "league %s game %s not played: %s is closed", locked.pk, game.pk, locked.ladder
            )
            game.status = GameStatus.VOID
            continue
        tables[game.fixture_id].append(game)
    for table in tables.values():
        _queue_table(locked, table, seats_of, entries)
    LeagueGame.objects.bulk_update(games, ["status", "match"], batch_size=2000)
    LeagueGameSeat.objects.bulk_update(walkover_seats, ["money", "rank", "forfeit"])


def _queue_table(
    locked: League,
    games: Sequence[LeagueGame],
    seats_of: dict[int, list[LeagueGameSeat]],
    entries: dict[int, LeagueEntry],
) -> None:
    """One table's playable games (given in number order) as one series, lane by lane."""
    lanes: dict[int, int] = defaultdict(int)
    lane_of: dict[int, int] = {}
    for game in games:
        lane_of[game.pk] = lanes[game.deal]
        lanes[game.deal] += 1
    ordered = sorted(games, key=lambda game: (lane_of[game.pk], game.number))
    plays = [
        Play(
            [v for v in (entries[s.entry_id].bot_version for s in seats_of[g.pk]) if v is not None],
            g.seed,
        )
        for g in ordered
    ]
    try:
        matches = match_create_plays(
            ladder_id=locked.ladder_id,
            game=locked.ladder.game,
            plays=plays,
            rated=locked.rated,
            allow_retired=True,
        )
    except MatchSetupError as error:
        # Every seat's version passed _forfeit_unplayable: the refusal is the
        # engine's (the ladder's options), not an entrant's fault.
        log.warning("league %s games %s not played: %s", locked.pk, [g.pk for g in ordered], error)
        for game in ordered:
            game.status = GameStatus.VOID
        return
    for game, match in zip(ordered, matches, strict=True):
        game.match, game.status = match, GameStatus.QUEUED
    # Played and rated as the ladders play theirs, once the league's transaction commits.
    publish_runs(runs_to_publish(matches))


def _collect(locked: League) -> int:
    """Close the games whose matches ended; returns how many changed.

    Their results stay in the matches (selectors.seats_with_results reads them).
    """
    games = list(
        LeagueGame.objects.filter(
            fixture__round__league=locked,
            status=GameStatus.QUEUED,
            match__status__in=MATCH_FINAL,
        ).select_related("match")
    )
    if not games:
        return 0
    for game in games:
        assert game.match is not None
        finished = game.match.status == MatchStatus.FINISHED
        # An infrastructure failure or a cancelled match is nobody's result.
        game.status = GameStatus.FINISHED if finished else GameStatus.VOID
    LeagueGame.objects.bulk_update(games, ["status"])
    return len(games)


def _close_rounds(locked: League, now: datetime) -> int:
    closed = 0
    running = LeagueRound.objects.filter(league=locked, status=RoundStatus.RUNNING).order_by(
        "number"
    )
    for rnd in running:
        if LeagueGame.objects.filter(fixture__round=rnd).exclude(status__in=GAME_FINAL).exists():
            continue
        if locked.format == LeagueFormat.KNOCKOUT:
            _knockout_advance(locked, rnd)
        rnd.status, rnd.finished_at = RoundStatus.FINISHED, now
        rnd.save(update_fields=["status", "finished_at"])
        closed += 1
    return closed


def _knockout_advance(locked: League, rnd: LeagueRound) -> None:
    """The top ``advance`` of each table go through; the others are out in this round.

    An entrant that forfeited (its version broke, or it was withdrawn) goes
    last at its table and never goes through, nor on a bye: its place goes to
    the best entrant out in this round that did not forfeit (a lucky loser:
    the best place at its table, then the seed), so the next round keeps the
    size the plan gives it. Only when no such entrant is left does a forfeited
    one keep the place, to lose its games there by walkover.
    """
    by_fixture: dict[int, list[scoring.Unit]] = defaultdict(list)
    for unit in league_units(league=locked, round_number=rnd.number):
        by_fixture[unit.fixture].append(unit)
    fixtures = {f.pk: f for f in LeagueFixture.objects.filter(round=rnd)}
    members: dict[int, set[int]] = defaultdict(set)
    for fixture_id, entry_id in LeagueGameSeat.objects.filter(
        game__fixture__round=rnd, game__number=0
    ).values_list("game__fixture_id", "entry_id"):
        members[fixture_id].add(entry_id)
    entries = {e.pk: e for e in locked.entries.filter(status__in=IN_PLAY)}
    final = (
        len(fixtures) == 1
        and not LeagueRound.objects.filter(league=locked, number__gt=rnd.number).exists()
    )

    def forfeited(entry_id: int) -> bool:
        return entries[entry_id].status == EntryStatus.FORFEITED

    places: dict[int, int] = {}
    through: list[int] = []
    out: list[int] = []
    for fixture_id, fixture in fixtures.items():
        ordered = fixture_order(by_fixture.get(fixture_id, []), locked.points_per_rank)
        # Entrants with no unit (every game void) keep their seed order, after the rest.
        ordered += sorted(members[fixture_id] - set(ordered), key=lambda e: entries[e].seed)
        ordered.sort(key=forfeited)
        advancing = 0 if final else fixture.advance or 1
        for place, entry_id in enumerate(ordered, start=1):
            places[entry_id] = place
            (through if place <= advancing else out).append(entry_id)
    # Byes go through without playing; a forfeited one goes out below everyone out here.
    byes = [e for e, entry in entries.items() if entry.last_round is None and e not in places]
    places.update(dict.fromkeys(byes, locked.ladder.seats + 1))
    quitters = [e for e in [*through, *byes] if forfeited(e)]
    lucky = sorted((e for e in out if not forfeited(e)), key=lambda e: (places[e], entries[e].seed))
    out = [e for e in out if e not in lucky[: len(quitters)]]
    out += quitters[: len(lucky)]
    for entry_id in out:
        entry = entries[entry_id]
        entry.last_round, entry.last_place = rnd.number, places[entry_id]
        if entry.status == EntryStatus.PLAYING and not (final and places[entry_id] == 1):
            entry.status = EntryStatus.ELIMINATED
        entry.save(update_fields=["last_round", "last_place", "status"])


def _finish(locked: League, now: datetime) -> None:
    lines = league_standings_recompute(league=locked, now=now)
    locked.status = LeagueStatus.FINISHED
    locked.finished_at = now
    locked.winner_id = lines[0].entry_id if lines else None
    locked.save(update_fields=["status", "finished_at", "winner"])
