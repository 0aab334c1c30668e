"""Shared capacity cannot be hoarded: tables and builds run on queues of their own, each
with its own workers, under a platform-wide cap on open tables and a per-player cap on
builds in flight; matches keep flowing while every table and build process is taken.

The last test runs real Celery workers as ``make run`` starts them (one per queue) on
the test PostgreSQL database and a Redis queue of its own.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection, transaction
from django.test import Client

from arena.bots.models import BotVersion, VersionStatus
from arena.bots.services import bot_version_transition
from arena.ladders.flows import bot_submit, draft_run_test_game, version_submit
from arena.ladders.models import Ladder
from arena.ladders.services.editor import draft_start_from_kit
from arena.ladders.services.entries import BuildsInFlightError
from arena.matches.models import Match, MatchStatus
from arena.matches.services import match_create
from arena.tables.flows import table_create
from arena.tables.models import Table, TableStatus
from arena.tables.selectors import table_state
from arena.tables.services import TablesFullError, table_cancel
from tests.platform.ladders.test_editor import duel, house_bot_named  # noqa: F401 (fixture)
from tests.platform.ladders.test_match_pipeline import classic_2, house_bot
from tests.platform.scenes import publish_match
from tests.platform.tables.test_tables import answer_as_person, queued  # noqa: F401 (fixture)

from .api_support import GOOD, client_for
from .worker import (
    REDIS_URL,
    CeleryWorker,
    needs_redis,
    needs_shared_database,
    publishing_to,
    purge_queue,
    routes_for,
    unique_queue,
    wait_for,
    worker_env,
)

pytestmark = pytest.mark.slow

FULL = "all 2 tables are in use, try again in a few minutes."
IN_FLIGHT = (
    r"^you have 2 builds in flight \(uploads or test games not built and pre-flighted "
    r"yet\), the most at once: wait for one to finish"
)


def sit(player: Any, opponent: Any) -> Table:
    return table_create(player=player, rules="classic", seats=2, seat=0, opponents=[opponent])


def test_tables_and_builds_go_to_queues_of_their_own(settings: Any) -> None:
    from arena.celery import app

    default = settings.CELERY_TASK_DEFAULT_QUEUE
    expected = {
        "arena.tables.tasks.table_play": f"{default}.tables",
        "arena.ladders.tasks.version_qualify": f"{default}.builds",
        "arena.ladders.tasks.play_test_game": f"{default}.builds",
        "arena.ladders.tasks.match_run": default,
        "arena.ladders.tasks.ratings_apply_match": f"{default}.ratings",
        "arena.ladders.tasks.ladders_fill_queues": f"{default}.sweeps",
    }
    assert {name: app.amqp.router.route({}, name)["queue"].name for name in expected} == expected
    # A worker started without -Q reads every queue: a lone worker still does everything.
    assert {queue.name for queue in app.conf.task_queues} == set(expected.values())


@pytest.mark.django_db
def test_the_platform_keeps_at_most_its_cap_of_tables_open(
    alice: Any,
    bob: Any,
    carol: Any,
    house: Any,
    settings: Any,
    queued: Any,  # noqa: F811
) -> None:
    settings.ARENA_TABLES_OPEN_MAX = 2
    greedy = house_bot(house, "greedy").bot
    first = sit(alice, greedy)
    sit(bob, greedy)
    with pytest.raises(TablesFullError, match=f"^{re.escape(FULL)}$"):
        sit(carol, greedy)

    refused = client_for(carol).post(
        "/api/tables/",
        {"rules": "classic", "seats": 2, "seat": 0, "opponents": [greedy.pk]},
        format="json",
    )
    assert refused.status_code == 503
    assert refused.json() == {"code": "tables_full", "detail": FULL}
    assert refused["Retry-After"] == "120"
    # The Play page says the same on its form.
    browser = Client()
    browser.force_login(carol)
    page = browser.post(
        "/play/", {"rules": "classic", "seats": "2", "seat": "0", "bot_1": str(greedy.pk)}
    )
    assert page.status_code == 503
    assert FULL in page.content.decode()
    assert Table.objects.filter(player=carol).count() == 0

    # A table that ends gives its place to the next person.
    table_cancel(table=first)
    assert sit(carol, greedy).status == TableStatus.QUEUED


@pytest.mark.django_db
def test_a_player_has_at_most_the_cap_of_builds_in_flight(
    alice: Any,
    bob: Any,
    house: Any,
    duel: Ladder,  # noqa: F811
    settings: Any,
) -> None:
    # No commit in these tests: the builds queued stay unbuilt, as behind a busy queue.
    settings.ARENA_BUILDS_IN_FLIGHT_MAX = 2
    shark = bot_submit(owner=alice, name="shark", filename="shark.py", content=GOOD)
    draft = draft_start_from_kit(owner=alice, name="turtle", lang="python")
    draft_run_test_game(draft=draft, ladder=duel, opponents=[house_bot_named("random")])

    with pytest.raises(BuildsInFlightError, match=IN_FLIGHT):
        bot_submit(owner=alice, name="whale", filename="whale.py", content=GOOD)
    with pytest.raises(BuildsInFlightError, match=IN_FLIGHT):
        version_submit(bot=shark.bot, filename="shark.py", content=GOOD + b"# v2\n")
    with pytest.raises(BuildsInFlightError, match=IN_FLIGHT):
        draft_run_test_game(draft=draft, ladder=duel, opponents=[house_bot_named("greedy")])
    refused = client_for(alice).post(
        "/api/bots/",
        {"name": "whale", "file": SimpleUploadedFile("whale.py", GOOD)},
        format="multipart",
    )
    assert refused.status_code == 429
    assert refused.json()["code"] == "builds_in_flight"
    assert refused["Retry-After"] == "60"
    assert BotVersion.objects.filter(bot__owner=alice).count() == 2  # shark, the test build

    # Bob's builds are his own; the house loads its bots whatever their number.
    bot_submit(owner=bob, name="whale", filename="whale.py", content=GOOD)
    for name in ("h1", "h2", "h3"):
        bot_submit(owner=house, name=name, filename=f"{name}.py", content=GOOD)

    # A build that finished (failed, here) frees its place.
    bot_version_transition(version=shark, to=VersionStatus.VALIDATING)
    bot_version_transition(version=shark, to=VersionStatus.FAILED)
    assert bot_submit(owner=alice, name="whale", filename="whale.py", content=GOOD)


# --------------------------------------------------------------------------- real workers


@contextmanager
def row_locked(version: BotVersion) -> Iterator[None]:
    """The version's row locked by another connection for the block: a build of it waits
    at its start (its first write locks the row), holding its worker process meanwhile."""
    locked, release = threading.Event(), threading.Event()

    def hold() -> None:
        try:
            with transaction.atomic():
                BotVersion.objects.select_for_update().get(pk=version.pk)
                locked.set()
                release.wait(300)
        finally:
            connection.close()

    thread = threading.Thread(target=hold, daemon=True)
    thread.start()
    assert locked.wait(30), "could not lock the version's row"
    try:
        yield
    finally:
        release.set()
        thread.join(30)


@needs_shared_database
@needs_redis
@pytest.mark.django_db(transaction=True)
def test_matches_keep_flowing_while_every_table_and_build_process_is_taken(
    alice: Any, bob: Any, carol: Any, house: Any, media_root: Path, tmp_path: Path, settings: Any
) -> None:
    settings.ARENA_TABLES_OPEN_MAX = 1
    settings.ARENA_BUILDS_IN_FLIGHT_MAX = 1
    settings.ARENA_TABLE_DECISION_SECONDS = 600  # alice thinks as long as the test lasts
    ladder = classic_2()
    greedy, random = house_bot(house, "greedy"), house_bot(house, "random")
    queue = unique_queue()
    env = worker_env(tmp_path, media_root, broker_url=REDIS_URL, queue=queue)
    # As `make run` and Compose start them, one process each: matches (and ratings),
    # tables, builds.
    lanes = {
        "matches": ["-Q", f"{queue},{queue}.ratings"],
        "tables": ["-Q", f"{queue}.tables"],
        "builds": ["-Q", f"{queue}.builds"],
    }
    workers = {
        name: CeleryWorker(env, tmp_path / f"{name}.log", args) for name, args in lanes.items()
    }
    try:
        with publishing_to(REDIS_URL, queue, routes_for(queue)):
            # Bob's upload waits in the builds queue until its worker starts, held then.
            upload = bot_submit(owner=bob, name="shark", filename="shark.py", content=GOOD)
            with row_locked(upload):
                for name in ("matches", "tables"):
                    workers[name].start().wait_ready()
                table = sit(alice, greedy.bot)

                def asked() -> bool:
                    return table_state(table=Table.objects.get(pk=table.pk)).decision is not None

                wait_for(asked, timeout=90, what="the tables worker to ask alice")
                workers["builds"].start().wait_ready()
                wait_for(
                    lambda: "arena.ladders.tasks.version_qualify[" in workers["builds"].log(),
                    timeout=60,
                    what="the builds worker to take bob's upload",
                )
                # Every table and build process is taken, and the caps say so.
                with pytest.raises(TablesFullError, match=r"^all 1 tables are in use"):
                    sit(carol, greedy.bot)
                with pytest.raises(BuildsInFlightError, match=r"^you have 1 builds in flight"):
                    bot_submit(owner=bob, name="whale", filename="whale.py", content=GOOD)

                match = publish_match(
                    match_create(ladder_id=ladder.pk, game=ladder.game, versions=[greedy, random])
                )

                def played() -> Match | None:
                    current = Match.objects.get(pk=match.pk)
                    return current if current.status == MatchStatus.FINISHED else None

                wait_for(played, timeout=120, what="the match to be played meanwhile")
                assert Table.objects.get(pk=table.pk).status == TableStatus.PLAYING
                assert BotVersion.objects.get(pk=upload.pk).status == VersionStatus.PENDING
                # ("match_run[<id>] received": the task list at start-up names it too).
                taken = workers["tables"].log() + workers["builds"].log()
                assert "arena.ladders.tasks.match_run[" not in taken
                assert "arena.ladders.tasks.match_run[" in workers["matches"].log()

            # Released, the build goes on; alice plays her game to its end.
            def built() -> bool:
                status = BotVersion.objects.get(pk=upload.pk).status
                return status in (VersionStatus.ACTIVE, VersionStatus.FAILED)

            wait_for(built, timeout=120, what="bob's upload to be built and pre-flighted")
            assert BotVersion.objects.get(pk=upload.pk).status == VersionStatus.ACTIVE
            person, _ = answer_as_person(table)
            wait_for(
                lambda: Table.objects.get(pk=table.pk).status == TableStatus.FINISHED,
                timeout=180,
                what="alice's game to end",
            )
            person.join(10)
    finally:
        for worker in workers.values():
            worker.stop()
        purge_queue(queue)


@needs_shared_database
@needs_redis
@pytest.mark.django_db(transaction=True)
def test_a_wave_of_200_uploads_and_a_full_ladder_queue_both_progress(
    bob: Any, house: Any, media_root: Path, tmp_path: Path, settings: Any
) -> None:
    """200 uploads wait for the builds worker while 20 matches wait for the match worker:
    matches are played while the wave still waits, and uploads are built while matches
    still wait. Neither queue starts before both are full, and neither refills."""
    settings.ARENA_BUILDS_IN_FLIGHT_MAX = 200
    ladder = classic_2(series_games=1)
    greedy, random = house_bot(house, "greedy"), house_bot(house, "random")
    queue = unique_queue()
    env = worker_env(tmp_path, media_root, broker_url=REDIS_URL, queue=queue)
    lanes = {
        "matches": ["-Q", f"{queue},{queue}.ratings,{queue}.sweeps"],
        "builds": ["-Q", f"{queue}.builds"],
    }
    workers = {
        name: CeleryWorker(env, tmp_path / f"{name}.log", args) for name, args in lanes.items()
    }
    try:
        with publishing_to(REDIS_URL, queue, routes_for(queue)):
            uploads = [
                bot_submit(owner=bob, name=f"wave-{n:03d}", filename="bot.py", content=GOOD).pk
                for n in range(200)
            ]
            matches = [
                publish_match(
                    match_create(ladder_id=ladder.pk, game=ladder.game, versions=[greedy, random])
                ).pk
                for _ in range(20)
            ]
            for worker in workers.values():
                worker.start().wait_ready()

            def done(ids: list[int], model: Any, statuses: tuple[str, ...]) -> int:
                return int(model.objects.filter(pk__in=ids, status__in=statuses).count())

            built = (VersionStatus.ACTIVE, VersionStatus.FAILED)
            wait_for(
                lambda: done(matches, Match, (MatchStatus.FINISHED,)) >= 3 or None,
                timeout=300,
                what="three matches to be played during the wave",
            )
            # The wave waits on: its count only falls, so it was at least this high
            # all the while those matches were played.
            assert done(uploads, BotVersion, built) <= 150
            wait_for(
                lambda: done(uploads, BotVersion, built) >= 2 or None,
                timeout=300,
                what="two uploads to be built beside the matches",
            )
            # Matches still wait: the ladder's queue was loaded all through those builds.
            assert done(matches, Match, (MatchStatus.QUEUED,)) >= 1
            assert done(uploads, BotVersion, (VersionStatus.ACTIVE,)) >= 2
            assert "arena.ladders.tasks.match_run[" not in workers["builds"].log()
            assert "arena.ladders.tasks.version_qualify[" not in workers["matches"].log()
    finally:
        for worker in workers.values():
            worker.stop()
        purge_queue(queue)
