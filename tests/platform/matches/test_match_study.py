"""Studying a finished match: each decision of the user's seats (matches/study.py) and
``GET /api/matches/<id>/decisions/``, on real PostgreSQL.

The observations are made again from the stored moves; a real game played by the
SDK's referee, with a bot that writes down every request it reads, checks they are
the very observations the bot was sent, the card game's simultaneous choices included.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arena.ladders.flows import ladder_create
from arena.ladders.models import Ladder
from arena.matches.models import MatchStatus
from arena.matches.study import NotYoursToStudyError, match_study
from bots_sdk.launcher import BotSpec, house_bot
from bots_sdk.protocol import Limits
from bots_sdk.referee import Match as RefereeMatch
from tests.bots_sdk.botkit import raw_bot
from tests.platform.api_support import client_for
from tests.platform.factories import BotFactory, BotVersionFactory, MatchFactory, UserFactory
from tests.platform.scenes import moves_log, play_match, store_finished, traced_referee
from vegas_engine import describe
from vegas_engine.log import expand

pytestmark = pytest.mark.django_db

LIMITS = Limits(startup_ms=10_000, decision_ms=5_000, bank_ms=120_000)

#: A bot without the SDK that writes each request it reads, as read, to RECORD (one JSON
#: document a line) and plays the middle one of its legal actions.
RECORDER = """\
import json, os, sys

with open(os.environ["RECORD"], "a") as record:
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            print(json.dumps({"type": "ready", "protocol": 1, "name": "recorder"}), flush=True)
        elif message["type"] == "request":
            record.write(line.strip() + "\\n")
            record.flush()
            legal = message["observation"]["legal_actions"]
            answer = {"type": "action", "id": message["id"], "action": legal[len(legal) // 2]}
            print(json.dumps(answer), flush=True)
        elif message["type"] == "shutdown":
            break
"""


def recorder(folder: Path, name: str) -> tuple[BotSpec, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "recorder.py").write_text(RECORDER)
    record = folder / f"{name}.jsonl"
    spec = BotSpec(
        name=name, bot_dir=folder, main="recorder.py", trusted=True, env={"RECORD": str(record)}
    )
    return spec, record


def received(record: Path) -> list[dict[str, Any]]:
    return [json.loads(line)["observation"] for line in record.read_text().splitlines()]


def decisions_of(response: Any) -> dict[int, list[dict[str, Any]]]:
    assert response.status_code == 200, response.content
    return {seat["seat"]: seat["decisions"] for seat in response.json()["seats"]}


@pytest.fixture
def classic() -> Ladder:
    return ladder_create(slug="classic-3", name="Classic, 3 seats", rules="classic", seats=3)


@pytest.mark.parametrize(("rules", "options"), [("classic", {}), ("cardgame", {})])
def test_each_observation_is_the_one_the_referee_sent(
    tmp_path: Path, alice: Any, bob: Any, rules: str, options: dict[str, Any]
) -> None:
    ladder = ladder_create(slug=f"{rules}-3", name=rules, rules=rules, seats=3, options=options)
    first, first_record = recorder(tmp_path / "a", "first")
    second, second_record = recorder(tmp_path / "b", "second")
    with RefereeMatch([first, house_bot("greedy"), second], LIMITS) as referee:
        played = referee.play(describe(rules, 3, options), 11, [0, 1, 2])
    assert played.faults == []
    versions = [BotVersionFactory(bot=BotFactory(owner=alice if s != 1 else bob)) for s in range(3)]
    match = store_finished(ladder, versions, 11, played.moves_log)

    seats = decisions_of(client_for(alice).get(f"/api/matches/{match.pk}/decisions/"))
    assert set(seats) == {0, 2}
    for seat, record in ((0, first_record), (2, second_record)):
        sent = received(record)
        assert [d["observation"] for d in seats[seat]] == sent
        assert [d["legal_actions"] for d in seats[seat]] == [o["legal_actions"] for o in sent]
        # The answers are the recorder's (the middle legal action), at the moves that played them.
        moves = played.moves_log["moves"]
        for decision in seats[seat]:
            legal = decision["legal_actions"]
            assert decision["action"] == legal[len(legal) // 2]
            assert moves[decision["move"]] == [seat, decision["action"]]
        # Times from the referee's decision_ms (this log has no trace), in order.
        times = played.moves_log["referee"]["seats"][seat]["decision_ms"]
        assert [d["ms"] for d in seats[seat]] == times
    if rules == "cardgame":
        # Seats chose at once: each was observed before any choice of the round was applied.
        together = [d for d in seats[2] if d["observation"]["to_move"] == [0, 1, 2]]
        assert together and all(d["observation"]["my_choice"] is None for d in together)


def test_the_owner_reads_notes_and_stderr_others_are_refused(
    classic: Ladder, alice: Any, bob: Any, carol: Any
) -> None:
    log = moves_log(classic, 5)
    versions = [BotVersionFactory(bot=BotFactory(owner=o)) for o in (alice, bob, alice)]
    match = store_finished(classic, versions, 5, {**log, "referee": traced_referee(log)})
    url = f"/api/matches/{match.pk}/decisions/"
    events = expand(log)["events"]

    mine = decisions_of(client_for(alice).get(url))
    assert set(mine) == {0, 2}
    for seat, decisions in mine.items():
        assert [d["move"] for d in decisions] == [
            i for i, (mover, _) in enumerate(log["moves"]) if mover == seat
        ]
        for k, decision in enumerate(decisions):
            assert decision["note"] == f"seat {seat} thinks {k}"
            assert decision["stderr"] == f"{seat}: {k}\n  indented <b>not bold</b>"
            assert decision["ms"] == 10.0 + k and decision["request"] == k + 1
            assert decision["truncated"] is (k == 0)
            assert decision["fallback"] is False and decision["fault"] is None
            assert decision["action"] in decision["legal_actions"]
            # Its decision event in the events form, which the replay steps through.
            event = events[decision["event"]]
            assert event == {
                "type": "decision",
                "seat": seat,
                "action": decision["action"],
                "forced": False,
            }
    body = client_for(alice).get(url).json()
    assert [(s["bot_seed"], s["decision_ms"]) for s in body["seats"]] == [
        (1000, 1000),
        (1002, 1000),
    ]

    assert set(decisions_of(client_for(bob).get(url))) == {1}
    assert set(decisions_of(client_for(alice).get(url, {"seat": 2}))) == {2}
    assert set(decisions_of(client_for(carol).get(url))) == {0, 1, 2}  # staff

    refused = client_for(bob).get(url, {"seat": 0})
    assert refused.status_code == 403
    assert "seat 0 is not yours" in refused.json()["detail"]
    dave = UserFactory(username="dave")
    for other in (dave, None):
        response = client_for(other).get(url)
        assert response.status_code == 403, other
        assert b"thinks" not in response.content
    assert client_for(alice).get(url, {"seat": 3}).status_code == 400


def test_an_older_log_gives_its_decisions_with_times_and_no_notes(
    classic: Ladder, alice: Any, bob: Any
) -> None:
    versions = [BotVersionFactory(bot=BotFactory(owner=o)) for o in (alice, bob, bob)]
    # Stored as events, with no referee section (the oldest matches).
    match, events_log = play_match(classic, versions, 8)
    (studied,) = match_study(match=match, user=alice)
    decisions = [
        (i, e["action"])
        for i, e in enumerate(events_log["events"])
        if e["type"] == "decision" and e["seat"] == 0 and not e["forced"]
    ]
    assert [(d.event, d.action) for d in studied.decisions] == decisions
    assert all(d.note is None and d.ms is None and d.request is None for d in studied.decisions)
    assert studied.bot_seed is None
    assert studied.decision_ms == classic.time_per_decision_ms
    with pytest.raises(NotYoursToStudyError, match=r"seats \[1\] are not yours"):
        match_study(match=match, user=alice, seats=[0, 1])
    # Stored as moves with times only (a referee before traces): decision_ms gives the times.
    log = moves_log(classic, 8)
    older = store_finished(
        classic, versions, 8, {**log, "referee": traced_referee(log, notes=False)}
    )
    (timed,) = match_study(match=older, user=alice)
    assert [d.ms for d in timed.decisions] == [10.0 + k for k in range(len(timed.decisions))]
    assert [(d.event, d.action) for d in timed.decisions] == decisions


def test_a_fault_marks_its_decision_and_the_fallbacks_after_it(
    tmp_path: Path, classic: Ladder, alice: Any, bob: Any
) -> None:
    illegal = raw_bot(tmp_path, "illegal", at=3)  # answers "place 9" to its third request
    with RefereeMatch([illegal, house_bot("random"), house_bot("greedy")], LIMITS) as referee:
        played = referee.play(describe("classic", 3), 4, [0, 1, 2])
    assert played.seats[0].fault is not None
    versions = [BotVersionFactory(bot=BotFactory(owner=o)) for o in (alice, bob, bob)]
    match = store_finished(classic, versions, 4, played.moves_log)
    (studied,) = match_study(match=match, user=alice)
    faulted = studied.decisions[2]
    assert faulted.fault == {"kind": "illegal_action", "message": played.seats[0].fault.message}
    assert [d.fallback for d in studied.decisions] == [False, False] + [True] * (
        len(studied.decisions) - 2
    )
    assert all(d.fault is None for i, d in enumerate(studied.decisions) if i != 2)


def test_no_decisions_before_the_match_is_over(classic: Ladder, alice: Any) -> None:
    match = MatchFactory(ladder=classic, status=MatchStatus.RUNNING)
    version = BotVersionFactory(bot=BotFactory(owner=alice))
    match.participants.create(seat=0, bot_version=version)
    response = client_for(alice).get(f"/api/matches/{match.pk}/decisions/")
    assert response.status_code == 404
    assert "no log to study yet: it is running" in response.json()["detail"]
    assert client_for(alice).get("/api/matches/999999/decisions/").status_code == 404


def test_the_schema_documents_the_decisions() -> None:
    schema = client_for().get("/api/schema/", {"format": "json"}).json()
    operation = schema["paths"]["/api/matches/{match_id}/decisions/"]["get"]
    assert set(operation["responses"]) == {"200", "403", "404"}
    assert "observation" in json.dumps(schema["components"]["schemas"]["StudiedDecisionOutput"])


def test_a_sealed_game_of_a_deal_shows_no_decisions_until_the_deal_is_played(
    classic: Ladder, alice: Any, bob: Any
) -> None:
    log = moves_log(classic, 6)
    versions = [BotVersionFactory(bot=BotFactory(owner=o)) for o in (alice, bob, bob)]
    match = store_finished(classic, versions, 6, {**log, "referee": traced_referee(log)})
    # Another game dealt by the same seed, still to play: its dice are this log's.
    other = MatchFactory(ladder=classic, status=MatchStatus.QUEUED, seed=match.seed)
    url = f"/api/matches/{match.pk}/decisions/"
    response = client_for(alice).get(url)
    assert response.status_code == 404
    assert "sealed until the other games" in response.json()["detail"]
    assert b"thinks" not in response.content
    other.status = MatchStatus.FINISHED
    other.save(update_fields=["status"])
    assert set(decisions_of(client_for(alice).get(url))) == {0}
