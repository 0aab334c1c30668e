"""The leagues HTTP API: create and manage, entrants, fixtures, standings, the log bundle."""

from __future__ import annotations

import io
import json
import re
import zipfile
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from arena.bots.models import Bot
from arena.ladders.models import Ladder
from arena.leagues.apis import EntryOutput, FixtureOutput
from arena.leagues.models import League, LeagueFormat, LeagueStatus
from arena.leagues.selectors import league_entries, league_fixtures
from arena.leagues.services import league_advance
from arena.players.models import User
from arena.players.services import team_create
from tests.platform.api_support import drf_document
from tests.platform.factories import BotVersionFactory, LadderFactory
from tests.platform.leagues.test_leagues import play_round, queued_games

pytestmark = pytest.mark.django_db


def client_for(user: User | None = None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


@pytest.fixture
def ladder(db: None) -> Ladder:
    return LadderFactory(slug="classic-4", rules="classic", seats=4)


def bots_of(owner: User, count: int, prefix: str) -> list[Bot]:
    return [BotVersionFactory(bot__owner=owner, bot__name=f"{prefix}{i}").bot for i in range(count)]


def payload(bots: list[Bot], **fields: Any) -> dict[str, Any]:
    return {
        "name": "Winter cup",
        "slug": "winter",
        "ladder": "classic-4",
        "format": LeagueFormat.ROUND_ROBIN,
        "visibility": "public",
        "start_at": (timezone.now() + timedelta(days=1)).isoformat(),
        "round_interval": "1 00:00:00",
        "bots": [b.pk for b in bots],
        **fields,
    }


def test_create_list_and_read_a_league(ladder: Ladder, carol: User, alice: User) -> None:
    bots = bots_of(alice, 5, "a")
    response = client_for(carol).post("/api/leagues/", payload(bots), format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["slug"], body["status"], body["seats"], body["organiser"]) == (
        "winter",
        "scheduled",
        4,
        "carol",
    )
    assert body["points_per_rank"] == [3, 2, 1, 0]
    # League games count on the ladder's Elo unless the organiser says otherwise.
    assert body["rated"] is True
    unrated = client_for(carol).post(
        "/api/leagues/", payload(bots, slug="friendly", rated=False), format="json"
    )
    assert unrated.status_code == 201, unrated.content
    assert unrated.json()["rated"] is False
    assert League.objects.get(slug="friendly").rated is False
    anonymous = client_for()
    listed = anonymous.get("/api/leagues/").json()["results"]
    assert sorted((x["slug"], x["rated"]) for x in listed) == [
        ("friendly", False),
        ("winter", True),
    ]
    entries = anonymous.get("/api/leagues/winter/entries/").json()
    assert [(e["seed"], e["bot"], e["status"]) for e in entries][:2] == [
        (1, "a0", "accepted"),
        (2, "a1", "accepted"),
    ]


def test_bad_input_answers_400_with_the_reason(ladder: Ladder, carol: User) -> None:
    bots = bots_of(carol, 3, "c")
    client = client_for(carol)
    response = client.post("/api/leagues/", payload(bots), format="json")
    assert response.status_code == 400
    assert response.json() == {
        "code": "league_config",
        "detail": "3 entrants cannot fill a table of 4 seats: add at least 1 more.",
    }
    past = (timezone.now() - timedelta(hours=1)).isoformat()
    response = client.post(
        "/api/leagues/", payload([*bots, *bots_of(carol, 1, "d")], start_at=past), format="json"
    )
    assert response.status_code == 400
    assert "is in the past" in response.json()["detail"]
    assert client_for().post("/api/leagues/", payload(bots), format="json").status_code in (
        401,
        403,
    )
    assert not League.objects.exists()


def test_only_the_organiser_manages_a_league(
    ladder: Ladder, carol: User, alice: User, bob: User
) -> None:
    bots = bots_of(alice, 4, "a")
    response = client_for(alice).post(
        "/api/leagues/", payload(bots, visibility="private"), format="json"
    )
    assert response.status_code == 201, response.content
    # Private: hidden from bob (404), shown to its organiser.
    assert client_for(bob).get("/api/leagues/winter/").status_code == 404
    assert client_for().get("/api/leagues/").json()["results"] == []
    carol_client = client_for(carol)
    assert carol_client.get("/api/leagues/winter/").status_code == 200

    # Bob's public bot is invited; bob sees the league and answers.
    bobs = bots_of(bob, 1, "b")[0]
    added = client_for(alice).post("/api/leagues/winter/entries/", {"bot": bobs.pk}, format="json")
    assert added.status_code == 201
    assert added.json()["status"] == "invited"
    bob_client = client_for(bob)
    assert bob_client.post("/api/leagues/winter/pause/").status_code == 403
    answered = bob_client.post(
        f"/api/leagues/winter/entries/{bobs.pk}/respond/", {"accept": True}, format="json"
    )
    assert answered.status_code == 200
    assert answered.json()["status"] == "accepted"
    assert (
        client_for(alice)
        .post(f"/api/leagues/winter/entries/{bobs.pk}/respond/", {"accept": False}, format="json")
        .status_code
        == 403
    )

    alice_client = client_for(alice)
    assert alice_client.post("/api/leagues/winter/pause/").json()["status"] == "paused"
    again = alice_client.post("/api/leagues/winter/pause/")
    assert again.status_code == 400
    assert again.json()["code"] == "league_transition"
    assert alice_client.post("/api/leagues/winter/resume/").json()["status"] == "scheduled"
    removed = alice_client.delete(f"/api/leagues/winter/entries/{bots[0].pk}/")
    assert removed.status_code == 204
    refused = alice_client.delete(f"/api/leagues/winter/entries/{bots[1].pk}/")
    assert refused.status_code == 400
    assert "cannot fill a table of 4 seats" in refused.json()["detail"]
    cancelled = alice_client.post("/api/leagues/winter/cancel/", {"reason": "rain"}, format="json")
    assert (cancelled.json()["status"], cancelled.json()["note"]) == ("cancelled", "rain")


def test_fixtures_standings_and_the_bundle(ladder: Ladder, carol: User, alice: User) -> None:
    bots = bots_of(alice, 5, "a")
    # a0 is her team's: named with it beside its owner everywhere the league names it.
    sharks = team_create(user=alice, name="Sharks")
    Bot.objects.filter(pk=bots[0].pk).update(team=sharks)

    def teams(rows: list[dict[str, Any]]) -> set[tuple[str, str, str | None]]:
        return {(row["bot"], row["owner"], row["team"]) for row in rows}

    named = {("a0", "alice", "Sharks"), *((f"a{i}", "alice", None) for i in range(1, 5))}
    client = client_for(carol)
    assert client.post("/api/leagues/", payload(bots), format="json").status_code == 201
    league = League.objects.get(slug="winter")
    league_advance(league=league, now=league.start_at)
    league.refresh_from_db()
    assert league.status == LeagueStatus.RUNNING

    anonymous = client_for()
    rounds = anonymous.get("/api/leagues/winter/rounds/").json()
    assert [r["status"] for r in rounds] == ["running"] + ["scheduled"] * 4
    fixtures = anonymous.get("/api/leagues/winter/fixtures/").json()
    assert fixtures["count"] == 5
    first = fixtures["results"][0]
    assert (first["round"], first["table"]) == (1, 1)
    (game,) = first["games"]
    assert (game["status"], game["match_status"]) == ("queued", "queued")
    assert [s["seat"] for s in game["seats"]] == [0, 1, 2, 3]
    assert all(s["rank"] is None for s in game["seats"])
    assert "seed" not in game

    play_round(league, 1)
    (played,) = queued_games(league, 1)
    league_advance(league=league, now=league.start_at + timedelta(days=1))
    only_round_one = anonymous.get("/api/leagues/winter/fixtures/?round=1").json()["results"]
    seats = only_round_one[0]["games"][0]["seats"]
    assert all(s["rank"] is not None for s in seats)
    standings = anonymous.get("/api/leagues/winter/standings/").json()["results"]
    assert [s["position"] for s in standings] == [1, 2, 3, 4, 5]
    assert sum(s["points"] for s in standings) == 6
    assert {s["version"] for s in standings} == {1}
    assert teams(standings) == named
    assert teams(anonymous.get("/api/leagues/winter/entries/").json()) == named
    tables = anonymous.get("/api/leagues/winter/fixtures/").json()["results"]
    assert teams([s for t in tables for g in t["games"] for s in g["seats"]]) == named
    assert anonymous.get("/api/leagues/winter/").json()["winner_team"] is None  # none yet

    response = anonymous.get("/api/leagues/winter/bundle/")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    assert 'filename="league-winter.zip"' in response["Content-Disposition"]
    data = b"".join(response.streaming_content)  # type: ignore[attr-defined]
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        names = archive.namelist()
        assert names[:2] == ["league.json", "fixtures.json"]
        logs = [n for n in names if n.startswith("logs/")]
        assert logs == [f"logs/round-001/table-0001/game-00-match-{played.match_id}.json"]
        summary = json.loads(archive.read("league.json"))
        assert (summary["league"]["format"], summary["league"]["rated"]) == ("round_robin", True)
        assert [e["version"] for e in summary["entries"]] == [1] * 5
        assert len(summary["standings"]) == 5
        assert teams(summary["entries"]) == teams(summary["standings"]) == named
        log = json.loads(archive.read(logs[0]))
        assert log["events"][-1]["type"] == "game_end"
        games = json.loads(archive.read("fixtures.json"))
        assert games[0]["games"][0]["seed"] == played.seed
        assert games[1]["games"][0]["seed"] is None
        assert teams([s for t in games for g in t["games"] for s in g["seats"]]) == named


def test_entries_and_fixtures_write_what_drf_fields_would(
    ladder: Ladder, carol: User, alice: User, bob: User
) -> None:
    """Entrants and fixtures write their JSON directly for speed: the same documents as
    DRF's field by field serialisation, before the start, while queued, with results."""
    bots = [*bots_of(alice, 4, "a"), *bots_of(bob, 1, "b")]
    Bot.objects.filter(pk=bots[0].pk).update(team=team_create(user=alice, name="Sharks"))
    client = client_for(carol)
    assert client.post("/api/leagues/", payload(bots), format="json").status_code == 201
    league = League.objects.get(slug="winter")

    def check() -> None:
        entries = list(league_entries(league=league))
        assert [EntryOutput(e).data for e in entries] == [
            drf_document(EntryOutput(), e) for e in entries
        ]
        for fixture in league_fixtures(league=league):
            assert json.dumps(FixtureOutput(fixture).data) == json.dumps(
                drf_document(FixtureOutput(), fixture)
            )

    check()  # before the start: no version frozen
    league_advance(league=league, now=league.start_at)
    check()  # queued games, no result
    play_round(league, 1)
    league_advance(league=league, now=league.start_at + timedelta(days=1))
    check()  # results


def test_a_bots_owner_withdraws_it_from_a_running_league(
    ladder: Ladder, carol: User, alice: User, bob: User
) -> None:
    # Carol (staff) enters Alice's and Bob's public bots in a public league.
    mine, theirs = bots_of(alice, 4, "a"), bots_of(bob, 1, "b")[0]
    client = client_for(carol)
    assert client.post("/api/leagues/", payload([*mine, theirs]), format="json").status_code == 201
    league = League.objects.get(slug="winter")
    league_advance(league=league, now=league.start_at)
    url = f"/api/leagues/winter/entries/{theirs.pk}/"

    # Neither another player nor a visitor withdraws Bob's bot.
    assert client_for(alice).delete(url).status_code == 403
    assert client_for().delete(url).status_code in (401, 403)
    assert client_for(alice).delete("/api/leagues/winter/entries/999999/").status_code == 403

    withdrawn = client_for(bob).delete(url)
    assert withdrawn.status_code == 204, withdrawn.content
    entries = {e["bot"]: e for e in client_for().get("/api/leagues/winter/entries/").json()}
    assert entries["b0"]["status"] == "forfeited"
    assert re.fullmatch(
        r"withdrawn by its owner on \d{4}-\d\d-\d\d \d\d:\d\d UTC, so its remaining games "
        r"are lost by forfeit",
        entries["b0"]["reason"],
    )
    assert {e["status"] for b, e in entries.items() if b != "b0"} == {"playing"}
    # Still in the table, with its status.
    standings = client_for().get("/api/leagues/winter/standings/").json()["results"]
    assert {s["bot"]: s["status"] for s in standings}["b0"] == "forfeited"

    again = client_for(bob).delete(url)
    assert again.status_code == 400
    assert again.json()["code"] == "league_entry"
    assert "b0 has already forfeited Winter cup" in again.json()["detail"]
    unknown = client.delete("/api/leagues/winter/entries/999999/")
    assert unknown.status_code == 400
    assert "no bot with id 999999 is entered in Winter cup" in unknown.json()["detail"]

    # The organiser withdraws any entrant too; nobody withdraws from a cancelled league.
    assert client.delete(f"/api/leagues/winter/entries/{mine[0].pk}/").status_code == 204
    assert client.post("/api/leagues/winter/cancel/", format="json").status_code == 200
    refused = client_for(alice).delete(f"/api/leagues/winter/entries/{mine[1].pk}/")
    assert refused.status_code == 400
    assert refused.json()["detail"] == (
        "Winter cup is cancelled: its entrants and results are final, there is nothing left "
        "to withdraw from."
    )
