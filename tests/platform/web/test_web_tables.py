"""The Play pages and a running match's page, through Django's test client.

Tables are created through the pages; their game is queued (recorded here,
not played: whole games are test_tables.py's and test_browser_tables.py's).
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.db import transaction
from django.test import Client

import vegas_engine
from arena.ladders.flows import ladder_create
from arena.live.services import LivePublisher
from arena.matches.games import MatchGame
from arena.matches.models import match_feed
from arena.matches.outcomes import SeatOutcome
from arena.matches.services import match_create, match_create_deal, match_start
from arena.tables import flows
from arena.tables.models import Table, TableStatus
from arena.tables.services import table_create, table_finish, table_start
from tests.platform.ladders.test_match_pipeline import house_bot, player_bot
from tests.platform.tables.test_tables import qualify
from tests.platform.worker import SANDBOXED_BOT
from vegas_engine.log import dumps, game_log
from vegas_engine.policies import greedy_policy, play

pytestmark = pytest.mark.django_db


@pytest.fixture
def queued(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    tables: list[int] = []
    monkeypatch.setattr(
        flows,
        "_queue_play",
        lambda table: transaction.on_commit(lambda: tables.append(table.pk)),
    )
    return tables


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def replay_data(html: str) -> dict[str, Any]:
    found = re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', html)
    assert found is not None, "no replay on the page"
    return dict(json.loads(found.group(1)))


def test_play_asks_to_sign_in_first() -> None:
    response = Client().get("/play/")
    assert response.status_code == 302 and response["Location"].startswith("/login/")


def test_the_form_offers_house_bots_for_every_game_and_uploads_for_theirs(
    alice: Any, bob: Any, house: Any
) -> None:
    house_bot(house, "greedy")
    shark = qualify(player_bot(bob, "shark", SANDBOXED_BOT), "cardgame")
    html = signed_in(alice).get("/play/").content.decode()
    # A house bot is offered as its level (bots_sdk.levels), for every game.
    greedy_option = re.search(
        r'<option value="\d+" selected data-plays="">Level 3: Regular \(greedy\)', html
    )
    assert greedy_option is not None
    assert f'<option value="{shark.bot_id}" data-plays="cardgame">shark by bob</option>' in html
    assert 'data-rules-seats="classic:2 3 4 5;boulevard:2 3 4 5 6;' in html
    for rules in vegas_engine.RULE_SYSTEMS:
        assert f'data-options="{rules}"' in html


def test_sitting_down_queues_the_game_and_opens_its_page(
    alice: Any, house: Any, queued: list[int], django_capture_on_commit_callbacks: Any
) -> None:
    greedy = house_bot(house, "greedy").bot
    random = house_bot(house, "random").bot
    client = signed_in(alice)
    form = {
        "rules": "royale",
        "seats": "3",
        "seat": "2",
        "bot_1": str(greedy.pk),
        "bot_2": str(random.pk),
        "royale__tiles": "2",
    }
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/play/", form)
    table = Table.objects.get(player=alice)
    assert response.status_code == 302 and response["Location"] == f"/play/{table.pk}/"
    assert queued == [table.pk]
    assert (table.rules, table.seats, table.seat) == ("royale", 3, 2)
    assert table.options == {"neutral_dice": False, "tiles": 2}
    page = client.get(response["Location"]).content.decode()
    assert "Waiting for a worker to deal the game" in page
    assert 'id="leave-form"' in page
    document = replay_data(page)
    assert document["live"]["url"] == f"/api/tables/{table.pk}/"
    assert document["live"]["playing"] == ["queued", "playing"]
    assert [p["name"] for p in document["players"]] == ["greedy", "random", "You"]
    assert document["events"] == []
    # Leaving a table no worker took: cancelled, and the person may sit down again.
    left = client.post(f"/play/{table.pk}/leave/")
    assert left.status_code == 302 and left["Location"] == "/play/"
    table.refresh_from_db()
    assert table.status == TableStatus.CANCELLED


def test_a_refused_table_says_why_on_the_form(
    alice: Any, bob: Any, house: Any, queued: list[int]
) -> None:
    shark = qualify(player_bot(bob, "shark", SANDBOXED_BOT), "cardgame")
    response = signed_in(alice).post(
        "/play/", {"rules": "classic", "seats": "2", "seat": "0", "bot_1": str(shark.bot_id)}
    )
    assert response.status_code == 400
    assert "shark has not passed a pre-flight game of classic" in response.content.decode()
    missing = signed_in(alice).post("/play/", {"rules": "classic", "seats": "3", "seat": "0"})
    assert missing.status_code == 400
    assert "Choose a bot: 3 seats need 2." in missing.content.decode()
    assert not Table.objects.exists() and queued == []


def test_a_table_is_its_players_only(alice: Any, bob: Any, house: Any, queued: list[int]) -> None:
    greedy = house_bot(house, "greedy").bot
    table = table_create(player=alice, rules="classic", seats=2, seat=0, opponents=[greedy])
    assert signed_in(bob).get(f"/play/{table.pk}/").status_code == 404
    assert signed_in(bob).post(f"/play/{table.pk}/leave/").status_code == 404
    table.refresh_from_db()
    assert table.status == TableStatus.QUEUED


def test_a_finished_table_shows_its_result_replay_and_log(
    alice: Any, house: Any, queued: list[int]
) -> None:
    greedy = house_bot(house, "greedy").bot
    table = table_start(
        table=table_create(player=alice, rules="classic", seats=2, seat=1, opponents=[greedy])
    )
    state = play(vegas_engine.describe("classic", 2), table.seed, [greedy_policy] * 2)
    log = game_log(state)
    result = state.result()
    assert result is not None
    outcomes = [SeatOutcome(seat=r.seat, money=r.money, rank=r.rank) for r in result]
    table_finish(table=table, outcomes=outcomes, game_log=dumps(log).encode())
    page = signed_in(alice).get(f"/play/{table.pk}/").content.decode()
    assert 'id="table-result"' in page and f"seed {table.seed}" in page
    assert f'href="/api/tables/{table.pk}/log/?format=json&amp;download=1"' in page
    document = replay_data(page)
    assert "live" not in document and document["events"] == log["events"]
    you = re.search(r'<tr data-seat="1" class="you">(.*?)</tr>', page, re.S)
    assert you is not None and "<strong>You</strong>" in you.group(1)


def test_a_running_match_page_follows_its_game_unless_its_deal_seals_it(
    alice: Any, house: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    ladder = ladder_create(slug="classic-2", name="Classic", rules="classic", seats=2)
    versions = [house_bot(house, "greedy"), house_bot(house, "random")]
    game = MatchGame.of(ladder)
    queued = match_create(ladder_id=ladder.pk, game=game, versions=versions)
    waiting = Client().get(f"/matches/{queued.pk}/").content.decode()
    assert "waits for a worker" in waiting and replay_data(waiting)["events"] == []
    match = match_start(match=queued)
    events = game_log(play(vegas_engine.describe("classic", 2), 1, [greedy_policy] * 2))["events"]
    LivePublisher(feed=match_feed(match.pk), attempt=1, interval_s=0).show(events[:20])
    page = Client().get(f"/matches/{match.pk}/").content.decode()
    assert 'id="live-badge"' in page and "<h2>Seats</h2>" in page
    document = replay_data(page)
    assert document["events"] == events[:20]
    assert document["live"] == {
        "url": f"/api/matches/{match.pk}/events/",
        "attempt": 1,
        "playing": ["queued", "running"],
        "every_ms": 1000,
    }
    assert document["options"] == {"chips": False, "neutral_dice": False}
    first, _second = match_create_deal(ladder_id=ladder.pk, game=game, versions=versions)
    first = match_start(match=first)
    sealed = Client().get(f"/matches/{first.pk}/").content.decode()
    assert "replay-data" not in sealed and "its replay is sealed" in sealed
