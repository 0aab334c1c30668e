"""A team's bots: its members upload, read internals and move bots; others are refused;
quotas count per team (docs/teams.md)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from arena.bots.models import Bot, BotVersion, VersionStatus, Visibility
from arena.bots.selectors import bot_owner_label, may_manage_bot
from arena.players.models import Team
from arena.players.services import team_create, team_join
from tests.platform.api_support import GOOD, client_for
from tests.platform.factories import BotFactory, BotVersionFactory, LadderFactory, UserFactory

pytestmark = pytest.mark.django_db


def code(n: int) -> bytes:
    """GOOD, changed a little each time: an identical upload is refused."""
    return GOOD + f"# version {n}\n".encode()


@pytest.fixture
def team(alice: Any, bob: Any) -> Team:
    """Alice's team, which Bob joined by its link."""
    team = team_create(user=alice, name="Sharks")
    team_join(user=bob, token=team.invite_token)
    return team


def new_version(api: Any, bot_id: int, n: int) -> Any:
    return api.post(
        f"/api/bots/{bot_id}/versions/",
        {"file": SimpleUploadedFile("main.py", code(n))},
        format="multipart",
    )


def test_a_team_of_two_uploads_alternately_to_one_bot(
    alice: Any, bob: Any, team: Team, settings: Any
) -> None:
    settings.ARENA_BUILDS_IN_FLIGHT_MAX = 10  # none is built here: they all stay pending
    alice_api, bob_api = client_for(alice), client_for(bob)
    first = alice_api.post(
        "/api/bots/",
        {"name": "hammer", "team": team.pk, "file": SimpleUploadedFile("main.py", code(1))},
        format="multipart",
    )
    assert first.status_code == 201, first.content
    bot_id = first.json()["bot_id"]
    # Bob names the team's bot as Alice did: the same bot, its next version.
    second = bob_api.post(
        "/api/bots/",
        {"name": "Hammer", "team": team.pk, "file": SimpleUploadedFile("main.py", code(2))},
        format="multipart",
    )
    assert second.status_code == 201, second.content
    assert second.json()["bot_id"] == bot_id
    numbers = [first.json()["number"], second.json()["number"]]
    for n, api in enumerate([alice_api, bob_api, alice_api, bob_api], start=3):
        response = new_version(api, bot_id, n)
        assert response.status_code == 201, response.content
        numbers.append(response.json()["number"])

    assert numbers == [1, 2, 3, 4, 5, 6]
    bot = Bot.objects.get(pk=bot_id)
    assert (bot.owner, bot.team) == (alice, team)
    assert list(bot.versions.order_by("number").values_list("parent__number", flat=True)) == [
        None,
        1,
        2,
        3,
        4,
        5,
    ]
    detail = bob_api.get(f"/api/bots/{bot_id}/").json()
    assert detail["team"] == {"id": team.pk, "name": "Sharks"}
    assert detail["owner"] == "alice"


def test_a_non_member_is_refused_as_for_any_other_bot(alice: Any, bob: Any, team: Team) -> None:
    dora = UserFactory(username="dora")
    public = BotFactory(owner=alice, team=team, name="public")
    private = BotFactory(owner=bob, team=team, name="hidden", visibility=Visibility.PRIVATE)
    api = client_for(dora)

    refused = new_version(api, public.pk, 1)
    assert refused.status_code == 403
    assert new_version(api, private.pk, 1).status_code == 404
    assert api.get(f"/api/bots/{private.pk}/").status_code == 404
    # Naming a team she is not in is refused too, and makes no bot.
    named = api.post(
        "/api/bots/",
        {"name": "public", "team": team.pk, "file": SimpleUploadedFile("main.py", GOOD)},
        format="multipart",
    )
    assert named.status_code == 400 and "team" in named.json()
    assert not BotVersion.objects.exists()
    assert not Bot.objects.filter(owner=dora).exists()
    # A member sees the team's private bot, listed as the team's.
    listed = client_for(alice).get(f"/api/bots/?team={team.pk}").json()["results"]
    assert {row["name"] for row in listed} == {"public", "hidden"}
    assert {row["name"] for row in api.get(f"/api/bots/?team={team.pk}").json()["results"]} == {
        "public"
    }


def test_a_member_reads_the_internals_of_a_teammate_s_bot(
    alice: Any, bob: Any, carol: Any, team: Team
) -> None:
    bot = BotFactory(owner=alice, team=team, name="hammer")
    report = {"passed": False, "errors": ["main.py, line 1: SyntaxError"]}
    BotVersionFactory(bot=bot, status=VersionStatus.FAILED, validation_report=report)
    url = f"/api/bots/{bot.pk}/versions/1/"

    assert client_for(bob).get(url).json()["validation_report"] == report
    assert client_for(UserFactory(username="dora")).get(url).json()["validation_report"] is None
    assert may_manage_bot(bob, bot) and may_manage_bot(carol, bot)
    assert not may_manage_bot(carol, bot, staff=False)
    # Once Bob leaves, the bot is no longer his to read.
    assert client_for(bob).post(f"/api/teams/{team.pk}/leave/").status_code == 204
    assert client_for(bob).get(url).json()["validation_report"] is None


def test_builds_in_flight_count_per_team(alice: Any, bob: Any, team: Team, settings: Any) -> None:
    settings.ARENA_BUILDS_IN_FLIGHT_MAX = 2
    bot = BotFactory(owner=alice, team=team, name="hammer")
    assert new_version(client_for(alice), bot.pk, 1).status_code == 201
    assert new_version(client_for(bob), bot.pk, 2).status_code == 201

    # The team's two are pending: a third by either member waits for one to finish.
    refused = new_version(client_for(bob), bot.pk, 3)
    assert refused.status_code == 429, refused.content
    assert refused.json()["code"] == "builds_in_flight"
    assert "Sharks has 2 uploads in flight" in refused.json()["detail"]
    # Bob's own bots have their own quota, untouched by the team's.
    own = client_for(bob).post(
        "/api/bots/",
        {"name": "solo", "file": SimpleUploadedFile("main.py", code(4))},
        format="multipart",
    )
    assert own.status_code == 201, own.content
    # One of the team's built: the team uploads again.
    BotVersion.objects.filter(bot=bot, number=1).update(status=VersionStatus.FAILED)
    assert new_version(client_for(bob), bot.pk, 5).status_code == 201


def test_uploads_to_a_team_s_bots_are_rate_limited_per_team(
    alice: Any, bob: Any, team: Team, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rest_framework.throttling import SimpleRateThrottle

    settings.ARENA_BUILDS_IN_FLIGHT_MAX = 10
    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "upload_team", "2/hour")
    bot = BotFactory(owner=alice, team=team, name="hammer")
    assert new_version(client_for(alice), bot.pk, 1).status_code == 201
    assert new_version(client_for(bob), bot.pk, 2).status_code == 201
    refused = new_version(client_for(alice), bot.pk, 3)
    assert refused.status_code == 429
    # Alice's own bot is limited by her own rate only.
    mine = BotFactory(owner=alice, name="solo")
    assert new_version(client_for(alice), mine.pk, 4).status_code == 201


def test_moving_a_bot_into_the_team_and_out(alice: Any, bob: Any, team: Team) -> None:
    bots = BotFactory(owner=bob, name="hammer"), BotFactory(owner=alice, name="Hammer")
    theirs, mine = bots
    # Alice's bot is hers to move; Bob may not move it.
    assert client_for(bob).patch(f"/api/bots/{mine.pk}/", {"team": team.pk}).status_code == 403
    moved = client_for(alice).patch(f"/api/bots/{mine.pk}/", {"team": team.pk}, format="json")
    assert moved.status_code == 200, moved.content
    assert moved.json()["team"]["name"] == "Sharks"
    # A team's bots are told apart by name: Bob's "hammer" cannot join.
    clash = client_for(bob).patch(f"/api/bots/{theirs.pk}/", {"team": team.pk}, format="json")
    assert clash.status_code == 400 and clash.json()["code"] == "bot_name_taken"
    # Only a team owner takes a bot out; it is its creator's alone again.
    out = client_for(bob).patch(f"/api/bots/{mine.pk}/", {"team": None}, format="json")
    assert out.status_code == 403 and out.json()["code"] == "bot_team_forbidden"
    out = client_for(alice).patch(f"/api/bots/{mine.pk}/", {"team": None}, format="json")
    assert out.status_code == 200 and out.json()["team"] is None
    mine.refresh_from_db()
    assert mine.team is None and mine.owner == alice


def test_a_team_s_bot_shows_the_team_on_its_page(alice: Any, bob: Any, team: Team) -> None:
    LadderFactory()
    bot = BotFactory(owner=alice, team=team, name="hammer")
    assert bot_owner_label(bot) == ("Sharks", f"/teams/{team.pk}/")
    assert bot_owner_label(BotFactory(owner=alice, name="solo")) == ("alice", "/players/alice/")

    page = Client()
    page.force_login(bob)
    html = page.get(f"/bots/{bot.pk}/").content.decode()
    assert f'<a href="/teams/{team.pk}/" id="bot-owner">Sharks</a>' in html
    # Bob works on it as its owner would: the upload link names the team.
    assert f"?bot=hammer&amp;team={team.pk}" in html
    assert 'id="entries-form"' in html and 'id="bot-team-form"' in html
    # The editor's drafts are each author's own: its creator edits it there, not Bob.
    assert 'id="edit-in-browser"' not in html
    # Another player sees whose it is, and no form.
    other = Client()
    other.force_login(UserFactory(username="dora"))
    html = other.get(f"/bots/{bot.pk}/").content.decode()
    assert 'id="bot-owner">Sharks</a>' in html
    assert 'id="entries-form"' not in html and 'id="bot-team-form"' not in html


def test_the_upload_page_uploads_to_the_team_chosen(alice: Any, bob: Any, team: Team) -> None:
    bot = BotFactory(owner=alice, team=team, name="hammer")
    page = Client()
    page.force_login(bob)
    form = page.get(f"/upload/?bot=hammer&team={team.pk}").content.decode()
    assert f'<option value="{team.pk}" selected>Sharks</option>' in form
    response = page.post(
        "/upload/",
        {"name": "hammer", "team": team.pk, "file": SimpleUploadedFile("main.py", GOOD)},
    )
    assert response.status_code == 302, response.content.decode()[-2000:]
    assert response["Location"] == f"/bots/{bot.pk}/"
    assert bot.versions.get().number == 1
    assert not Bot.objects.filter(owner=bob).exists()


def test_results_show_the_team_instead_of_the_member(alice: Any, bob: Any, team: Team) -> None:
    from arena.ladders.flows import ladder_create
    from tests.platform.scenes import play_match

    ladder = ladder_create(slug="classic-2", name="Classic, 2 seats", rules="classic", seats=2)
    versions = [
        BotVersionFactory(bot=BotFactory(owner=alice, team=team, name="hammer")),
        BotVersionFactory(bot=BotFactory(owner=bob, name="solo")),
    ]
    match, _ = play_match(ladder, versions, 2)
    for url in (f"/ladders/{ladder.slug}/", f"/matches/{match.pk}/"):
        html = Client().get(url).content.decode()
        assert f'class="owner team" href="/teams/{team.pk}/">Sharks</a>' in html, url
        assert 'class="owner" href="/players/bob/">bob</a>' in html, url
        assert 'href="/players/alice/"' not in html, url


def test_the_api_s_results_name_the_team(alice: Any, bob: Any, team: Team) -> None:
    from arena.ladders.flows import ladder_create
    from tests.platform.scenes import play_match

    ladder = ladder_create(slug="classic-2", name="Classic, 2 seats", rules="classic", seats=2)
    versions = [
        BotVersionFactory(bot=BotFactory(owner=alice, team=team, name="hammer")),
        BotVersionFactory(bot=BotFactory(owner=bob, name="solo")),
    ]
    match, _ = play_match(ladder, versions, 2)
    api = client_for(None)
    seats = api.get(f"/api/matches/{match.pk}/").json()["participants"]
    assert [(s["bot"], s["owner"], s["team"]) for s in seats] == [
        ("hammer", "alice", "Sharks"),
        ("solo", "bob", None),
    ]
    board = api.get(f"/api/ladders/{ladder.slug}/leaderboard/").json()["results"]
    assert sorted((r["bot"], r["team"]) for r in board) == [("hammer", "Sharks"), ("solo", None)]
    # The ladder's export (JSON Lines): each match's seats (its log's seats:
    # tests/platform/matches/test_log_privacy.py).
    export = api.get(f"/api/ladders/{ladder.slug}/logs/")
    (record,) = [json.loads(line) for line in b"".join(export.streaming_content).splitlines()]
    assert [s["team"] for s in record["match"]["participants"]] == ["Sharks", None]


def test_a_member_who_left_no_longer_uploads_the_bot_they_created(
    alice: Any, bob: Any, team: Team
) -> None:
    upload = {"name": "drill", "team": team.pk, "file": SimpleUploadedFile("main.py", code(1))}
    created = client_for(bob).post("/api/bots/", upload, format="multipart")
    assert created.status_code == 201, created.content
    assert client_for(bob).post(f"/api/teams/{team.pk}/leave/").status_code == 204

    # By its name, as his own bot: it is the team's, and he is no longer in it.
    again = client_for(bob).post(
        "/api/bots/",
        {"name": "drill", "file": SimpleUploadedFile("main.py", code(2))},
        format="multipart",
    )
    assert again.status_code == 403 and again.json()["code"] == "bot_team_forbidden"
    by_id = new_version(client_for(bob), created.json()["bot_id"], 3)
    assert by_id.status_code == 403
    assert new_version(client_for(alice), created.json()["bot_id"], 4).status_code == 201
