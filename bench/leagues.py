"""Leagues benchmark: fixture generation and storage, and standings over 100,000 games.

    python3 bench/leagues.py            # 512-entrant Swiss, 64-entrant round robins, 100,000 games
    python3 bench/leagues.py --quick    # smaller sizes (smoke run)

It creates its own database (``arena_bench_leagues``, dropped again at the end,
even on errors) on the PostgreSQL server at 127.0.0.1:5432 (``--pg`` names
another) and a temporary data folder. Then it times:

* **Swiss**: a 512-entrant league on a 4-seat ladder: its first round (tables
  by seed) and its second (tables by score, no repeated table, seats from
  the history), each as pure pairing and seating (``formats``), then as the
  service that pairs and stores the round (fixtures, games, seats), then as
  the creation of the round's matches (a series per table of 4 games,
  ``match_create_plays``, queued on an in-memory broker);
* **round robin**: 64 entrants on 4 seats (a balanced design of 21 rounds,
  C(64, 4) being far over the cap) and on 2 seats (all 2,016 pairs): the
  league's start, which stores every fixture of every round;
* **standings**: a league holding 100,000 finished games (bulk-created with
  random results) whose table is recomputed: reading the results, the maths
  (points, money, head-to-head, league Elo) and writing the table.

It prints numbers and never fails on one.
"""

from __future__ import annotations

import sys
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
# The platform's code is imported as `arena.*` from platform/ (never a package).
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != BENCH_DIR]
sys.path[:0] = [str(REPO), str(REPO / "platform")]

import argparse
import math
import os
import random
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import psycopg
from psycopg import sql

BENCH_DB = "arena_bench_leagues"
T0 = datetime(2031, 1, 1, 18, 0, tzinfo=UTC)
DAY = timedelta(days=1)
R = TypeVar("R")


def _admin_connect(pg: str) -> psycopg.Connection[Any]:
    return psycopg.connect(f"{pg}/postgres", autocommit=True)


@contextmanager
def bench_database(pg: str) -> Iterator[str]:
    """A fresh database for this run, dropped at the end whatever happens."""
    with _admin_connect(pg) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(BENCH_DB)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(BENCH_DB)))
    try:
        yield f"{pg}/{BENCH_DB}"
    finally:
        from django.db import connections

        connections.close_all()
        with _admin_connect(pg) as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(BENCH_DB))
            )


def timed(label: str, action: Callable[[], R]) -> R:
    started = time.perf_counter()
    result = action()
    print(f"  {label:<58} {time.perf_counter() - started:8.3f} s", flush=True)
    return result


def make_bots(count: int) -> list[Any]:
    """``count`` public bots with one active version each, bulk-created."""
    from arena.bots.models import Bot, BotVersion, CodeFormat, VersionStatus
    from arena.players.models import User

    owner, _ = User.objects.get_or_create(username="bench-organiser", is_staff=True)
    start = Bot.objects.count()
    bots = Bot.objects.bulk_create(Bot(owner=owner, name=f"b{start + i}") for i in range(count))
    BotVersion.objects.bulk_create(
        BotVersion(
            bot=bot,
            number=1,
            code=f"bots/code/{bot.pk:064x}.py",
            code_sha256=f"{bot.pk:064x}",
            code_size=100,
            code_format=CodeFormat.FILE,
            status=VersionStatus.ACTIVE,
        )
        for bot in bots
    )
    return bots


def organiser() -> Any:
    from arena.players.models import User

    return User.objects.get(username="bench-organiser")


def ladder(seats: int) -> Any:
    from arena.ladders.models import Ladder
    from arena.ladders.flows import ladder_create

    found = Ladder.objects.filter(slug=f"classic-{seats}").first()
    return found or ladder_create(
        slug=f"classic-{seats}", name=f"Classic {seats}", rules="classic", seats=seats
    )


def finish_round_randomly(league: Any, number: int, rng: random.Random) -> None:
    """Give every game of the round a random result, as if the matches had been played."""
    from arena.leagues.models import GameStatus, LeagueGame, LeagueGameSeat

    games = LeagueGame.objects.filter(fixture__round__league=league, fixture__round__number=number)
    seats = list(LeagueGameSeat.objects.filter(game__in=games).order_by("game_id", "seat"))
    by_game: dict[int, list[Any]] = {}
    for seat in seats:
        by_game.setdefault(seat.game_id, []).append(seat)
    for table in by_game.values():
        ranks = list(range(1, len(table) + 1))
        rng.shuffle(ranks)
        for seat, rank in zip(table, ranks, strict=True):
            seat.rank, seat.money = rank, (len(table) - rank) * 100_000 + rng.randrange(50_000)
    LeagueGameSeat.objects.bulk_update(seats, ["rank", "money"], batch_size=5000)
    games.update(status=GameStatus.FINISHED)


def bench_swiss(entrants: int) -> None:
    from django.db import transaction

    from arena.leagues import services

    from arena.leagues.services import common, tick
    from arena.leagues.models import LeagueFormat

    print(f"Swiss, {entrants} entrants, 4 seats, 4 games per table (one rotation):")
    bots = make_bots(entrants)
    league = services.league_create(
        organiser=organiser(),
        ladder=ladder(4),
        name="Swiss bench",
        slug=f"swiss-{entrants}",
        format=LeagueFormat.SWISS,
        start_at=T0,
        round_interval=DAY,
        bots=bots,
        games_per_table=4,
        rounds=9,
        now=T0 - DAY,
    )
    rng = random.Random(1)
    for number in (1, 2):
        swiss_round(league, number, entrants)
        finish_round_randomly(league, number, rng)
        with transaction.atomic():
            locked = common.lock_league(league)
            tick._collect(locked)
            tick._close_rounds(locked, T0 + number * DAY)


def swiss_round(league: Any, number: int, entrants: int) -> None:
    """Time one Swiss round: pure pairing, pairing and storing, creating its matches."""
    from django.db import transaction

    from arena.leagues import formats

    from arena.leagues.services import common, standings, tick
    from arena.leagues.models import RoundStatus

    with transaction.atomic():
        locked = common.lock_league(league)
        if number == 1:
            # The start without its first round: freeze versions, put rounds on the calendar.
            timed(
                "start (freeze versions, calendar of 9 rounds)",
                lambda: tick._start(locked, T0),
            )
        rnd = locked.rounds.get(number=number)
        order = [line.entry for line in standings._compute_lines(locked)]
        played = tick._played_tables(locked)
        history = tick._seat_history(locked)

        def pure() -> None:
            players, _ = formats.swiss_byes(order, 4, {})
            tables = formats.swiss_tables(players, 4, played)
            formats.seat_tables(tables, seats=4, games_per_table=4, history=history)

        timed(f"round {number}: pairing and seating (formats, pure)", pure)
        timed(
            f"round {number}: pair and store ({entrants // 4} tables, {entrants} games)",
            lambda: tick.league_round_store_swiss(league=locked, rnd=rnd),
        )
        timed(
            f"round {number}: create and queue its {entrants} matches",
            lambda: tick._queue_games(locked, rnd),
        )
        rnd.status = RoundStatus.RUNNING
        rnd.save(update_fields=["status"])


def bench_round_robin(entrants: int, seats: int, max_tables: int) -> None:
    from django.db import transaction

    from arena.leagues import formats, services

    from arena.leagues.services import common, tick
    from arena.leagues.models import LeagueFormat, LeagueGame

    bots = make_bots(entrants)
    rounds = formats.round_robin_rounds(entrants, seats, max_tables=max_tables)
    tables = math.comb(entrants, seats)
    kind = "every combination" if tables <= max_tables else f"balanced design, C = {tables:,}"
    print(
        f"Round robin, {entrants} entrants, {seats} seats, 1 game per table "
        f"({kind}, {rounds} rounds):"
    )
    league = services.league_create(
        organiser=organiser(),
        ladder=ladder(seats),
        name=f"Round robin bench {seats}",
        slug=f"rr-{entrants}-{seats}",
        format=LeagueFormat.ROUND_ROBIN,
        start_at=T0,
        round_interval=DAY,
        bots=bots,
        max_tables=max_tables,
        now=T0 - DAY,
    )
    timed(
        "tables and seats of every round (formats, pure)",
        lambda: formats.seat_tables(
            [
                t
                for plan in formats.round_robin(entrants, seats, max_tables=max_tables)
                for t in plan.tables
            ],
            seats=seats,
            games_per_table=1,
        ),
    )
    with transaction.atomic():
        locked = common.lock_league(league)
        timed("start: generate and store every fixture", lambda: tick._start(locked, T0))
    games = LeagueGame.objects.filter(fixture__round__league=league).count()
    print(f"  {'stored':<58} {games:8d} games")


def bench_standings(games: int) -> None:
    from django.db import transaction

    from arena.leagues import selectors, services

    from arena.leagues.services import standings
    from arena.leagues.models import (
        EntryStatus,
        GameStatus,
        LeagueEntry,
        LeagueFixture,
        LeagueFormat,
        LeagueGame,
        LeagueGameSeat,
        LeagueRound,
        LeagueStatus,
    )

    entrants, seats, per_table = 512, 4, 4
    tables_per_round = entrants // seats
    rounds = -(-games // (tables_per_round * per_table))
    print(f"Standings over {games:,} games ({entrants} entrants, {rounds} rounds of 4 seats):")
    bots = make_bots(entrants)
    league = services.league_create(
        organiser=organiser(),
        ladder=ladder(seats),
        name="Standings bench",
        slug="standings",
        format=LeagueFormat.SWISS,
        start_at=T0,
        round_interval=DAY,
        bots=bots,
        games_per_table=per_table,
        rounds=rounds,
        now=T0 - DAY,
    )
    entries = list(league.entries.order_by("seed"))
    for entry in entries:
        entry.status = EntryStatus.PLAYING
    LeagueEntry.objects.bulk_update(entries, ["status"])
    rng = random.Random(7)

    def load() -> int:
        round_rows = LeagueRound.objects.bulk_create(
            LeagueRound(league=league, number=n, scheduled_at=T0 + (n - 1) * DAY, status="finished")
            for n in range(1, rounds + 1)
        )
        fixtures = LeagueFixture.objects.bulk_create(
            (
                LeagueFixture(round=r, table=t)
                for r in round_rows
                for t in range(1, tables_per_round + 1)
            ),
            batch_size=5000,
        )
        game_rows = [
            LeagueGame(
                fixture=f, number=k, deal=k, seed=rng.randrange(2**62), status=GameStatus.FINISHED
            )
            for f in fixtures
            for k in range(per_table)
        ][:games]
        LeagueGame.objects.bulk_create(game_rows, batch_size=5000)
        ids = [e.pk for e in entries]
        seat_rows = []
        table_of: dict[int, list[int]] = {}
        for game in game_rows:
            table = table_of.get(game.fixture_id)
            if table is None:
                table = table_of[game.fixture_id] = rng.sample(ids, seats)
            ranks = list(range(1, seats + 1))
            rng.shuffle(ranks)
            for seat in range(seats):
                entry = table[(seat - game.number) % seats]
                seat_rows.append(
                    LeagueGameSeat(
                        game=game,
                        seat=seat,
                        entry_id=entry,
                        rank=ranks[seat],
                        money=(seats - ranks[seat]) * 100_000 + rng.randrange(50_000),
                    )
                )
        LeagueGameSeat.objects.bulk_create(seat_rows, batch_size=10_000)
        return len(seat_rows)

    seats_loaded = timed("load (bulk create rounds, tables, games, seats)", load)
    print(f"  {'seat results':<58} {seats_loaded:8d}")
    league.status = LeagueStatus.RUNNING
    league.save(update_fields=["status"])
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    units = timed("read the results (scored units)", lambda: selectors.league_units(league=league))
    print(f"  {'units':<58} {len(units):8d}")
    timed(
        "read and compute the table (points, money, h2h, league Elo)",
        lambda: standings._compute_lines(league),
    )
    with transaction.atomic():
        timed(
            "recompute and store the standings (all of it)",
            lambda: services.league_standings_recompute(league=league),
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="smaller sizes (smoke run)")
    parser.add_argument(
        "--pg", default="postgres://postgres@127.0.0.1:5432", help="PostgreSQL server"
    )
    args = parser.parse_args()
    data_dir = Path(tempfile.mkdtemp(prefix="arena-bench-leagues-"))
    try:
        with bench_database(args.pg) as url:
            os.environ.update(
                {
                    "DJANGO_SETTINGS_MODULE": "arena.settings",
                    "DATABASE_URL": url,
                    "ARENA_DATA_DIR": str(data_dir),
                    "SECRET_KEY": "bench-only",
                    "CELERY_BROKER_URL": "memory://",
                    "CELERY_RESULT_BACKEND": "cache+memory://",
                    "LOG_LEVEL": "ERROR",
                }
            )
            import django
            from django.core.management import call_command

            django.setup()
            from arena.leagues import services

            started = time.perf_counter()
            call_command("migrate", verbosity=0)
            print(f"database {BENCH_DB} migrated in {time.perf_counter() - started:.1f} s\n")
            bench_swiss(64 if args.quick else 512)
            print()
            size = 16 if args.quick else 64
            # 4 seats: C(64, 4) = 635,376 is over the default cap, so a balanced design;
            # 2 seats: the cap raised to every pair (2,016 tables, the circle method).
            bench_round_robin(size, 4, services.DEFAULT_MAX_TABLES)
            print()
            bench_round_robin(size, 2, size * (size - 1) // 2)
            print()
            bench_standings(5_000 if args.quick else 100_000)
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
