"""Tables: a person plays an unrated game against bots, through the services and the API.

Whole games are played for real in this process: the referee, the bots (a
house bot bare, an uploaded one in the sandbox), and the person's seat relayed
through its process and thread to the database, where a "person" thread of the
test reads the decision asked and answers it, as the page does.
"""

from __future__ import annotations

import gzip
import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

import pytest
from django.core.files.storage import default_storage
from django.db import connection, transaction
from django.utils import timezone
from rest_framework.test import APIClient

import vegas_engine
from arena.bots.models import Bot, BotVersion, Visibility
from arena.ladders.flows import ladder_create
from arena.ladders.models import Qualification, QualificationStatus
from arena.matches.models import ForfeitCause
from arena.players.services import team_create
from arena.tables import flows, services
from arena.tables.models import Table, TableStatus
from arena.tables.play import table_run
from arena.tables.selectors import HIDDEN_CARD, Answered, events_seen_by, table_state
from arena.tables.services import (
    TableActionError,
    TableError,
    TableLimitError,
    TableStoppedError,
    table_act,
    table_ask,
    table_cancel,
    table_create,
    table_start,
    tables_end_lost,
)
from tests.platform.ladders.test_match_pipeline import house_bot, player_bot
from tests.platform.worker import SANDBOXED_BOT, needs_concurrent_writes, wait_for
from vegas_engine import log as game_logs
from vegas_engine.log import game_log
from vegas_engine.policies import play, random_policy
from vegas_engine.replay import replay

pytestmark = pytest.mark.slow


def qualify(version: BotVersion, rules: str, seats: int = 2) -> BotVersion:
    """The version passed a pre-flight of a ladder of ``rules``: it may sit at such tables."""
    ladder = ladder_create(slug=f"{rules}-{seats}", name=rules, rules=rules, seats=seats)
    Qualification.objects.create(
        ladder=ladder, bot_version=version, status=QualificationStatus.PASSED
    )
    return version


def answer_as_person(
    table: Table, choose: Callable[[list[str]], str] = lambda legal: legal[0]
) -> tuple[threading.Thread, list[str]]:
    """A thread that answers every decision the table asks, as the page would."""
    answered: list[str] = []

    def person() -> None:
        try:
            while True:
                current = Table.objects.get(pk=table.pk)
                if current.status not in (TableStatus.QUEUED, TableStatus.PLAYING):
                    return
                decision = table_state(table=current).decision
                if decision is not None:
                    action = choose(decision.legal_actions)
                    table_act(
                        table=current,
                        player=current.player,
                        request_id=decision.request_id,
                        action=action,
                    )
                    answered.append(action)
                threading.Event().wait(0.05)
        finally:
            connection.close()

    thread = threading.Thread(target=person, daemon=True)
    thread.start()
    return thread, answered


@pytest.fixture
def queued(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Tables whose game is queued for a worker, recorded rather than played here."""
    tables: list[int] = []
    monkeypatch.setattr(
        flows,
        "_queue_play",
        lambda table: transaction.on_commit(lambda: tables.append(table.pk)),
    )
    return tables


def stored_log(table: Table) -> dict[str, Any]:
    """The table's stored log (its moves), played out to its events."""
    with default_storage.open(table.log.name, "rb") as handle:
        stored = json.loads(gzip.decompress(handle.read()))
    assert stored["log_schema"] == 2 and "events" not in stored, "a table stores its moves"
    return game_logs.expand(stored)


# --------------------------------------------------------------------------- sitting down


@pytest.mark.django_db
def test_a_table_is_created_queued_with_the_person_and_the_bots_in_their_seats(
    alice: Any, house: Any, django_capture_on_commit_callbacks: Any, settings: Any, queued: Any
) -> None:
    greedy = house_bot(house, "greedy").bot
    random = house_bot(house, "random").bot
    with django_capture_on_commit_callbacks(execute=True):
        table = flows.table_create(
            player=alice, rules="classic", seats=3, seat=1, opponents=[greedy, random]
        )
    assert queued == [table.pk]  # table_play, once the table is committed
    assert table.status == TableStatus.QUEUED
    assert table.decision_seconds == settings.ARENA_TABLE_DECISION_SECONDS
    seats = [
        (s.seat, s.bot_version and s.bot_version.bot.name)
        for s in table.table_seats.order_by("seat")
    ]
    assert seats == [(0, "greedy"), (1, None), (2, "random")]
    assert table.public_seed is None  # the seed tells the dice to come


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("rules", "seats", "seat", "options", "message"),
    [
        ("poker", 2, 0, {}, "unknown rule system 'poker'"),
        ("classic", 9, 0, {}, "seats"),
        ("classic", 2, 2, {}, "choose your seat among 0-1, not 2"),
        ("royale", 2, 0, {"tiles": 9}, "tiles"),
    ],
)
def test_a_table_the_engine_cannot_play_is_refused_saying_why(
    alice: Any, house: Any, rules: str, seats: int, seat: int, options: Any, message: str
) -> None:
    greedy = house_bot(house, "greedy").bot
    with pytest.raises(TableError, match=message):
        table_create(
            player=alice, rules=rules, seats=seats, seat=seat, opponents=[greedy], options=options
        )


@pytest.mark.django_db
def test_opponents_are_bots_the_person_may_see_that_play_the_game(
    alice: Any, bob: Any, house: Any
) -> None:
    greedy = house_bot(house, "greedy").bot
    with pytest.raises(TableError, match="needs 2 bots beside you, got 1"):
        table_create(player=alice, rules="classic", seats=3, seat=0, opponents=[greedy])
    secret = player_bot(bob, "secret", SANDBOXED_BOT).bot
    Bot.objects.filter(pk=secret.pk).update(visibility=Visibility.PRIVATE)
    secret.refresh_from_db()
    with pytest.raises(TableError, match=f"no bot {secret.pk}"):
        table_create(player=alice, rules="classic", seats=2, seat=0, opponents=[secret])
    shark = player_bot(bob, "shark", SANDBOXED_BOT)
    qualify(shark, "cardgame")
    with pytest.raises(TableError, match="shark has not passed a pre-flight game of classic"):
        table_create(player=alice, rules="classic", seats=2, seat=0, opponents=[shark.bot])
    # Bob's own private bot is his to play against.
    qualify(BotVersion.objects.get(bot=secret), "classic")
    assert table_create(player=bob, rules="classic", seats=2, seat=0, opponents=[secret])


@pytest.mark.django_db
def test_a_person_plays_one_table_at_a_time_and_may_leave_it_while_it_waits(
    alice: Any, house: Any, queued: Any
) -> None:
    greedy = house_bot(house, "greedy").bot
    table = table_create(player=alice, rules="classic", seats=2, seat=0, opponents=[greedy])
    with pytest.raises(
        TableLimitError, match=r"1 game\(s\) waiting or being played and the limit is 1"
    ):
        table_create(player=alice, rules="classic", seats=2, seat=0, opponents=[greedy])
    left = table_cancel(table=table)
    assert left.status == TableStatus.CANCELLED
    assert table_create(player=alice, rules="classic", seats=2, seat=0, opponents=[greedy])


# --------------------------------------------------------------------------- answering


@contextmanager
def asked(table: Table, legal: list[str], *, seconds: int = 60) -> Iterator[Table]:
    """The table playing and asking the person to choose among ``legal`` (as its worker would)."""
    table_start(table=table)
    observation = {"decision": "place", "legal_actions": legal, "seat": table.seat}
    assert table_ask(
        table_id=table.pk, request_id=7, observation=observation, time_ms=seconds * 1000
    )
    yield Table.objects.get(pk=table.pk)


@pytest.mark.django_db
def test_an_answer_must_be_legal_in_time_and_for_the_decision_asked(
    alice: Any, bob: Any, house: Any, queued: Any
) -> None:
    greedy = house_bot(house, "greedy").bot
    table = table_create(player=alice, rules="classic", seats=2, seat=0, opponents=[greedy])
    with asked(table, ["place 2", "place 5"]) as playing:
        decision = table_state(table=playing).decision
        assert decision is not None and decision.legal_actions == ["place 2", "place 5"]
        with pytest.raises(
            TableActionError, match="'place 9' is not legal now; legal: place 2, place 5"
        ):
            table_act(table=playing, player=alice, request_id=7, action="place 9")
        with pytest.raises(TableActionError, match="decision 6 is over"):
            table_act(table=playing, player=alice, request_id=6, action="place 2")
        with pytest.raises(TableActionError, match="not your table"):
            table_act(table=playing, player=bob, request_id=7, action="place 2")
        answered = table_act(table=playing, player=alice, request_id=7, action="place 5")
        assert answered.answer == "place 5"
        state = table_state(table=answered)
        assert state.decision is None  # answered: nothing asked now
        assert state.answered == Answered(request_id=7, action="place 5")
        with pytest.raises(TableActionError, match="answered decision 7 already"):
            table_act(table=playing, player=alice, request_id=7, action="place 2")
        Table.objects.filter(pk=table.pk).update(
            answer="", deadline_at=timezone.now() - timedelta(seconds=1)
        )
        with pytest.raises(TableActionError, match="too late: your 90 seconds"):
            table_act(table=playing, player=alice, request_id=7, action="place 2")


@pytest.mark.django_db
def test_the_api_refuses_an_illegal_answer_with_the_legal_ones_and_hides_tables_of_others(
    alice: Any, bob: Any, house: Any, queued: Any
) -> None:
    client = APIClient()
    client.force_authenticate(alice)
    greedy = house_bot(house, "greedy").bot
    # A team's bot is named with its team, beside its owner (the person's seat has none).
    Bot.objects.filter(pk=greedy.pk).update(team=team_create(user=bob, name="Greedies"))
    created = client.post(
        "/api/tables/",
        {"rules": "classic", "seats": 2, "seat": 1, "opponents": [greedy.pk]},
        format="json",
    )
    assert created.status_code == 201, created.json()
    body = created.json()
    assert (body["status"], body["seat"], body["seed"], body["decision"]) == (
        "queued",
        1,
        None,
        None,
    )
    assert [p["name"] for p in body["players"]] == ["greedy", "alice"]
    assert [(p["owner"], p["team"]) for p in body["players"]] == [
        ("house", "Greedies"),
        (None, None),
    ]
    listed = client.get("/api/tables/").json()
    assert [(p["name"], p["team"]) for p in listed[0]["players"]] == [
        ("greedy", "Greedies"),
        ("alice", None),
    ]
    table = Table.objects.get(pk=body["id"])
    with asked(table, ["place 1", "place 3"]):
        shown = client.get(f"/api/tables/{table.pk}/").json()
        assert shown["decision"]["legal_actions"] == ["place 1", "place 3"]
        assert shown["answered"] is None
        assert 55 <= shown["decision"]["seconds_left"] <= 60
        refused = client.post(
            f"/api/tables/{table.pk}/act/", {"request": 7, "action": "place 4"}, format="json"
        )
        assert refused.status_code == 400
        assert refused.json() == {
            "code": "table_action",
            "detail": "'place 4' is not legal now; legal: place 1, place 3.",
        }
        done = client.post(
            f"/api/tables/{table.pk}/act/", {"request": 7, "action": "place 3"}, format="json"
        )
        assert done.status_code == 200 and done.json()["decision"] is None
        # Until the game asks the next decision, every read says what was answered (a
        # page opened again, or one whose poll crossed the answer, knows it).
        again = client.get(f"/api/tables/{table.pk}/").json()
        for body in (done.json(), again):
            assert body["answered"] == {"request": 7, "action": "place 3"}
    client.force_authenticate(bob)
    assert client.get(f"/api/tables/{table.pk}/").status_code == 404
    assert client.post(f"/api/tables/{table.pk}/leave/").status_code == 404
    assert (
        client.post(
            f"/api/tables/{table.pk}/act/", {"request": 7, "action": "place 1"}, format="json"
        ).status_code
        == 404
    )
    assert client.get("/api/tables/").json() == []
    client.force_authenticate(None)
    assert client.get(f"/api/tables/{table.pk}/").status_code in (401, 403)


# --------------------------------------------------------------------------- whole games


@needs_concurrent_writes
@pytest.mark.django_db(transaction=True)
def test_a_person_plays_a_whole_game_against_a_house_bot_and_a_sandboxed_upload(
    alice: Any, bob: Any, carol: Any, house: Any, queued: Any
) -> None:
    greedy = house_bot(house, "greedy")
    shark = qualify(player_bot(bob, "shark", SANDBOXED_BOT), "classic", seats=3)
    table = table_create(
        player=alice, rules="classic", seats=3, seat=1, opponents=[greedy.bot, shark.bot]
    )
    person, answered = answer_as_person(table, choose=lambda legal: legal[-1])
    played = table_run(table=table)
    person.join(timeout=10)
    assert played.status == TableStatus.FINISHED, played.error
    log = stored_log(played)
    assert log["events"][-1]["type"] == "game_end"
    # Every decision of seat 1 the referee asked was the person's answer, in order.
    asked = [
        e["action"]
        for e in log["events"]
        if e["type"] == "decision" and e["seat"] == 1 and not e.get("forced")
    ]
    assert asked == answered and len(answered) > 5
    seats = log["referee"]["seats"]
    assert [s["name"] for s in seats] == ["greedy v1", "alice", "shark v1"]
    assert [s["forfeited"] for s in seats] == [False, False, False]
    # The person had their own limits; the bots the table's (shark only plays sandboxed).
    assert seats[1]["limits"]["decision_ms"] == played.decision_seconds * 1000
    assert "limits" not in seats[0] and log["referee"]["limits"]["decision_ms"] == 1000
    result = {s.seat: (s.money, s.rank, s.forfeit) for s in played.table_seats.all()}
    assert {seat: (money, rank) for seat, (money, rank, _) in result.items()} == {
        entry["seat"]: (entry["money"], entry["rank"]) for entry in log["referee"]["result"]
    }
    replay(log)  # the engine replays every event
    assert played.public_seed == log["seed"]
    client = APIClient()
    client.force_authenticate(alice)
    downloaded = client.get(f"/api/tables/{table.pk}/log/?download=1")
    assert downloaded["Content-Disposition"] == f'attachment; filename="table-{table.pk}.json"'
    assert downloaded.json()["events"] == log["events"]
    # The bots' seats keep a trace, the person's none; what is private to a bot's seat
    # is for its owner and staff (carol), not for the person at the table.
    assert "trace" not in seats[1] and isinstance(seats[1]["bot_seed"], int)
    assert len(seats[0]["trace"]) == seats[0]["decisions"] > 0 and seats[2]["trace"]
    mine = downloaded.json()["referee"]["seats"]
    assert ["trace" in s or "bot_seed" in s for s in mine] == [False, True, False]
    client.force_authenticate(carol)
    staff = client.get(f"/api/tables/{table.pk}/log/").json()["referee"]["seats"]
    assert [s.get("trace") for s in staff] == [s.get("trace") for s in seats]


@needs_concurrent_writes
@pytest.mark.django_db(transaction=True)
def test_a_person_who_walks_away_forfeits_and_the_bots_finish_the_game(
    alice: Any, house: Any, settings: Any, queued: Any
) -> None:
    settings.ARENA_TABLE_DECISION_SECONDS = 2
    greedy, random = house_bot(house, "greedy").bot, house_bot(house, "random").bot
    table = table_create(player=alice, rules="classic", seats=3, seat=0, opponents=[greedy, random])
    played = table_run(table=table)  # nobody answers
    assert played.status == TableStatus.FINISHED, played.error
    person = played.table_seats.get(seat=0)
    assert (person.forfeit, person.rank) == (ForfeitCause.TIMEOUT, 3)
    log = stored_log(played)
    fault = log["referee"]["seats"][0]["fault"]
    assert (fault["kind"], fault["message"]) == ("timeout", "no reply within 2000 ms")
    assert log["events"][-1]["type"] == "game_end"  # the fallback policy played the rest
    assert played.request_id is None and played.observation is None


@needs_concurrent_writes
@pytest.mark.django_db(transaction=True)
def test_the_board_shows_the_game_so_far_as_the_person_may_know_it(
    alice: Any, house: Any, queued: Any
) -> None:
    """A card game: while it is played the person's board has their own hand, the other
    seat's hand as hidden cards, and none of its secret choices."""
    random = house_bot(house, "random").bot
    table = table_create(player=alice, rules="cardgame", seats=2, seat=0, opponents=[random])
    boards: list[list[dict[str, Any]]] = []

    def looking(legal: list[str]) -> str:
        state = table_state(table=Table.objects.get(pk=table.pk))
        assert state.events is not None
        boards.append(state.events.events)
        return legal[0]

    person, _ = answer_as_person(table, choose=looking)
    played = table_run(table=table)
    person.join(timeout=10)
    assert played.status == TableStatus.FINISHED, played.error
    assert len(boards) > 3
    events = boards[-1]
    draws = {e["seat"]: e["cards"] for e in events if e["type"] == "draw"}
    assert draws[1] and set(draws[1]) == {HIDDEN_CARD}
    assert HIDDEN_CARD not in draws[0]
    assert not [e for e in events if e["type"] == "decision" and e["seat"] == 1]
    # What the person saw is the true game, but for what was hidden.
    full = stored_log(played)["events"]
    assert events == events_seen_by(full, 0)[: len(events)]


def test_events_seen_by_hides_other_seats_secrets_only() -> None:
    description = vegas_engine.describe("cardgame", 3)
    events = game_log(play(description, 5, [random_policy] * 3))["events"]
    seen = events_seen_by(events, 2)
    public = [e for e in events if e["type"] not in ("decision", "draw", "discard")]
    assert [e for e in seen if e["type"] not in ("decision", "draw", "discard")] == public
    assert [e for e in seen if e["type"] == "decision"] == [
        e for e in events if e["type"] == "decision" and e["seat"] == 2
    ]
    for before, after in zip(
        [e for e in events if e["type"] in ("draw", "discard")],
        [e for e in seen if e["type"] in ("draw", "discard")],
        strict=True,
    ):
        hidden = before["seat"] != 2
        assert after["cards"] == (
            [HIDDEN_CARD] * len(before["cards"]) if hidden else before["cards"]
        )


@pytest.mark.django_db
def test_tables_whose_worker_fell_silent_or_that_no_worker_took_fail(
    alice: Any, bob: Any, house: Any, queued: Any
) -> None:
    greedy = house_bot(house, "greedy").bot
    lost = table_start(
        table=table_create(player=alice, rules="classic", seats=2, seat=0, opponents=[greedy])
    )
    waiting = table_create(player=bob, rules="classic", seats=2, seat=0, opponents=[greedy])
    assert tables_end_lost() == 0
    long_ago = timezone.now() - timedelta(hours=2)
    Table.objects.filter(pk=lost.pk).update(heartbeat_at=long_ago)
    Table.objects.filter(pk=waiting.pk).update(created_at=long_ago)
    assert tables_end_lost() == 2
    lost.refresh_from_db()
    waiting.refresh_from_db()
    assert (lost.status, waiting.status) == (TableStatus.FAILED, TableStatus.FAILED)
    assert "its worker is gone" in lost.error and "no worker was free" in waiting.error
    assert tables_end_lost() == 0


@pytest.mark.django_db
def test_a_table_whose_worker_is_gone_fails_as_its_person_polls_and_refuses_answers(
    alice: Any, house: Any, queued: Any, settings: Any
) -> None:
    """No sweep needed: the page's poll (or the answer) finds the worker's beat too old."""
    client = APIClient()
    client.force_authenticate(alice)
    greedy = house_bot(house, "greedy").bot
    table = table_create(player=alice, rules="classic", seats=2, seat=0, opponents=[greedy])
    with asked(table, ["place 1", "place 3"]):
        shown = client.get(f"/api/tables/{table.pk}/").json()
        assert shown["status"] == "playing" and shown["decision"]["request"] == 7
        silent = timezone.now() - timedelta(seconds=settings.ARENA_TABLE_LEASE_SECONDS + 1)
        Table.objects.filter(pk=table.pk).update(heartbeat_at=silent)
        polled = client.get(f"/api/tables/{table.pk}/").json()
        assert (polled["status"], polled["decision"]) == ("failed", None)
        lease = settings.ARENA_TABLE_LEASE_SECONDS
        assert polled["error"].startswith(f"its worker is gone (silent for over {lease} s")
        refused = client.post(
            f"/api/tables/{table.pk}/act/", {"request": 7, "action": "place 1"}, format="json"
        )
    assert refused.status_code == 409
    assert refused.json() == {
        "code": "table_stopped",
        "detail": f"this table's game stopped: {polled['error']}; start a new table.",
    }
    assert Table.objects.get(pk=table.pk).answer == ""


@pytest.mark.django_db
def test_an_answer_to_a_table_whose_worker_is_gone_fails_it_and_is_refused(
    alice: Any, house: Any, queued: Any, settings: Any
) -> None:
    greedy = house_bot(house, "greedy").bot
    table = table_create(player=alice, rules="classic", seats=2, seat=0, opponents=[greedy])
    with asked(table, ["place 1", "place 3"]) as playing:
        silent = timezone.now() - timedelta(seconds=settings.ARENA_TABLE_LEASE_SECONDS + 1)
        Table.objects.filter(pk=table.pk).update(heartbeat_at=silent)
        playing.refresh_from_db()
        with pytest.raises(TableStoppedError, match=r"its worker is gone.*start a new table"):
            table_act(table=playing, player=alice, request_id=7, action="place 1")
    failed = Table.objects.get(pk=table.pk)
    assert (failed.status, failed.answer, failed.request_id) == (TableStatus.FAILED, "", None)
    assert tables_end_lost() == 0  # nothing left for the sweep


@needs_concurrent_writes
@pytest.mark.django_db(transaction=True)
def test_a_table_failed_as_lost_while_its_worker_plays_stops_the_game(
    alice: Any, house: Any, queued: Any, settings: Any, caplog: Any
) -> None:
    """A worker only slow, not gone, found its table failed: the person's seat stops (the
    bots end the game at once) rather than wait for an answer nobody can post."""
    settings.ARENA_TABLE_DECISION_SECONDS = 60
    greedy = house_bot(house, "greedy").bot
    table = table_create(player=alice, rules="classic", seats=2, seat=0, opponents=[greedy])
    result: list[Table] = []

    def play_it() -> None:
        try:
            result.append(table_run(table=table))
        finally:
            connection.close()

    worker = threading.Thread(target=play_it, daemon=True)
    worker.start()
    try:

        def asking() -> bool:
            return Table.objects.get(pk=table.pk).request_id is not None

        wait_for(asking, timeout=60, what="the person to be asked")
        services.table_fail(table=table, error="failed by the test")
    finally:
        worker.join(timeout=120)
    assert not worker.is_alive()
    assert result[0].status == TableStatus.FAILED and result[0].error == "failed by the test"
    assert "is no longer being played (failed as lost): its seat stops" in caplog.text
