"""Playing matches: the referee in the sandbox, results and logs stored, ratings once.

In this process first (the services, bots for real in the sandbox), then end
to end on real processes: an upload validated by a Celery worker, matches
queued by the scheduler and played by the worker, ratings changed, the stored
log replayed by the engine; on PostgreSQL + Redis, and on the embedded
defaults (SQLite + the embedded Redis broker).
"""

from __future__ import annotations

import gzip
import json
import sqlite3
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.core.files.storage import default_storage
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from arena.bots import sandboxing
from arena.bots.models import BotVersion, VersionStatus
from arena.bots.services import (
    bot_version_transition,
    bot_version_upload,
)
from arena.ladders.flows import bot_submit, ladder_create
from arena.ladders.matchmaking import SERIES_SHARE
from arena.ladders.models import Ladder, Rating, RatingChange
from arena.ladders.services import ladder_fill_queue
from arena.ladders.tasks import matches_requeue_stale, matches_retry_waiting
from arena.matches.models import ForfeitCause, Match, MatchStatus
from arena.matches.outcomes import SeatOutcome
from arena.matches.services import (
    MatchTransitionError,
    match_create,
    match_fail,
    match_finish,
    match_start,
)
from arena.runners import current_runner
from bots_sdk.launcher import HOUSE_DIR
from tests.platform.api_support import api_upload
from tests.platform.factories import BotFactory, RatingFactory
from tests.platform.scenes import enter, on_ladder, publish_match, publish_matches, run_match
from tests.platform.worker import (
    GOOD_BOT,
    REPO_DIR,
    SANDBOXED_BOT,
    CeleryWorker,
    embedded_broker,
    needs_redis,
    needs_shared_database,
    process_env,
    protocol_bot,
    redis_worker,
    wait_for,
)

pytestmark = pytest.mark.slow

CHEAT_BOT = protocol_bot(
    before='if count == 2: print("about to cheat", file=sys.stderr, flush=True)',
    decide='"place 9" if count == 2 else legal[0]',
)


def activate(version: BotVersion) -> BotVersion:
    """Test shortcut: an active version without playing the pre-flight game."""
    bot_version_transition(version=version, to=VersionStatus.VALIDATING)
    return bot_version_transition(version=version, to=VersionStatus.ACTIVE)


def house_bot(house: Any, name: str) -> BotVersion:
    bot = BotFactory(owner=house, name=name)
    code = (HOUSE_DIR / f"{name}_bot.py").read_bytes()
    return activate(bot_version_upload(bot=bot, filename=f"{name}.py", content=code))


def player_bot(owner: Any, name: str, code: bytes) -> BotVersion:
    bot = BotFactory(owner=owner, name=name)
    return activate(bot_version_upload(bot=bot, filename=f"{name}.py", content=code))


def classic_2(series_games: int = 12) -> Ladder:
    """Single games (a new 2-seat ladder plays duplicate deals unless told)."""
    return ladder_create(
        slug="classic-2",
        name="Classic, 2 seats",
        rules="classic",
        seats=2,
        series_games=series_games,
        duplicate_deals=False,
    )


def stored_log(match: Match) -> bytes:
    with default_storage.open(match.log.name, "rb") as handle:
        return gzip.decompress(handle.read())


def replay(log: bytes, tmp_path: Path) -> str:
    """``python -m vegas_engine replay FILE``: exits 0 only if every event replays."""
    path = tmp_path / "match.json"
    path.write_bytes(log)
    done = subprocess.run(
        [sys.executable, "-m", "vegas_engine", "replay", str(path)],
        capture_output=True,
        text=True,
        cwd=REPO_DIR,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


# --------------------------------------------------------------------------- in this process


@pytest.mark.django_db
def test_a_match_is_played_in_the_sandbox_stored_and_rated(
    alice: Any, house: Any, tmp_path: Path, django_capture_on_commit_callbacks: Any
) -> None:
    shark, greedy = player_bot(alice, "shark", SANDBOXED_BOT), house_bot(house, "greedy")
    match = publish_match(match_create(**on_ladder(classic_2()), versions=[shark, greedy], seed=42))

    with django_capture_on_commit_callbacks(execute=True):
        match = run_match(match)

    assert (match.status, match.attempts, match.error) == (MatchStatus.FINISHED, 1, "")
    seats = list(match.participants.order_by("seat"))
    assert sorted(p.rank for p in seats) in ([1, 2], [1, 1])
    assert all(p.money is not None and p.forfeit == "" for p in seats)
    log = stored_log(match)
    # shark crashes unless sandboxed, and greedy ran bare (no cgroup peaks).
    assert [seat["forfeited"] for seat in json.loads(log)["referee"]["seats"]] == [False, False]
    assert "replay ok" in replay(log, tmp_path)
    match.refresh_from_db()
    assert match.rated_at is not None
    assert RatingChange.objects.filter(match=match).count() == 2
    assert all(p.rating_after is not None for p in match.participants.all())


@pytest.mark.django_db
def test_a_faulty_bot_forfeits_its_seat_and_the_cause_is_recorded(
    alice: Any, house: Any, django_capture_on_commit_callbacks: Any
) -> None:
    cheat, greedy = player_bot(alice, "cheat", CHEAT_BOT), house_bot(house, "greedy")
    match = publish_match(match_create(**on_ladder(classic_2()), versions=[greedy, cheat]))

    with django_capture_on_commit_callbacks(execute=True):
        match = run_match(match)

    assert match.status == MatchStatus.FINISHED
    seat = match.participants.get(seat=1)
    assert (seat.forfeit, seat.rank) == (ForfeitCause.ILLEGAL_ACTION, 2)
    assert Rating.objects.get(bot_version=cheat).rating < 1500


@pytest.mark.django_db
def test_the_api_names_a_forfeit_by_the_log_s_exact_fault_kind(
    alice: Any, house: Any, django_capture_on_commit_callbacks: Any
) -> None:
    # 200 ms a decision out of a 300 ms bank: the bank runs out, not one decision's time.
    tight = ladder_create(
        slug="tight", name="Tight", rules="classic", seats=2,
        time_per_decision_ms=250, time_bank_ms=300,
    )  # fmt: skip
    slow = player_bot(alice, "slow", protocol_bot(prelude="import time", before="time.sleep(0.2)"))
    match = publish_match(
        match_create(**on_ladder(tight), versions=[house_bot(house, "greedy"), slow])
    )

    with django_capture_on_commit_callbacks(execute=True):
        match = run_match(match)

    seat = APIClient().get(f"/api/matches/{match.pk}/").json()["participants"][1]
    log = APIClient().get(f"/api/matches/{match.pk}/log/").json()
    assert seat["forfeit"] == log["referee"]["seats"][1]["fault"]["kind"] == "time_bank_exhausted"


@pytest.fixture
def sandbox_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    """This process as a worker whose sandbox self-test failed."""
    monkeypatch.setattr(sandboxing, "_self_tested", True)
    monkeypatch.setattr(
        sandboxing,
        "_self_test_problem",
        "bot sandbox unavailable:\n  - bot user 'vegasbot' missing (useradd --system vegasbot)",
    )


@pytest.mark.django_db
def test_an_infrastructure_failure_is_retried_and_never_counts_against_a_bot(
    alice: Any,
    house: Any,
    settings: Any,
    sandbox_missing: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    settings.ARENA_MATCH_MAX_ATTEMPTS = 2
    shark, greedy = player_bot(alice, "shark", GOOD_BOT), house_bot(house, "greedy")
    match = publish_match(match_create(**on_ladder(classic_2()), versions=[shark, greedy]))

    with django_capture_on_commit_callbacks() as retries:
        match = run_match(match)
    assert (match.status, match.attempts) == (MatchStatus.QUEUED, 1)
    assert "cannot isolate untrusted bots" in match.error and "vegasbot" in match.error
    assert retries == []  # the sandbox still fails its probe: the retry waits

    # Its backoff over, the retry comes whatever the probe says.
    Match.objects.filter(pk=match.pk).update(retry_at=timezone.now() - timedelta(seconds=1))
    with django_capture_on_commit_callbacks(execute=True):
        assert matches_retry_waiting() == 1
    match.refresh_from_db()
    assert (match.status, match.attempts) == (MatchStatus.FAILED_INFRA, 2)
    assert list(match.attempt_log.values_list("number", "outcome", "fault")) == [
        (1, "failed", "sandbox"),
        (2, "failed", "sandbox"),
    ]
    assert not RatingChange.objects.exists() and not Rating.objects.exists()
    assert set(match.participants.values_list("rank", "forfeit")) == {(None, "")}


@pytest.mark.django_db
def test_a_redelivered_task_changes_nothing(alice: Any, house: Any) -> None:
    shark, greedy = player_bot(alice, "shark", GOOD_BOT), house_bot(house, "greedy")
    ladder = classic_2()
    running = match_start(
        match=publish_match(
            match_create(ladder_id=ladder.pk, game=ladder.game, versions=[shark, greedy])
        )
    )
    finished = match_start(
        match=publish_match(
            match_create(ladder_id=ladder.pk, game=ladder.game, versions=[shark, greedy])
        )
    )
    finished = match_finish(
        match=finished, outcomes=[SeatOutcome(0, 5, 1), SeatOutcome(1, 0, 2)], game_log=b"{}"
    )

    # Played by a live worker (this process), and already played.
    assert run_match(running).status == MatchStatus.RUNNING
    assert run_match(finished).finished_at == finished.finished_at
    assert Match.objects.get(pk=running.pk).attempts == 1


@pytest.mark.django_db
def test_a_late_result_of_an_attempt_given_up_on_is_discarded(alice: Any, house: Any) -> None:
    shark, greedy = player_bot(alice, "shark", GOOD_BOT), house_bot(house, "greedy")
    match = match_start(
        match=publish_match(match_create(**on_ladder(classic_2()), versions=[shark, greedy]))
    )
    match_fail(match=match, error="worker lost", attempt=1)
    match_start(match=match)
    outcomes = [SeatOutcome(0, 5, 1), SeatOutcome(1, 0, 2)]

    with pytest.raises(MatchTransitionError, match="attempt 1 was given up on"):
        match_finish(match=match, outcomes=outcomes, game_log=b"{}", attempt=1)
    assert match_finish(match=match, outcomes=outcomes, game_log=b"{}", attempt=2).status == (
        MatchStatus.FINISHED
    )


@pytest.mark.django_db
def test_running_matches_of_lost_workers_are_queued_again(
    alice: Any, house: Any, settings: Any
) -> None:
    shark, greedy = player_bot(alice, "shark", GOOD_BOT), house_bot(house, "greedy")
    ladder = classic_2()
    host, namespace, pid, started = current_runner().split(":")
    silent = timezone.now() - timedelta(seconds=settings.ARENA_MATCH_LEASE_SECONDS + 1)
    runners = {
        "alive here": (current_runner(), timezone.now()),
        "dead here": (f"{host}:{namespace}:{pid}:{int(started) - 1}", timezone.now()),
        "other container": (f"{host}:1:{pid}:{int(started) - 1}", timezone.now()),
        "elsewhere, beating": ("other-host:1:7:1", timezone.now()),
        "elsewhere, silent": ("other-host:1:8:1", silent),
    }
    matches = {}
    for name, (runner, heartbeat) in runners.items():
        match = match_start(
            match=publish_match(
                match_create(ladder_id=ladder.pk, game=ladder.game, versions=[shark, greedy])
            )
        )
        Match.objects.filter(pk=match.pk).update(runner=runner, heartbeat_at=heartbeat)
        matches[name] = match.pk

    assert matches_requeue_stale() == 2

    status = dict(Match.objects.values_list("pk", "status"))
    assert {name: status[pk] for name, pk in matches.items()} == {
        "alive here": MatchStatus.RUNNING,
        "dead here": MatchStatus.QUEUED,
        "other container": MatchStatus.RUNNING,
        "elsewhere, beating": MatchStatus.RUNNING,
        "elsewhere, silent": MatchStatus.QUEUED,
    }


# --------------------------------------------------------------------------- real processes


def finished_and_rated(ladder: Ladder, count: int) -> list[Match] | None:
    matches = list(Match.objects.filter(ladder=ladder).order_by("pk"))
    done = [m for m in matches if m.status == MatchStatus.FINISHED and m.rated_at is not None]
    if any(m.status in (MatchStatus.FAILED_INFRA, MatchStatus.CANCELLED) for m in matches):
        raise AssertionError(f"a match did not finish: {[(m.pk, m.error) for m in matches]}")
    return done if len(done) == count else None


@needs_shared_database
@needs_redis
@pytest.mark.django_db(transaction=True)
def test_end_to_end_on_a_worker_with_postgresql_and_redis(
    alice: Any, bob: Any, house: Any, settings: Any, media_root: Path, tmp_path: Path
) -> None:
    settings.ARENA_LADDER_QUEUE_TARGET = 6
    ladder = classic_2(series_games=3)
    # Settled ratings: their picks are full series (matchmaking.series_units).
    settled = SERIES_SHARE * 3
    for name in ("greedy", "random"):
        version = house_bot(house, name)
        enter(version, ladder)
        RatingFactory(ladder=ladder, bot_version=version, rated_matches=settled)
    with redis_worker(tmp_path, media_root) as (worker, _):
        assert "bot sandbox self-test passed" in worker.log()
        # Alice uploads over the REST API with her token, as a bot author would.
        shark = api_upload(alice, "shark", "shark.py", SANDBOXED_BOT)
        wreck = bot_submit(owner=bob, name="wreck", filename="wreck.py", content=CHEAT_BOT)

        def validated() -> bool:
            versions = BotVersion.objects.filter(pk__in=[shark.pk, wreck.pk])
            return {v.status for v in versions} <= {VersionStatus.ACTIVE, VersionStatus.FAILED}

        wait_for(validated, timeout=60, what="the worker to validate both uploads")
        shark.refresh_from_db()
        wreck.refresh_from_db()
        assert shark.status == VersionStatus.ACTIVE, shark.validation_report
        assert shark.validation_report["sandboxed"] is True
        assert wreck.status == VersionStatus.FAILED
        fault = wreck.validation_report["games"]["classic-2"]["fault"]
        assert (fault["cause"], fault["reply"], fault["stderr_tail"]) == (
            "illegal_action",
            '{"type": "action", "id": 2, "action": "place 9"}',
            "about to cheat\n",
        )
        assert fault["request"]["id"] == 2 and fault["signal"] == 9

        RatingFactory(ladder=ladder, bot_version=shark, rated_matches=settled)
        # Two series of three games among shark, greedy and random, each played by one
        # worker run: the bot left out of the first seeds the second.
        queued = publish_matches(ladder_fill_queue(ladder=ladder))
        assert len(queued) == 6 and len({m.series_id for m in queued}) == 2
        matches = wait_for(
            lambda: finished_and_rated(ladder, 6), timeout=90, what="6 matches played and rated"
        )

    anonymous = APIClient()
    for match in matches:
        assert match.attempts == 1
        assert RatingChange.objects.filter(match=match).count() == 2
        assert all(p.rank is not None for p in match.participants.all())
        # Anyone downloads the log of a public match, and the engine replays it.
        downloaded = anonymous.get(f"/api/matches/{match.pk}/log/")
        assert downloaded.status_code == 200
        assert "replay ok" in replay(downloaded.content, tmp_path)
    rating = Rating.objects.get(bot_version=shark)
    assert rating.rated_matches > settled and rating.rating != 1500
    assert rating.rated_matches == settled + shark.participations.count()
    ladder_page = Client().get(f"/ladders/{ladder.slug}/")
    assert ladder_page.status_code == 200 and b"shark" in ladder_page.content


EMBEDDED_UPLOAD = f"""
from arena.players.services import player_create
from arena.ladders.flows import bot_submit
alice = player_create(username="alice")
bot_submit(owner=alice, name="shark", filename="shark.py", content={SANDBOXED_BOT!r})
"""

EMBEDDED_FILL = """
from arena.bots.models import BotVersion
from arena.ladders.matchmaking import SERIES_SHARE
from arena.ladders.models import Ladder, Rating
from arena.ladders.selectors import matchmaking_candidates
from arena.ladders.services import ladder_fill_queue
from arena.ladders.tasks import publish_runs
from arena.matches.services import runs_to_publish
ladder = Ladder.objects.get(slug="classic-2")
# Settled ratings: a pick is the ladder's full series (matchmaking.series_units).
for candidate in matchmaking_candidates(ladder=ladder):
    version = BotVersion.objects.get(pk=candidate.version_id)
    Rating.objects.create(
        ladder=ladder, bot=version.bot, bot_version=version,
        rated_matches=SERIES_SHARE * ladder.series_deals,
    )
created = ladder_fill_queue(ladder=ladder)
publish_runs(runs_to_publish(created))
print(len(created))
"""


def _manage(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(REPO_DIR / "manage.py"), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_end_to_end_on_the_embedded_defaults(tmp_path: Path) -> None:
    """SQLite and the embedded Redis broker: nothing configured but the data folder."""
    with embedded_broker(tmp_path):
        # One pick: the fixed target alone (not two runs for the worker, ARENA_QUEUE_RUNS_PER_SLOT).
        env = process_env(tmp_path, ARENA_LADDER_QUEUE_TARGET="2", ARENA_QUEUE_RUNS_PER_SLOT="0")
        _manage(env, "migrate", "-v0")
        house_dir = tmp_path / "house"
        house_dir.mkdir()
        for name in ("greedy_bot.py", "random_bot.py"):  # montecarlo's pre-flight takes seconds
            (house_dir / name).write_bytes((HOUSE_DIR / name).read_bytes())
        _manage(env, "load_house_bots", "--dir", str(house_dir))
        db_path = tmp_path / "arena.sqlite3"

        def query(sql: str) -> list[tuple[Any, ...]]:
            with sqlite3.connect(db_path) as db:
                return db.execute(sql).fetchall()

        worker = CeleryWorker(env, tmp_path / "worker.log").start()
        try:
            worker.wait_ready()
            _manage(env, "shell", "-c", EMBEDDED_UPLOAD)
            shark = "SELECT v.status FROM bots_botversion v JOIN bots_bot b ON b.id = v.bot_id "
            wait_for(
                lambda: query(shark + "WHERE b.name = 'shark'") == [("active",)],
                timeout=60,
                what="the worker to validate shark",
            )
            # load_house_bots' classic-2 plays duplicate deals: one pick is a series of
            # the ladder's 12 games, 6 deals of 2, played by one worker run.
            assert _manage(env, "shell", "-c", EMBEDDED_FILL).split()[-1] == "12"
            matches = (
                "SELECT m.status, m.rated_at IS NOT NULL, m.log FROM matches_match m "
                "JOIN ladders_ladder l ON l.id = m.ladder_id WHERE l.slug = 'classic-2'"
            )
            rows = wait_for(
                lambda: (
                    (rows := query(matches))
                    and all(r[:2] == ("finished", 1) for r in rows)
                    and rows
                ),
                timeout=90,
                what="the embedded worker to play and rate the series' 6 deals",
            )
        finally:
            worker.stop()
        assert len(rows) == 12
        # Each deal is rated once: one change per bot, on the deal's first game.
        assert query("SELECT COUNT(*) FROM ladders_ratingchange") == [(12,)]
        deals = query("SELECT DISTINCT deal_id FROM matches_match ORDER BY 1")
        assert len(deals) == 6
        assert query("SELECT DISTINCT match_id FROM ladders_ratingchange ORDER BY 1") == deals
        # Stored in the database (the default storage), not under the data dir.
        assert not (tmp_path / "media").exists()
        [(stored,)] = query(f"SELECT content FROM blobs_blob WHERE name = '{rows[0][2]}'")
        log = gzip.decompress(stored)
        assert "replay ok" in replay(log, tmp_path)
