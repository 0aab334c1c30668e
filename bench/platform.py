"""Platform benchmark: a full-size database, API and page latency, ratings, the match pipeline.

    python3 bench/platform.py            # 10,000 bots, 1,000,000 matches (a few minutes)
    python3 bench/platform.py --quick    # 500 bots, 20,000 matches (smoke run, under a minute)
    python3 bench/platform.py --pipeline-only   # the match pipeline only (no bulk load)
    python3 bench/platform.py --reuse --only ladder --only "bot page"
        # load once and keep the database; later runs measure it again (no load), here
        # only the endpoints whose label or URL contains "ladder" or "bot page"

It creates its own database (``arena_bench``, ``--database`` names another;
dropped again at the end, even on errors, unless ``--keep`` or ``--reuse``) on
the PostgreSQL server at 127.0.0.1:5432 (``--pg`` names another), and a
temporary data folder for files. With ``--reuse`` a database this bench loaded
at the same size is measured again as it is (migrated, not loaded again: the
full load takes minutes); without one it is loaded and kept. Then:

* **fair share**: the scheduler's games per bot on each default ladder over
  30 simulated minutes, taking turns beside the old one-ladder-at-a-time fill;
* **load**: the house bots and ladders (``load_house_bots``), then players,
  bots, versions, rated matches with their seats, ratings and rating changes,
  written with COPY into tables whose indexes and constraints are dropped for
  the load and rebuilt after it (then VACUUM ANALYZE, as a live database);
* **latency**: median and p95 over N in-process requests (Django's test
  Client, in a process loaded by ``arena.wsgi``) of every page and API list,
  wall time and, beside it, the CPU time of this process (the time Python
  spent; the wall time adds PostgreSQL's and any wait for a CPU on a busy
  machine);
* **ratings**: the Elo service (``ratings_apply``) rating new results one
  match per call, as the tasks do, and a backlog in one call;
* **pipeline**: when ``arena.ladders.tasks.match_run`` exists, matches per
  minute end to end (queued, played by the referee, recorded and rated) and
  the rating lag (finished -> rated, p50 and p95) with a Celery worker of 1
  process with the ratings queued behind the matches (as before they had a
  queue of their own), then reading both queues, then beside a ratings worker
  of its own (as ``make run`` runs it), then 2 processes beside it; on Redis at
  127.0.0.1:6379 (db 13) when it answers, else on the embedded broker;
* **pipeline by series**: the same on 4-seat classic, a match per worker run
  (as before series) beside the ladder's series of games per run, side by
  side, with one match's time broken down (queue, start, play, store, rate).

It prints numbers and never fails on one.
"""

from __future__ import annotations

import sys
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
# This file is named like the standard library's `platform` module: its folder
# must not be on the path, or `import platform` (celery, psycopg...) finds it.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != BENCH_DIR]
sys.path[:0] = [str(REPO), str(REPO / "platform")]

import argparse
import functools
import io
import json
import math
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, TextIO

import psycopg
from psycopg import sql

BENCH_DB = "arena_bench"
REDIS = ("127.0.0.1", 6379)
REDIS_URL = "redis://127.0.0.1:6379/13"  # a database of its own on a shared server
LADDER_SHARES = (("classic-4", 0.5), ("boulevard-4", 0.3), ("classic-2", 0.2))
BOTS_PER_OWNER = 4
# Of the loaded matches: those with a house bot at one seat (the house bots are the
# busiest bots: they play every ladder from the first minute), and the unrated
# challenges of private bots (tested privately: anonymous visitors never see them).
HOUSE_SEAT_SHARE = 0.25
CHALLENGE_SHARE = 0.01
CHALLENGE_GAMES = 5
#: Every page and API list answers within this (p95, issue 14).
LATENCY_TARGET_MS = 100.0
#: A finished match is rated within this (p95) while matches queue (issue 14).
RATING_LAG_TARGET_S = 1.0


@dataclass(frozen=True)
class Sizes:
    bots: int
    matches: int
    requests: int
    elo_matches: int
    pipeline_matches: int
    #: A Swiss league on classic-4: entrants, and rounds played of its 9.
    league_entrants: int
    league_rounds: int


FULL = Sizes(
    bots=10_000,
    matches=1_000_000,
    requests=200,
    elo_matches=1_000,
    pipeline_matches=30,
    league_entrants=512,
    league_rounds=5,
)
QUICK = Sizes(
    bots=500,
    matches=20_000,
    requests=20,
    elo_matches=100,
    pipeline_matches=4,
    league_entrants=32,
    league_rounds=2,
)


def _reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def _say(text: str) -> None:
    print(text, flush=True)


@contextmanager
def _timed(label: str) -> Iterator[None]:
    start = time.perf_counter()
    yield
    _say(f"  {label:<44} {time.perf_counter() - start:7.1f} s")


# --------------------------------------------------------------------------- database


def _server_params(url: str) -> dict[str, Any]:
    info = psycopg.conninfo.conninfo_to_dict(url)
    info.pop("dbname", None)
    return info


def _create_database(server: dict[str, Any], database: str) -> None:
    with psycopg.connect(**server, dbname="postgres", autocommit=True) as conn:
        name = sql.Identifier(database)
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(name))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(name))


def _loaded_mark(sizes: Sizes) -> str:
    """The comment a fully loaded database gets: ``--reuse`` measures only such a one."""
    return f"arena bench: {sizes.bots} bots, {sizes.matches} matches loaded"


def _is_loaded(server: dict[str, Any], database: str, sizes: Sizes) -> bool:
    with psycopg.connect(**server, dbname="postgres", autocommit=True) as conn:
        row = conn.execute(
            "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = %s",
            (database,),
        ).fetchone()
    return row is not None and row[0] == _loaded_mark(sizes)


def _mark_loaded(server: dict[str, Any], database: str, sizes: Sizes) -> None:
    with psycopg.connect(**server, dbname="postgres", autocommit=True) as conn:
        conn.execute(
            sql.SQL("COMMENT ON DATABASE {} IS {}").format(
                sql.Identifier(database), sql.Literal(_loaded_mark(sizes))
            )
        )


def _drop_database(server: dict[str, Any], database: str) -> None:
    with psycopg.connect(**server, dbname="postgres", autocommit=True) as conn:
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(database))
        )


def _bench_env(
    server: dict[str, Any], database: str, data_dir: Path, broker: str
) -> dict[str, str]:
    host, port, user = server.get("host", "127.0.0.1"), server.get("port", 5432), server["user"]
    password = f":{server['password']}" if server.get("password") else ""
    return {
        "DJANGO_SETTINGS_MODULE": "arena.settings",
        "DATABASE_URL": f"postgres://{user}{password}@{host}:{port}/{database}",
        "ARENA_DATA_DIR": str(data_dir),
        "SECRET_KEY": "bench-only-secret-key",
        "DEBUG": "0",
        # Django's test Client calls itself "testserver".
        "ALLOWED_HOSTS": "testserver,localhost,127.0.0.1",
        "CELERY_BROKER_URL": broker,
        "CELERY_TASK_ALWAYS_EAGER": "0",
        "LOG_LEVEL": "WARNING",
        "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "platform")]),
    }


# --------------------------------------------------------------------------- bulk load


def _copy_text(value: Any) -> str:
    """A value in COPY's text format."""
    if value is None:
        return r"\N"
    if isinstance(value, bool):
        return "t" if value else "f"
    if isinstance(value, dict | list):
        value = json.dumps(value)
    elif isinstance(value, datetime):
        value = value.isoformat()
    text = str(value)
    return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


class Table:
    """COPY rows into a model's table: ``fields`` come with each row, the other
    columns get their model default (so a field added later needs no change here)."""

    def __init__(self, model: Any, fields: list[str], now: datetime) -> None:
        concrete = {f.attname: f for f in model._meta.concrete_fields}
        missing = [name for name in fields if name not in concrete]
        if missing:
            raise SystemExit(f"{model.__name__} has no field {missing}: update bench/platform.py")
        rest = [f for name, f in concrete.items() if name not in fields]
        self.name = model._meta.db_table
        self.columns = [concrete[name].column for name in fields] + [f.column for f in rest]
        self.suffix = "".join("\t" + _copy_text(self._default(f, now)) for f in rest) + "\n"

    @staticmethod
    def _default(field: Any, now: datetime) -> Any:
        value = field.get_default()
        if value is None and not field.null:
            if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
                return now
            raise SystemExit(f"bench/platform.py must set {field} (no default, not null)")
        return value

    def copy(self, conn: psycopg.Connection[Any], source: TextIO | list[str]) -> None:
        statement = sql.SQL("COPY {} ({}) FROM STDIN").format(
            sql.Identifier(self.name), sql.SQL(", ").join(map(sql.Identifier, self.columns))
        )
        with conn.cursor() as cursor, cursor.copy(statement) as copy:
            if isinstance(source, list):
                copy.write("".join(source))
                return
            while block := source.read(1 << 20):
                copy.write(block)


@contextmanager
def _without_indexes(conn: psycopg.Connection[Any], tables: list[str]) -> Iterator[None]:
    """Drop the tables' keys, indexes and foreign keys for a bulk load; rebuild them after."""
    names = [f"public.{t}" for t in tables]
    foreign = conn.execute(
        "SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid) FROM pg_constraint "
        "WHERE contype = 'f' AND (conrelid = ANY(%(t)s::regclass[]) "
        "OR confrelid = ANY(%(t)s::regclass[]))",
        {"t": names},
    ).fetchall()
    keys = conn.execute(
        "SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid) FROM pg_constraint "
        "WHERE contype IN ('p', 'u') AND conrelid = ANY(%s::regclass[]) ORDER BY contype",
        (names,),
    ).fetchall()
    indexes = conn.execute(
        "SELECT indexrelid::regclass::text, pg_get_indexdef(indexrelid) FROM pg_index i "
        "WHERE indrelid = ANY(%s::regclass[]) "
        "AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)",
        (names,),
    ).fetchall()
    for table, name, _ in foreign + keys:
        conn.execute(
            sql.SQL("ALTER TABLE {} DROP CONSTRAINT {}").format(
                sql.SQL(table), sql.Identifier(name)
            )
        )
    for index, _ in indexes:
        conn.execute(sql.SQL("DROP INDEX {}").format(sql.SQL(index)))
    yield
    conn.execute("SET maintenance_work_mem = '1GB'")
    for table, name, definition in keys:
        conn.execute(
            sql.SQL("ALTER TABLE {} ADD CONSTRAINT {} {}").format(
                sql.SQL(table), sql.Identifier(name), sql.SQL(definition)
            )
        )
    for _, definition in indexes:
        conn.execute(sql.SQL(definition))
    for table, name, definition in foreign:
        conn.execute(
            sql.SQL("ALTER TABLE {} ADD CONSTRAINT {} {}").format(
                sql.SQL(table), sql.Identifier(name), sql.SQL(definition)
            )
        )


def _next_id(conn: psycopg.Connection[Any], table: str) -> int:
    row = conn.execute(
        sql.SQL("SELECT COALESCE(MAX(id), 0) + 1 FROM {}").format(sql.Identifier(table))
    ).fetchone()
    assert row is not None
    return int(row[0])


def _elo_changes(ratings: list[float], counts: list[int], ranks: list[int]) -> list[float]:
    """The platform's pairwise Elo (arena/ladders/elo.py), inlined for speed."""
    n = len(ratings)
    changes = []
    for s in range(n):
        total = 0.0
        for o in range(n):
            if o != s:
                score = 1.0 if ranks[s] < ranks[o] else 0.5 if ranks[s] == ranks[o] else 0.0
                total += score - 1.0 / (1.0 + 10.0 ** ((ratings[o] - ratings[s]) / 400.0))
        # k_factor: K_SCALE / (PRIOR_GAMES + games' worth), K_FLOOR at least.
        k = max(4.0, 700.0 / (5.0 + counts[s] * 3.0 * (n - 1) / (n + 1)))
        changes.append(k * 3.0 / (n + 1) * total)
    return changes


def load(sizes: Sizes, data_dir: Path, dsn: str) -> None:
    """Players, bots (entered on every ladder, qualified), versions, rated matches, the
    challenges of private bots, ratings and rating changes, by COPY."""
    from arena.bots.models import Bot, BotVersion
    from arena.ladders.models import (
        Challenge,
        Entry,
        Ladder,
        Qualification,
        Rating,
        RatingChange,
    )
    from arena.matches.models import Match, Participant
    from arena.players.models import Profile, User

    now = datetime.now(UTC)
    rng = random.Random(2024)
    ladders = {ladder.slug: ladder for ladder in Ladder.objects.all()}
    shares = [(ladders[slug], share) for slug, share in LADDER_SHARES if slug in ladders]
    if not shares:
        raise SystemExit("load_house_bots created no ladder: nothing to load matches into")
    house = list(
        BotVersion.objects.filter(bot__owner__profile__is_house=True, status="active")
        .order_by("pk")
        .values_list("pk", "bot_id")
    )

    with psycopg.connect(dsn) as conn, ExitStack() as stack:
        conn.execute("SET synchronous_commit = off")
        tables = {
            "user": Table(User, ["id", "username", "password", "email", "date_joined"], now),
            "profile": Table(Profile, ["id", "user_id", "display_name"], now),
            "bot": Table(Bot, ["id", "owner_id", "name", "visibility"], now),
            "version": Table(
                BotVersion,
                [
                    *("id", "bot_id", "number", "parent_id", "code", "code_sha256"),
                    *("code_size", "code_format", "status"),
                ],
                now,
            ),
            "match": Table(
                Match,
                [
                    *("id", "ladder_id", "seed", "status", "attempts", "created_at"),
                    *("started_at", "finished_at", "rated", "rated_at"),
                    # The game and limits each match keeps (copied from its ladder).
                    *("rules", "seats", "options", "time_per_decision_ms", "time_bank_ms"),
                    "memory_mb",
                ],
                now,
            ),
            "participant": Table(
                Participant,
                [
                    *("id", "match_id", "seat", "bot_version_id", "money", "rank"),
                    *("rating_before", "rating_after"),
                ],
                now,
            ),
            "rating": Table(
                Rating,
                ["id", "ladder_id", "bot_id", "bot_version_id", "rating", "rated_matches"],
                now,
            ),
            "change": Table(
                RatingChange,
                [
                    *("id", "rating_id", "match_id", "rating_before", "rating_after", "k"),
                    *("matches_before", "created_at"),
                ],
                now,
            ),
            "entry": Table(Entry, ["id", "ladder_id", "bot_id"], now),
            "qualification": Table(
                Qualification, ["id", "ladder_id", "bot_version_id", "status", "seed"], now
            ),
            "challenge": Table(
                Challenge,
                ["id", "requested_by_id", "ladder_id", "bot_version_id", "games", "created_at"],
                now,
            ),
            "challenge_match": Table(
                Challenge.matches.through, ["id", "challenge_id", "match_id"], now
            ),
        }
        ids = {key: _next_id(conn, table.name) for key, table in tables.items()}

        # ---- players, bots, versions (in memory: small)
        owners = math.ceil(sizes.bots / BOTS_PER_OWNER)
        users, profiles, bots, versions = [], [], [], []
        entries: list[str] = []
        qualifications: list[str] = []
        pool: list[tuple[int, int]] = []  # (version id, bot id) of active public versions
        private_pool: list[tuple[int, int]] = []  # (version id, owner id) of private ones
        suffix = {key: table.suffix for key, table in tables.items()}
        for n in range(owners):
            uid = ids["user"] + n
            users.append(f"{uid}\tbench{n}\t!\tbench{n}@example.org\t{now.isoformat()}")
            users[-1] += suffix["user"]
            profiles.append(f"{ids['profile'] + n}\t{uid}\tBench {n}{suffix['profile']}")
        vid = ids["version"]
        for n in range(sizes.bots):
            bid = ids["bot"] + n
            private = n % 20 == 19  # 5 %: tested privately, never on a ladder
            visibility = "private" if private else "public"
            owner = ids["user"] + n // BOTS_PER_OWNER
            bots.append(f"{bid}\t{owner}\tbot{n}\t{visibility}{suffix['bot']}")
            if not private:  # a new bot enters every ladder (the upload's default)
                for ladder in ladders.values():
                    eid = ids["entry"] + len(entries)
                    entries.append(f"{eid}\t{ladder.pk}\t{bid}{suffix['entry']}")
            parent = r"\N"
            for number in (1, 2) if n % 5 == 0 else (1,):  # a fifth have a retired v1
                sha = f"{bid:064x}{number}"[-64:]
                status = "retired" if number == 1 and n % 5 == 0 else "active"
                versions.append(
                    f"{vid}\t{bid}\t{number}\t{parent}\tbots/code/{sha[:2]}/{sha}.py\t{sha}\t1000"
                    f"\tpy\t{status}{suffix['version']}"
                )
                parent = str(vid)
                if status == "active" and private:
                    private_pool.append((vid, owner))
                elif status == "active":
                    pool.append((vid, bid))
                    for ladder in ladders.values():
                        qid = ids["qualification"] + len(qualifications)
                        qualifications.append(
                            f"{qid}\t{ladder.pk}\t{vid}\tpassed\t{bid}{suffix['qualification']}"
                        )
                vid += 1

        # ---- matches with seats and rating changes (to files: millions of rows)
        ratings: dict[tuple[int, int], list[Any]] = {}  # (ladder, version) -> [id, bot, r, n]
        next_rating = ids["rating"]
        start = now - timedelta(days=365)
        step = (now - timedelta(hours=1) - start).total_seconds() / max(sizes.matches, 1)
        files = {
            key: stack.enter_context(open(data_dir / f"{key}.copy", "w+"))
            for key in ("match", "part", "change")
        }
        cumulative = []
        acc = 0.0
        for ladder, share in shares:
            acc += share
            game = "\t".join(
                _copy_text(value)
                for value in (
                    ladder.rules,
                    ladder.seats,
                    json.dumps(ladder.options),
                    ladder.time_per_decision_ms,
                    ladder.time_bank_ms,
                    ladder.memory_mb,
                )
            )
            cumulative.append((acc / sum(s for _, s in shares), ladder.pk, ladder.seats, game))
        pid, cid = ids["participant"], ids["change"]
        sm, sp, sc = suffix["match"], suffix["participant"], suffix["change"]
        fm, fp, fc = files["match"].write, files["part"].write, files["change"].write
        challenges: list[str] = []
        challenge_matches: list[str] = []
        challenge: list[Any] = []  # the challenge being played: [id, version, games left]
        base = start.timestamp()
        for n in range(sizes.matches):
            mid = ids["match"] + n
            pick = rng.random()
            ladder_id, seats, game = next(
                (lid, s, g) for cut, lid, s, g in cumulative if pick <= cut
            )
            t = base + n * step
            created = datetime.fromtimestamp(t - 60, UTC).isoformat()
            finished = datetime.fromtimestamp(t, UTC).isoformat()
            chosen = rng.sample(pool, seats)
            if house and rng.random() < HOUSE_SEAT_SHARE:
                pick_house = rng.choice(house)
                if pick_house not in chosen:
                    chosen[rng.randrange(seats)] = pick_house
            order = list(range(seats))
            rng.shuffle(order)
            ranks = [0] * seats
            for position, seat in enumerate(order):
                ranks[seat] = position + 1
            if private_pool and (challenge or rng.random() < CHALLENGE_SHARE):
                # An unrated game of a private bot's challenge: no rating moves.
                if not challenge:
                    version_id, owner_id = rng.choice(private_pool)
                    challenge = [ids["challenge"] + len(challenges), version_id, CHALLENGE_GAMES]
                    challenges.append(
                        f"{challenge[0]}\t{owner_id}\t{ladder_id}\t{version_id}"
                        f"\t{CHALLENGE_GAMES}\t{created}{suffix['challenge']}"
                    )
                challenge_matches.append(
                    f"{ids['challenge_match'] + len(challenge_matches)}\t{challenge[0]}\t{mid}"
                    f"{suffix['challenge_match']}"
                )
                chosen[0] = (challenge[1], 0)
                challenge[2] -= 1
                if not challenge[2]:
                    challenge = []
                fm(
                    f"{mid}\t{ladder_id}\t{rng.getrandbits(62)}\tfinished\t1\t{created}"
                    f"\t{created}\t{finished}\tf\t\\N\t{game}{sm}"
                )
                for seat in range(seats):
                    fp(
                        f"{pid}\t{mid}\t{seat}\t{chosen[seat][0]}"
                        f"\t{(seats - ranks[seat]) * 90_000}\t{ranks[seat]}\t\\N\t\\N{sp}"
                    )
                    pid += 1
                continue
            fm(
                f"{mid}\t{ladder_id}\t{rng.getrandbits(62)}\tfinished\t1\t{created}\t{created}"
                f"\t{finished}\tt\t{finished}\t{game}{sm}"
            )
            rows = []
            for version_id, bot_id in chosen:
                row = ratings.get((ladder_id, version_id))
                if row is None:
                    row = ratings[(ladder_id, version_id)] = [next_rating, bot_id, 1500.0, 0]
                    next_rating += 1
                rows.append(row)
            before = [row[2] for row in rows]
            counts = [row[3] for row in rows]
            changes = _elo_changes(before, counts, ranks)
            for seat in range(seats):
                row = rows[seat]
                after = before[seat] + changes[seat]
                k = 48.0 if counts[seat] < 30 else 16.0
                fp(
                    f"{pid}\t{mid}\t{seat}\t{chosen[seat][0]}\t{(seats - ranks[seat]) * 90_000}"
                    f"\t{ranks[seat]}\t{before[seat]:.4f}\t{after:.4f}{sp}"
                )
                fc(
                    f"{cid}\t{row[0]}\t{mid}\t{before[seat]:.4f}\t{after:.4f}\t{k}"
                    f"\t{counts[seat]}\t{finished}{sc}"
                )
                row[2], row[3] = after, counts[seat] + 1
                pid += 1
                cid += 1
        rating_rows = [
            f"{rid}\t{ladder_id}\t{bot_id}\t{version_id}\t{value:.4f}\t{count}{suffix['rating']}"
            for (ladder_id, version_id), (rid, bot_id, value, count) in ratings.items()
        ]

        with _without_indexes(conn, [table.name for table in tables.values()]):
            tables["user"].copy(conn, users)
            tables["profile"].copy(conn, profiles)
            tables["bot"].copy(conn, bots)
            tables["version"].copy(conn, versions)
            for key, table in (("match", "match"), ("part", "participant"), ("change", "change")):
                files[key].seek(0)
                tables[table].copy(conn, files[key])
            tables["rating"].copy(conn, rating_rows)
            tables["entry"].copy(conn, entries)
            tables["qualification"].copy(conn, qualifications)
            tables["challenge"].copy(conn, challenges)
            tables["challenge_match"].copy(conn, challenge_matches)
        for handle in files.values():
            Path(handle.name).unlink()
        for copied in tables.values():
            conn.execute(
                sql.SQL("SELECT setval(pg_get_serial_sequence({}, 'id'), MAX(id)) FROM {}").format(
                    sql.Literal(copied.name), sql.Identifier(copied.name)
                )
            )
        conn.commit()
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("VACUUM (ANALYZE)")  # visibility map and statistics, as a live database
    _say(
        f"  loaded {owners:,} players, {sizes.bots:,} bots, {len(versions):,} versions, "
        f"{sizes.matches:,} matches, {pid - ids['participant']:,} seats, "
        f"{len(ratings):,} ratings, {cid - ids['change']:,} rating changes, "
        f"{len(challenges):,} challenges ({len(challenge_matches):,} matches)"
    )


def load_league(sizes: Sizes) -> None:
    """A public Swiss league on classic-4 (unrated: off the ladder's Elo) with
    ``league_entrants`` bots, ``league_rounds`` of its 9 rounds played and the
    next one queued, through the leagues services; each round's matches are
    given results as a worker would record them."""
    from django.db import transaction

    from arena.bots.models import Bot
    from arena.ladders.models import Ladder
    from arena.leagues.models import LeagueFormat
    from arena.leagues.services import league_advance, league_create
    from arena.matches.models import Match, MatchStatus, Participant
    from arena.players.services import player_create

    rng = random.Random(5)
    ladder = Ladder.objects.get(slug="classic-4")
    organiser = player_create(username="bench-organiser", is_staff=True)
    bots = list(
        Bot.objects.filter(visibility="public", owner__profile__is_house=False).order_by("pk")[
            : sizes.league_entrants
        ]
    )
    interval = timedelta(hours=1)
    start = datetime.now(UTC) - (sizes.league_rounds + 1) * interval
    league = league_create(
        organiser=organiser,
        ladder=ladder,
        name="Bench Swiss",
        slug="bench-swiss",
        format=LeagueFormat.SWISS,
        start_at=start,
        round_interval=interval,
        bots=bots,
        games_per_table=4,
        rated=False,
        rounds=9,
        now=start - interval,
    )
    league_matches = Match.objects.filter(league_game__fixture__round__league=league)
    for number in range(sizes.league_rounds + 1):
        when = start + number * interval
        league_advance(league=league, now=when)
        if number == sizes.league_rounds:
            break  # the next round is queued, as in a running league
        with transaction.atomic():
            played = list(league_matches.filter(status=MatchStatus.QUEUED))
            seats = list(Participant.objects.filter(match__in=played).order_by("match_id", "seat"))
            by_match: dict[int, list[Any]] = {}
            for seat in seats:
                by_match.setdefault(seat.match_id, []).append(seat)
            for table in by_match.values():
                ranks = list(range(1, len(table) + 1))
                rng.shuffle(ranks)
                for seat, rank in zip(table, ranks, strict=True):
                    seat.rank, seat.money = rank, (len(table) - rank) * 90_000
            Participant.objects.bulk_update(seats, ["rank", "money"], batch_size=5000)
            league_matches.filter(pk__in=[m.pk for m in played]).update(
                status=MatchStatus.FINISHED, attempts=1, started_at=when, finished_at=when
            )
    _say(
        f"  league {league.slug}: {len(bots)} entrants, {sizes.league_rounds} of 9 rounds "
        f"played, {league_matches.count():,} matches"
    )


def load_played_match() -> int:
    """A classic-4 match of the house bots played by the platform (``match_run``), so the
    match page and the log API read a real stored log. Unrated: off the Elo."""
    from arena.bots.models import BotVersion
    from arena.ladders.models import Ladder
    from arena.matches.services import match_create, match_run

    ladder = Ladder.objects.get(slug="classic-4")
    house = list(
        BotVersion.objects.filter(bot__owner__profile__is_house=True, status="active")
        .select_related("bot")
        .order_by("pk")[: ladder.seats]
    )
    match = match_create(ladder_id=ladder.pk, game=ladder.game, versions=house, rated=False)
    match = match_run(match=match).match
    if not match.log:
        raise RuntimeError(f"the showcase match was not played: {match.status} {match.error}")
    return match.pk


# --------------------------------------------------------------------------- latency


#: Seconds of requests per latency line at most: a slow page stops early (n says so).
LATENCY_BUDGET_S = 20.0


def _p95(times: list[float]) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)]


@dataclass(frozen=True)
class Latency:
    """Per request, in ms: wall time, and this process's CPU time (not PostgreSQL's)."""

    median: float
    p95: float
    cpu_median: float
    cpu_p95: float
    timed: int


def _latency(call: Callable[[], Any], requests: int) -> Latency:
    """Wall and CPU time of ``requests`` calls (fewer when they pass the budget)."""
    for _ in range(min(5, requests)):  # warm caches and connections
        call()
    times: list[float] = []
    cpu: list[float] = []
    began = time.perf_counter()
    while len(times) < requests and (
        len(times) < 10 or time.perf_counter() - began < LATENCY_BUDGET_S
    ):
        start, start_cpu = time.perf_counter(), time.process_time()
        call()
        cpu.append((time.process_time() - start_cpu) * 1000)
        times.append((time.perf_counter() - start) * 1000)
    return Latency(
        statistics.median(times), _p95(times), statistics.median(cpu), _p95(cpu), len(times)
    )


@dataclass(frozen=True)
class Target:
    """One GET measured: ``user`` None is an anonymous visitor."""

    label: str
    url: str
    user: Any = None
    #: Cache keys deleted before each request: the page as its cache expires.
    uncached: tuple[str, ...] = ()


def latency_targets(showcase_match: int | None) -> list[Target]:
    """Every page and API list (and each one-object read beside them), on the biggest
    ladder, the busiest bot (a house bot), a typical bot, the league, a real log."""
    from django.db.models import Count

    from arena.bots.models import Bot
    from arena.ladders.models import Challenge, Ladder
    from arena.ladders.selectors import ladder_leaderboard
    from arena.leagues.models import League
    from arena.matches.models import Match, MatchStatus, Participant
    from arena.players.models import User
    from arena.web.selectors import HOME_CACHE_KEY, HOME_CACHE_KEYS

    slug = LADDER_SHARES[0][0]
    house = list(Bot.objects.filter(owner__profile__is_house=True).values_list("pk", flat=True))
    busiest = (
        Participant.objects.filter(bot_version__bot_id__in=house)
        .values("bot_version__bot_id")
        .annotate(n=Count("pk"))
        .order_by("-n")
        .values_list("bot_version__bot_id", flat=True)
        .first()
    )
    typical = Bot.objects.filter(name="bot0").values_list("pk", flat=True).first()
    challenge = Challenge.objects.select_related("bot_version__bot").order_by("-pk").first()
    author = challenge.requested_by if challenge else User.objects.filter(username="bench0").first()
    private_bot = challenge.bot_version.bot_id if challenge else typical
    league = League.objects.order_by("pk").values_list("slug", flat=True).first()
    latest = (
        Match.objects.filter(status=MatchStatus.FINISHED, log="")
        .order_by("-id")
        .values_list("pk", flat=True)
        .first()
    )
    ladder = Ladder.objects.get(slug=slug)
    settled = ladder_leaderboard(ladder=ladder, provisional=False).count()
    standings = ladder_leaderboard(ladder=ladder).count()
    last_page = max(1, math.ceil(settled / 50))
    targets = [
        Target("home", "/"),
        Target("home, its cache expired", "/", uncached=(HOME_CACHE_KEY,)),
        Target("home, its bot counts expired too", "/", uncached=HOME_CACHE_KEYS),
        Target("docs index", "/docs/"),
        Target("a docs page", "/docs/platform/"),
        Target("kits", "/kits/"),
        Target("ladder page", f"/ladders/{slug}/"),
        Target("ladder page, last page", f"/ladders/{slug}/?page={last_page}"),
        Target("ladder page, live part", f"/ladders/{slug}/live/"),
        Target("ladder page, signed in", f"/ladders/{slug}/", author),
        Target("bot page, busiest bot", f"/bots/{busiest}/"),
        Target("bot page, typical bot", f"/bots/{typical}/"),
        Target("bot page, its owner", f"/bots/{private_bot}/", author),
        Target("bot page, versions part", f"/bots/{typical}/versions/"),
        Target("match page, with its log", f"/matches/{showcase_match}/"),
        Target("match page, no log", f"/matches/{latest}/"),
        Target("leagues", "/leagues/"),
        Target("league page", f"/leagues/{league}/"),
        Target("player page, house", "/players/house/"),
        Target("player page, a player", f"/players/{author.username if author else 'bench0'}/"),
        Target("challenge page", f"/challenges/{challenge.pk if challenge else 0}/", author),
        Target("upload page", "/upload/", author),
        Target("new league page", "/leagues/new/", author),
        Target("sign-up page", "/signup/"),
        Target("log-in page", "/login/"),
        Target("API index", "/api/"),
        Target("API ladders", "/api/ladders/"),
        Target("API ladder", f"/api/ladders/{slug}/"),
        Target("API standings, first page", f"/api/ladders/{slug}/leaderboard/"),
        Target(
            "API standings, last page",
            f"/api/ladders/{slug}/leaderboard/?offset={max(0, standings - 50)}",
        ),
        Target("API ladder's latest matches", f"/api/ladders/{slug}/matches/"),
        Target("API ladder's matches, signed in", f"/api/ladders/{slug}/matches/", author),
        Target("API matches", "/api/matches/"),
        Target("API matches of a ladder", f"/api/matches/?ladder={slug}"),
        Target("API matches, finished", "/api/matches/?status=finished"),
        Target(
            "API matches, created after",
            f"/api/matches/?created_after={(datetime.now(UTC) - timedelta(days=30)).date()}",
        ),
        Target("API busiest bot's matches", f"/api/matches/?bot={busiest}"),
        Target("API typical bot's matches", f"/api/matches/?bot={typical}"),
        Target("API bot's matches, its owner", f"/api/matches/?bot={private_bot}", author),
        Target("API match", f"/api/matches/{latest}/"),
        Target("API match log", f"/api/matches/{showcase_match}/log/"),
        Target("API bots", "/api/bots/"),
        Target("API bots, last page", "/api/bots/?offset=9950"),
        Target(
            "API bots of a player", f"/api/bots/?owner={author.username if author else 'bench0'}"
        ),
        Target("API bot", f"/api/bots/{busiest}/"),
        Target("API bot versions", f"/api/bots/{typical}/versions/"),
        Target("API bot version", f"/api/bots/{typical}/versions/1/"),
        Target("API bot's ladders", f"/api/bots/{busiest}/ladders/"),
        Target("API challenges", "/api/challenges/", author),
        Target("API challenge", f"/api/challenges/{challenge.pk if challenge else 0}/", author),
        Target("API leagues", "/api/leagues/"),
        Target("API league", f"/api/leagues/{league}/"),
        Target("API league entries", f"/api/leagues/{league}/entries/"),
        Target("API league rounds", f"/api/leagues/{league}/rounds/"),
        Target("API league fixtures", f"/api/leagues/{league}/fixtures/"),
        Target("API league fixtures, a round", f"/api/leagues/{league}/fixtures/?round=1"),
        Target("API league standings", f"/api/leagues/{league}/standings/"),
    ]
    return targets


def _follow_next(client: Any, url: str) -> str | None:
    """The ``next`` page of an API list (a cursor page), to measure a second page too."""
    response = client.get(url)
    if response.status_code != 200:
        return None
    following = response.json().get("next")
    return following.removeprefix("http://testserver") if following else None


def measure_latency(
    sizes: Sizes, showcase_match: int | None = None, only: list[str] | None = None
) -> None:
    """p95 of every page and API list beside the target (``LATENCY_TARGET_MS``); ``only``:
    just the endpoints whose label or URL contains one of these (case-insensitive)."""
    from django.core.cache import cache
    from django.test import Client

    # The requests run in a process set up as a server's worker: the application loaded
    # by arena.wsgi, which freezes its objects for the garbage collector.
    import arena.wsgi  # noqa: F401

    targets = latency_targets(showcase_match)
    clients: dict[Any, Any] = {}

    def client_of(user: Any) -> Any:
        if user not in clients:
            clients[user] = Client()
            if user is not None:
                clients[user].force_login(user)
        return clients[user]

    # Second pages of the cursor lists (keyset pages: as fast as the first).
    for label, url in (
        ("API ladder's matches, next page", f"/api/ladders/{LADDER_SHARES[0][0]}/matches/"),
        ("API matches, next page", "/api/matches/"),
    ):
        following = _follow_next(client_of(None), url)
        if following:
            targets.append(Target(label, following))
    if only:
        wanted = [text.lower() for text in only]
        targets = [
            t for t in targets if any(w in t.label.lower() or w in t.url.lower() for w in wanted)
        ]
    _say(
        f"{'request (in-process)':<44} {'median':>9} {'p95':>9}   {'CPU med':>9} {'CPU p95':>9}"
        f"   target p95 < {LATENCY_TARGET_MS:.0f} ms, n={sizes.requests}"
    )
    over = []
    for target in targets:
        client = client_of(target.user)
        response = client.get(target.url)
        if response.status_code != 200:
            _say(f"  {target.label:<42} not measured: {target.url} answered {response.status_code}")
            continue

        def call(
            url: str = target.url, client: Any = client, uncached: tuple[str, ...] = target.uncached
        ) -> None:
            if uncached:
                cache.delete_many(uncached)
            response = client.get(url)
            if response.streaming:
                b"".join(response.streaming_content)

        took = _latency(call, sizes.requests)
        verdict = "ok" if took.p95 < LATENCY_TARGET_MS else "OVER"
        if verdict == "OVER":
            over.append(target.label)
        who = " (signed in)" if target.user is not None else ""
        fewer = f" (n={took.timed})" if took.timed < sizes.requests else ""
        _say(
            f"  {target.label:<42} {took.median:7.1f}ms {took.p95:7.1f}ms   "
            f"{took.cpu_median:7.1f}ms {took.cpu_p95:7.1f}ms {verdict:>4}  "
            f"{target.url}{who}{fewer}"
        )
    _say(
        f"  p95 under {LATENCY_TARGET_MS:.0f} ms: {len(targets) - len(over)} of {len(targets)}"
        + (f"; over: {', '.join(over)}" if over else "")
    )


# --------------------------------------------------------------------------- ratings


def _unrated_matches(ladder: Any, count: int, rng: random.Random) -> list[Any]:
    """``count`` finished, unrated matches of public active versions, finishing in order."""
    from django.utils import timezone

    from arena.bots.models import BotVersion
    from arena.matches.models import Match, MatchStatus, Participant

    pool = list(
        BotVersion.objects.filter(status="active", bot__visibility="public").values_list(
            "pk", flat=True
        )[:2000]
    )
    now = timezone.now()
    matches = Match.objects.bulk_create(
        Match(
            ladder=ladder,
            **ladder.game.fields(),
            seed=rng.getrandbits(62),
            status=MatchStatus.FINISHED,
            attempts=1,
            started_at=now,
            finished_at=now + timedelta(microseconds=n),
        )
        for n in range(count)
    )
    seats = []
    for match in matches:
        order = list(range(1, ladder.seats + 1))
        rng.shuffle(order)
        for seat, version in enumerate(rng.sample(pool, ladder.seats)):
            seats.append(
                Participant(
                    match=match, seat=seat, bot_version_id=version, rank=order[seat], money=0
                )
            )
    Participant.objects.bulk_create(seats, batch_size=2000)
    return matches


def measure_ratings(sizes: Sizes) -> None:
    from arena.ladders.models import Ladder
    from arena.ladders.services import ratings_apply

    ladder = Ladder.objects.get(slug=LADDER_SHARES[0][0])
    rng = random.Random(7)
    count = sizes.elo_matches
    matches = _unrated_matches(ladder, count, rng)
    start = time.perf_counter()
    for match in matches:
        ratings_apply(match=match)
    one_by_one = time.perf_counter() - start
    matches = _unrated_matches(ladder, count, rng)
    start = time.perf_counter()
    rated = ratings_apply(match=matches[-1])
    backlog = time.perf_counter() - start
    assert len(rated) == count
    seats = ladder.seats
    _say(f"ratings on {ladder.slug} ({seats} seats: {seats} rating updates per match)")
    _say(
        f"  one match per call (the task)      {count / one_by_one:8.0f} matches/s "
        f"{count * seats / one_by_one:8.0f} rating updates/s"
    )
    _say(
        f"  a backlog of {count:,} in one call {count / backlog:8.0f} matches/s "
        f"{count * seats / backlog:8.0f} rating updates/s"
    )


# --------------------------------------------------------------------------- pipeline


@functools.cache
def _pipeline_bots() -> tuple[list[Any], str]:
    """Four seats: two house bots (bare) and, when the sandbox works, two uploaded copies
    (uploaded once, for every pipeline run)."""
    from arena.bots.models import BotVersion
    from arena.bots.services import bot_upload, bot_version_validate
    from arena.players.models import User
    from arena.players.services import player_create

    house = list(
        BotVersion.objects.filter(
            bot__owner__username="house", bot__name__in=["random", "greedy"], status="active"
        ).select_related("bot")
    )
    if len(house) < 2:
        raise RuntimeError("the house bots random and greedy are missing")
    sandboxed = "2 house bots bare + 2 uploaded bots sandboxed"
    owner, copies = "bench-pipeline", [f"{version.bot.name}-copy" for version in house]
    kept = {
        v.bot.name: v
        for v in BotVersion.objects.filter(
            bot__owner__username=owner, bot__name__in=copies, status="active"
        ).select_related("bot")
    }
    if len(kept) == len(copies):  # a kept database (--reuse): uploaded by an earlier run
        return house + [kept[name] for name in copies], sandboxed
    player = User.objects.filter(username=owner).first() or player_create(username=owner)
    uploaded = []
    for house_version, name in zip(house, copies, strict=True):
        source = REPO / "bots_sdk" / "house" / f"{house_version.bot.name}_bot.py"
        version = bot_upload(
            owner=player, name=name, filename="main.py", content=source.read_bytes()
        )
        uploaded.append(bot_version_validate(version=version))
    if all(v.status == "active" for v in uploaded):
        return house + uploaded, sandboxed
    reason = uploaded[0].validation_report.get("errors") or uploaded[0].validation_report
    _say(f"  uploaded bots did not validate ({reason}): house bots only")
    return house + house, "4 house bots, bare"


def _start_worker(
    env: dict[str, str], processes: int, log: Path, *, queue: str | None = None
) -> subprocess.Popen[bytes]:
    """A worker of ``processes``; ``queue``: it reads that queue only (the ratings worker)."""
    name = f"bench{processes}" if queue is None else "ratings"
    command = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "arena",
        "worker",
        "--concurrency",
        str(processes),
        "--pool",
        "prefork",
        "-l",
        "INFO",
        "-n",
        f"{name}@%h",
        "--without-gossip",
        "--without-mingle",
        *([] if queue is None else ["-Q", queue]),
    ]
    with open(log, "wb") as out:
        worker = subprocess.Popen(command, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if b" ready." in log.read_bytes():
            return worker
        if worker.poll() is not None:
            break
        time.sleep(0.2)
    _stop_worker(worker)
    raise RuntimeError(f"the worker did not start; its log:\n{log.read_text()[-3000:]}")


def _stop_worker(worker: subprocess.Popen[bytes]) -> None:
    if worker.poll() is None:
        worker.send_signal(signal.SIGTERM)  # warm shutdown: finishes the task at hand
        try:
            worker.wait(timeout=60)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()


def _most_at_once(spans: list[tuple[datetime, datetime]]) -> int:
    """The most matches that were being played at the same moment."""
    events = sorted([(begin, 1) for begin, _ in spans] + [(end, -1) for _, end in spans])
    running = most = 0
    for _, step in events:
        running += step
        most = max(most, running)
    return most


def measure_pipeline(sizes: Sizes, env: dict[str, str], data_dir: Path) -> None:
    try:
        from arena.ladders import tasks
    except ImportError as error:
        _say(f"pipeline: not measured: pipeline missing ({error})")
        return
    if not hasattr(tasks, "match_run"):
        _say("pipeline: not measured: pipeline missing (no arena.ladders.tasks.match_run)")
        return
    from arena.celery import app
    from arena.ladders.models import Ladder
    from arena.matches.models import Match, MatchStatus
    from arena.matches.services import match_create

    ladder = Ladder.objects.get(slug="classic-4")
    seats, kind = _pipeline_bots()
    broker = env["CELERY_BROKER_URL"].split(":")[0]
    _say(
        f"pipeline on {ladder.slug}, {kind}, {sizes.pipeline_matches} matches per run, "
        f"broker {broker} (queued -> played -> recorded -> rated)"
    )
    final = [MatchStatus.FINISHED, MatchStatus.FAILED_INFRA, MatchStatus.CANCELLED]
    from django.conf import settings

    # Side by side: ratings in the matches' queue (as before their own queue), in their
    # own queue read by the match worker too, then by a ratings worker of their own, as
    # `make run` and compose start it.
    runs = (("shared", 1, False), ("own", 1, False), ("own", 1, True), ("own", 2, True))
    for queue, processes, own_ratings_worker in runs:
        app.control.purge()
        worker_env = dict(env)
        if queue == "shared":
            worker_env["ARENA_RATINGS_QUEUE"] = settings.CELERY_TASK_DEFAULT_QUEUE
        worker = _start_worker(worker_env, processes, data_dir / f"worker-{processes}.log")
        rater = None
        if own_ratings_worker:
            rater = _start_worker(
                env, 1, data_dir / f"ratings-{processes}.log", queue=settings.ARENA_RATINGS_QUEUE
            )
        try:
            start = time.perf_counter()
            ids = [
                match_create(ladder_id=ladder.pk, game=ladder.game, versions=seats, seed=seed).pk
                for seed in range(sizes.pipeline_matches)
            ]
            tasks.publish_runs(ids)  # as a ladder's fill publishes what it created
            deadline = time.monotonic() + 300
            mine = Match.objects.filter(pk__in=ids)
            while time.monotonic() < deadline:
                done = mine.filter(status__in=final).exclude(
                    status=MatchStatus.FINISHED, rated_at__isnull=True
                )
                if done.count() == len(ids):
                    break
                time.sleep(0.2)
            elapsed = time.perf_counter() - start
        finally:
            _stop_worker(worker)
            if rater is not None:
                _stop_worker(rater)
        statuses = {s: mine.filter(status=s).count() for s in MatchStatus.values}
        finished = statuses[MatchStatus.FINISHED]
        others = ", ".join(f"{n} {s}" for s, n in statuses.items() if n and s != "finished")
        rows = list(
            mine.filter(status=MatchStatus.FINISHED).values_list(
                "started_at", "finished_at", "rated_at"
            )
        )
        # A finished match has both times (match_start, match_finish).
        spans = [(begin, end) for begin, end, _ in rows if begin and end]
        played = statistics.mean((end - begin).total_seconds() for begin, end in spans)
        lags = sorted((rated - end).total_seconds() for _, end, rated in rows if rated and end)
        lag = (
            f"rating lag p50 {statistics.median(lags):.2f} s, "
            f"p95 {lags[int(0.95 * (len(lags) - 1))]:.2f} s"
            if lags
            else "none rated"
        )
        label = f"{processes} worker process{'es' if processes > 1 else '  '}" + (
            " + ratings worker"
            if own_ratings_worker
            else ", ratings queued behind matches"
            if queue == "shared"
            else ", ratings in their own queue  "
        )
        _say(
            f"  {label}  {finished / elapsed * 60:7.1f} matches/min   ({finished} finished in "
            f"{elapsed:.1f} s; {played:.2f} s per match played, at most "
            f"{_most_at_once(spans)} at once; {lag}{'; ' + others if others else ''})"
        )


#: A worker's line per game (arena.matches.services.running._play): where its time went.
TIMING = re.compile(r"match (\d+) timing: start ([\d.]+) s, play ([\d.]+) s, store ([\d.]+) s")


def _series_round(
    ladder: Any, seats: list[Any], games: int, per_run: int
) -> tuple[list[int], float]:
    """Queue ``games`` games at once, ``per_run`` per worker run; wait until every one is
    recorded and rated. Returns their ids and the seconds it took."""
    from arena.ladders.tasks import publish_runs
    from arena.matches.models import Match, MatchStatus
    from arena.matches.services import match_create, match_create_series, runs_to_publish

    final = [MatchStatus.FINISHED, MatchStatus.FAILED_INFRA, MatchStatus.CANCELLED]
    start = time.perf_counter()
    if per_run == 1:
        created = [
            match_create(ladder_id=ladder.pk, game=ladder.game, versions=seats)
            for _ in range(games)
        ]
    else:
        created = [
            match
            for _ in range(games // per_run)
            for match in match_create_series(
                ladder_id=ladder.pk, game=ladder.game, versions=seats, units=per_run
            )
        ]
    publish_runs(runs_to_publish(created))
    batch = [match.pk for match in created]
    mine = Match.objects.filter(pk__in=batch)
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        done = mine.filter(status__in=final).exclude(
            status=MatchStatus.FINISHED, rated_at__isnull=True
        )
        if done.count() == len(batch):
            break
        time.sleep(0.1)
    return batch, time.perf_counter() - start


def measure_series(sizes: Sizes, env: dict[str, str], data_dir: Path) -> None:
    """Matches per minute on 4-seat classic, a match per worker run (as before) beside a
    series of the ladder's size per run, and where one match's time goes.

    The same bots either way, a worker of 1, then 2 processes (the default
    ``WORKER_CONCURRENCY``) beside a ratings worker of its own (as ``make
    run``), on PostgreSQL and the bench's broker. Rounds alternate between the
    two ways (a round queues its games at once: ``match_create`` per game, or
    ``match_create_series`` per series, and waits until every game is
    recorded and rated), so a busy machine weighs on both alike; a round has
    at least two series per worker process. The time of one match, averaged
    over the matches:

    * queue: ``started_at - queued_at`` (its row): waiting for a worker (a
      round queues all its games at once, so this is mostly the backlog; a
      series' games are all taken when its first is);
    * start, play, store: the worker's log line per game
      (``match N timing: ...``, ``arena.matches.services``): the bots' files,
      the table and their start-up (launch to ``ready``), the game,
      ``match_finish``;
    * rate: ``rated_at - finished_at`` (its row);
    * worker time: the rounds' time over their matches, times the processes.
    """
    from arena.celery import app
    from arena.ladders.models import Ladder
    from arena.matches.models import Match, MatchStatus
    from django.conf import settings

    ladder = Ladder.objects.get(slug="classic-4")
    series = ladder.series_games
    rounds = 1 if sizes.pipeline_matches <= QUICK.pipeline_matches else 2
    seats, kind = _pipeline_bots()
    _say(
        f"pipeline by series, 4-seat classic ({ladder.slug}), {kind}, {rounds} rounds each "
        "way, beside a ratings worker"
    )

    def mean(values: list[float]) -> float:
        return statistics.mean(values) if values else float("nan")

    for processes in (1, 2):
        per_round = max(math.ceil(sizes.pipeline_matches / series), 2 * processes) * series
        app.control.purge()
        log = data_dir / f"series-worker-{processes}.log"
        # INFO: the worker logs where each game's time went.
        worker = _start_worker({**env, "LOG_LEVEL": "INFO"}, processes, log)
        rater = _start_worker(
            env, 1, data_dir / f"series-ratings-{processes}.log", queue=settings.ARENA_RATINGS_QUEUE
        )
        ids: dict[int, list[int]] = {1: [], series: []}
        seconds = dict.fromkeys(ids, 0.0)
        try:
            for _ in range(rounds):
                for per_run in ids:
                    batch, took = _series_round(ladder, seats, per_round, per_run)
                    ids[per_run] += batch
                    seconds[per_run] += took
        finally:
            _stop_worker(worker)
            _stop_worker(rater)
        timings = {
            int(found[1]): [float(value) for value in found.group(2, 3, 4)]
            for found in TIMING.finditer(log.read_text())
        }
        plural = "es" if processes > 1 else ""
        _say(f"  {processes} worker process{plural}, {per_round} games a round")
        per_minute: dict[int, float] = {}
        for per_run, batch in ids.items():
            mine = Match.objects.filter(pk__in=batch)
            rows = list(
                mine.filter(status=MatchStatus.FINISHED).values_list(
                    "pk", "queued_at", "started_at", "finished_at", "rated_at"
                )
            )
            others = mine.exclude(status=MatchStatus.FINISHED).count()
            timed = [timings[pk] for pk, *_ in rows if pk in timings]
            queue = mean(
                [(began - queued).total_seconds() for _, queued, began, _, _ in rows if began]
            )
            lags = [(rated - ended).total_seconds() for *_, ended, rated in rows if rated and ended]
            rate = mean(lags)
            start_s, play_s, store_s = (mean([t[i] for t in timed]) for i in range(3))
            per_minute[per_run] = len(rows) / seconds[per_run] * 60
            label = "a match per run (before)" if per_run == 1 else f"a series of {per_run} per run"
            _say(
                f"    {label:<26} {per_minute[per_run]:7.1f} matches/min   ({len(rows)} recorded "
                f"and rated in {seconds[per_run]:.1f} s"
                f"{f'; {others} not finished' if others else ''})"
            )
            _say(
                f"      one match: queue {queue:6.2f} s   start {start_s:.3f} s   play "
                f"{play_s:.3f} s   store {store_s:.3f} s   rate {rate:.2f} s   (worker time "
                f"{seconds[per_run] * processes / max(1, len(rows)):.3f} s)"
            )
            if lags:
                lag_p95 = _p95(lags)
                _say(
                    f"      rating lag (finished -> rated) p95 {lag_p95:.2f} s, target < "
                    f"{RATING_LAG_TARGET_S:.0f} s with the match queue full: "
                    f"{'ok' if lag_p95 < RATING_LAG_TARGET_S else 'MISSED'}"
                )
        ratio = per_minute[series] / per_minute[1] if per_minute[1] else float("nan")
        verdict = "ok" if ratio >= 3 else "MISSED"
        _say(
            f"    target: a series >= 3x the matches per minute of a match per run: "
            f"{ratio:.2f}x {verdict}"
        )


# --------------------------------------------------------------------------- main


def _qualify_house_bots() -> None:
    """Play the house bots' pre-flights here: the bench runs no worker during the load."""
    from arena.bots.models import BotVersion
    from arena.ladders.services.entries import version_qualify

    for version in BotVersion.objects.filter(status="pending"):
        version_qualify(version=version)


def measure_fair_share() -> None:
    """The scheduler's share of the workers across the default ladders, on a driven clock.

    8 uploaded bots entered everywhere and the 4 house bots, 2 workers, 30
    simulated minutes: games per uploaded bot on each ladder, taking turns
    (plan_picks) beside filling one ladder after another (the policy before).
    """
    from arena.ladders.simulate import DEFAULT_LADDERS, HOUSE_BOTS, SimBot, simulate

    ladders = DEFAULT_LADDERS
    uploaded = [SimBot(f"bot-{n}") for n in range(8)]
    house = list(HOUSE_BOTS)
    names = [bot.name for bot in uploaded]
    _say("fair share across ladders (driven clock, 30 min, 2 workers, 8 bots + 4 house bots)")
    _say(f"  {'ladder':<12} {'taking turns':>14} {'one by one':>12}   games per uploaded bot")
    runs = {
        interleaved: simulate(ladders, uploaded + house, minutes=30, interleaved=interleaved)
        for interleaved in (True, False)
    }
    for ladder in ladders:
        fair, before = (runs[i].games_per_bot(ladder.name, names) for i in (True, False))
        _say(f"  {ladder.name:<12} {fair:>14.1f} {before:>12.1f}")
    for interleaved, label in ((True, "taking turns"), (False, "one by one")):
        run = runs[interleaved]
        per = [run.games_per_bot(ladder.name, names) for ladder in ladders]
        ratio = f"{max(per) / min(per):.2f}" if min(per) else "inf (a ladder starved)"
        first = max(run.first_finish.get(ladder.name, float("inf")) for ladder in ladders)
        _say(
            f"  {label}: max/min games per bot across ladders {ratio} (target <= 1.3); "
            f"last ladder's first match after {first:.0f} s (target < 300)"
        )


def measure_capacity() -> None:
    """How busy many worker processes stay, on a driven clock: the default ladders, 300
    uploaded bots and the house bots, 200 processes, 5 simulated minutes; the fixed
    queue target (two series per ladder) beside queues that follow the workers
    (ARENA_QUEUE_RUNS_PER_SLOT runs per process, the platform's default)."""
    from django.conf import settings

    from arena.ladders.simulate import DEFAULT_LADDERS, HOUSE_BOTS, SimBot, simulate

    bots = [SimBot(f"bot-{n}") for n in range(300)] + list(HOUSE_BOTS)
    _say("capacity (driven clock, 5 min, 200 worker processes, 300 bots + house bots)")
    runs = {
        label: simulate(
            DEFAULT_LADDERS,
            bots,
            minutes=5,
            workers=200,
            seed=6,
            series_games=12,
            runs_per_slot=per_slot,
            max_age_s=settings.ARENA_QUEUE_MAX_AGE_SECONDS,
        )
        for label, per_slot in (
            ("fixed target", 0),
            ("following the workers", settings.ARENA_QUEUE_RUNS_PER_SLOT),
        )
    }
    for label, run in runs.items():
        _say(
            f"  {label:<22} busy {run.busy_share:.0%}, {run.finished} games, "
            f"most queued {run.most_queued}, longest wait {run.longest_wait_s:.0f} s"
        )
    fixed, following = runs.values()
    _say(f"  games played, following / fixed: {following.finished / fixed.finished:.1f}x")


SECTIONS = ("fair-share", "latency", "ratings", "pipeline")


def _showcase_match() -> int | None:
    """The match played by :func:`load_played_match` in a kept database."""
    from arena.matches.models import Match

    return Match.objects.exclude(log="").order_by("-pk").values_list("pk", flat=True).first()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small data: a smoke run")
    parser.add_argument(
        "--fair-share-only",
        action="store_true",
        help="only the scheduler's fair share on a driven clock (no database, seconds)",
    )
    parser.add_argument("--requests", type=int, help="requests per latency measurement")
    parser.add_argument("--pipeline-matches", type=int, help="matches per pipeline run")
    parser.add_argument("--keep", action="store_true", help="keep the database to inspect it")
    parser.add_argument(
        "--pipeline-only",
        action="store_true",
        help="only the match pipeline (no bulk load, no latency or ratings figures)",
    )
    parser.add_argument(
        "--database",
        default=BENCH_DB,
        help=f"the database's name (default {BENCH_DB}): runs side by side need their own",
    )
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="measure the database this bench loaded before at this size (migrated, not "
        "loaded again); without one, load it; keep it either way",
    )
    parser.add_argument(
        "--only",
        action="append",
        metavar="SECTION_OR_ENDPOINT",
        help=f"run only this section ({', '.join(SECTIONS)}) or only the latency of the "
        "endpoints whose label or URL contains this text (repeatable; default: all)",
    )
    parser.add_argument(
        "--pg",
        default="postgres://postgres@127.0.0.1:5432/postgres",
        help="the PostgreSQL server (the database is created there)",
    )
    args = parser.parse_args(argv)
    sizes = QUICK if args.quick else FULL
    if args.requests:
        sizes = Sizes(**{**sizes.__dict__, "requests": args.requests})
    if args.pipeline_matches:
        sizes = Sizes(**{**sizes.__dict__, "pipeline_matches": args.pipeline_matches})

    if args.fair_share_only:
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
        import django

        django.setup()
        measure_fair_share()
        measure_capacity()
        return 0
    only = args.only or []
    endpoints = [text for text in only if text not in SECTIONS]
    sections = {text for text in only if text in SECTIONS} | ({"latency"} if endpoints else set())
    if not only:
        sections = set(SECTIONS)
    if args.pipeline_only:
        sections = {"pipeline"}
    database = args.database
    server = _server_params(args.pg)
    data_dir = Path(tempfile.mkdtemp(prefix="arena-bench-"))
    embedded: subprocess.Popen[bytes] | None = None
    if _reachable(*REDIS):
        broker = REDIS_URL
    else:  # the embedded broker, as `make run` starts it (scripts/broker.sh)
        embedded = subprocess.Popen(
            ["bash", str(REPO / "scripts" / "broker.sh")],
            env={**os.environ, "ARENA_DATA_DIR": str(data_dir)},
            stdout=subprocess.DEVNULL,
        )
        broker = f"redis+socket://{data_dir / 'run' / 'redis.sock'}"
        while not (data_dir / "run" / "redis.sock").exists():
            if embedded.poll() is not None:
                raise SystemExit("platform benchmark: the embedded broker did not start")
            time.sleep(0.1)
    env = {**os.environ, **_bench_env(server, database, data_dir, broker)}
    os.environ.update(env)
    began = time.perf_counter()
    _say(f"platform benchmark: {sizes.bots:,} bots, {sizes.matches:,} matches ({database})")
    reuse = args.reuse and _is_loaded(server, database, sizes)
    if args.reuse and not reuse:
        _say(f"  no loaded database {database} of this size: loading one, kept for --reuse")
    if not reuse:
        _create_database(server, database)
    try:
        import django

        django.setup()
        if "fair-share" in sections:
            measure_fair_share()
            measure_capacity()
        from django.core.management import call_command

        from django.db import connections

        if reuse:
            with _timed("migrate the kept database"):
                call_command("migrate", verbosity=0)
            showcase = _showcase_match()
        else:
            _say("load")
            with _timed("migrate + load_house_bots (pre-flights played here)"):
                call_command("migrate", verbosity=0)
                call_command("load_house_bots", stdout=io.StringIO())
                _qualify_house_bots()
            if not args.pipeline_only:
                with _timed("bulk load (COPY, rebuild indexes, VACUUM)"):
                    dsn = env["DATABASE_URL"].replace("postgres://", "postgresql://", 1)
                    load(sizes, data_dir, dsn)
                with _timed("a league and a played match (services)"):
                    load_league(sizes)
                    showcase = load_played_match()
                    with connections["default"].cursor() as cursor:
                        cursor.execute("VACUUM (ANALYZE)")
                _mark_loaded(server, database, sizes)
        if "latency" in sections:
            measure_latency(sizes, showcase, endpoints)
        if "ratings" in sections:
            measure_ratings(sizes)
        if "pipeline" in sections:
            try:
                measure_pipeline(sizes, env, data_dir)
                measure_series(sizes, env, data_dir)
            except RuntimeError as error:
                _say(f"pipeline: not measured: {error}")
        connections.close_all()
    finally:
        if not (args.keep or args.reuse):
            _drop_database(server, database)
        if embedded is not None:
            embedded.terminate()
            embedded.wait()
        shutil.rmtree(data_dir, ignore_errors=True)
    kept = f"kept (drop it: DROP DATABASE {database})" if args.keep or args.reuse else "dropped"
    _say(f"total {time.perf_counter() - began:.0f} s; database {database} {kept}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
