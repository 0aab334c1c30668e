"""Games followed as they are played: what the live feed costs a match, and how long the
person's seat at a table takes to carry an answer that is already there.

    python3 bench/live.py            # 8 games per variant, 30 person decisions
    python3 bench/live.py --games 3  # quicker, noisier

On the embedded defaults (SQLite and files in a temporary data folder, as
`make run` plays): no server needed.

* **live feed**: classic with 4 house bots (greedy), played by the referee
  (bare processes, as house bots play), without a feed, with the matches'
  feed (published at most every ARENA_LIVE_PUBLISH_MS = 500 ms) and with the
  tables' (every step); the variants take turns game by game, so a busy
  machine slows them alike. Printed: median wall time per game and its
  ratio to no feed, and the chunks written per game.
* **person's seat**: a table (classic, 2 seats, against greedy) whose person
  answers as soon as a decision is stored; the referee's time for the
  person's decisions (the in-process seat's pipes and thread, the database,
  the thread's look for the answer every 0.25 s) beside the bot's.

It prints numbers and never fails on one.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
# bench/platform.py is named like the standard library's `platform`: keep this folder off
# the path, or `import platform` (uuid, celery...) finds it.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != BENCH_DIR]
sys.path[:0] = [str(REPO), str(REPO / "platform")]


def setup(data_dir: str) -> None:
    os.environ.update(
        ARENA_DATA_DIR=data_dir,
        DJANGO_SETTINGS_MODULE="arena.settings",
        CELERY_TASK_ALWAYS_EAGER="1",
        CELERY_BROKER_URL="memory://",
    )
    for name in ("DATABASE_URL", "CACHE_URL"):
        os.environ.pop(name, None)
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def feed_costs(games: int) -> None:
    from arena.live.models import LiveChunk
    from arena.live.services import LivePublisher
    from bots_sdk.launcher import house_bot
    from bots_sdk.protocol import Limits
    from bots_sdk.referee import Match
    from vegas_engine import describe

    variants: dict[str, float | None] = {"no feed": None, "match feed": 0.5, "table feed": 0.0}
    times: dict[str, list[float]] = {name: [] for name in variants}
    chunks: dict[str, list[int]] = {name: [] for name in variants}
    players = [house_bot("greedy") for _ in range(4)]
    for game in range(games):
        for name, interval in variants.items():
            feed = f"bench:{name}:{game}"
            progress = (
                None
                if interval is None
                else LivePublisher(feed=feed, attempt=1, interval_s=interval)
            )
            started = time.perf_counter()
            with Match(players, Limits(), on_progress=progress) as match:
                match.play(describe("classic", 4), game, [0, 1, 2, 3])
            times[name].append(time.perf_counter() - started)
            chunks[name].append(LiveChunk.objects.filter(feed=feed).count())
    base = statistics.median(times["no feed"])
    print(f"live feed: classic, 4 greedy house bots, {games} games per variant (median)")
    print(f"  {'variant':<12} {'s/game':>8} {'vs none':>8} {'chunks/game':>12}")
    for name in variants:
        median = statistics.median(times[name])
        print(
            f"  {name:<12} {median:8.3f} {median / base:8.3f} "
            f"{statistics.median(chunks[name]):12.0f}"
        )


def person_latency(decisions: int) -> None:
    from django.db import connection

    from arena.bots.models import VersionStatus
    from arena.bots.services import bot_create, bot_version_transition, bot_version_upload
    from arena.players.services import player_create
    from arena.tables.models import Table, TableStatus
    from arena.tables.play import table_run
    from arena.tables.selectors import table_log_read, table_state
    from arena.tables.services import table_act, table_create  # not queued: played below
    from bots_sdk.launcher import HOUSE_DIR

    house = player_create(username="house", display_name="House", is_house=True)
    person = player_create(username="person", password="bench bench bench")
    bot = bot_create(owner=house, name="greedy")
    version = bot_version_upload(
        bot=bot, filename="greedy.py", content=(HOUSE_DIR / "greedy_bot.py").read_bytes()
    )
    bot_version_transition(version=version, to=VersionStatus.VALIDATING)
    bot_version_transition(version=version, to=VersionStatus.ACTIVE)
    person_ms: list[float] = []
    bot_ms: list[float] = []
    while len(person_ms) < decisions:
        table = table_create(player=person, rules="classic", seats=2, seat=0, opponents=[bot])
        stop = threading.Event()

        def answer(table_id: int = table.pk, stop: threading.Event = stop) -> None:
            try:
                while not stop.is_set():
                    current = Table.objects.get(pk=table_id)
                    decision = table_state(table=current).decision
                    if decision is not None:
                        table_act(
                            table=current,
                            player=current.player,
                            request_id=decision.request_id,
                            action=decision.legal_actions[0],
                        )
                    stop.wait(0.01)
            finally:
                connection.close()

        thread = threading.Thread(target=answer, daemon=True)
        thread.start()
        played = table_run(table=table)
        stop.set()
        thread.join()
        if played.status != TableStatus.FINISHED:
            print(f"  table {played.pk} {played.status}: {played.error}")
            return
        log = table_log_read(table=played, user=played.player)
        assert log is not None
        seats = log["referee"]["seats"]
        person_ms += seats[0]["decision_ms"]
        bot_ms += seats[1]["decision_ms"]
    person_ms.sort()
    print(f"person's seat: {len(person_ms)} decisions answered at once (a thread of this bench)")
    print(
        f"  person: median {statistics.median(person_ms):.0f} ms, "
        f"p95 {person_ms[int(len(person_ms) * 0.95)]:.0f} ms; "
        f"the bot (greedy, bare): median {statistics.median(bot_ms):.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=8, help="games per feed variant")
    parser.add_argument("--decisions", type=int, default=30, help="person decisions to time")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arena-bench-live-") as data_dir:
        setup(data_dir)
        feed_costs(args.games)
        person_latency(args.decisions)


if __name__ == "__main__":
    main()
