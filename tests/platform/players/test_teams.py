"""Teams: creating one, its invitation link (joining, a regenerated or expired link
refused), leaving and handing over, over the API and the pages (docs/teams.md)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client

from arena.players.models import Team, TeamMembership, TeamRole
from tests.platform.api_support import client_for
from tests.platform.factories import UserFactory

pytestmark = pytest.mark.django_db


def members(team_id: int) -> dict[str, str]:
    rows = TeamMembership.objects.filter(team_id=team_id).values_list("user__username", "role")
    return dict(rows)


def create(user: Any, name: str = "Sharks") -> dict[str, Any]:
    response = client_for(user).post("/api/teams/", {"name": name}, format="json")
    assert response.status_code == 201, response.content
    body: dict[str, Any] = response.json()
    return body


def token_of(invite_url: str) -> str:
    return invite_url.rstrip("/").rsplit("/", 1)[1]


def test_a_team_is_created_with_its_creator_as_owner_and_names_ignore_case(alice: Any) -> None:
    team = create(alice)
    assert team["members"] == [
        {"username": "alice", "role": "owner", "joined_at": team["members"][0]["joined_at"]}
    ]
    assert team["your_role"] == "owner"
    assert team["invite_url"].startswith("http://testserver/teams/join/")
    taken = client_for(UserFactory(username="dora")).post(
        "/api/teams/", {"name": "SHARKS"}, format="json"
    )
    assert taken.status_code == 400 and taken.json()["code"] == "team_name_taken"


def test_joining_by_the_invitation_link_and_only_owners_see_it(alice: Any, bob: Any) -> None:
    team = create(alice)
    joined = client_for(bob).post(
        "/api/teams/join/", {"token": token_of(team["invite_url"])}, format="json"
    )
    assert joined.status_code == 200, joined.content
    assert joined.json()["your_role"] == "member"
    # A member does not see the link; nor does anybody else.
    assert joined.json()["invite_url"] is None
    assert client_for(None).get(f"/api/teams/{team['id']}/").json()["invite_url"] is None
    assert members(team["id"]) == {"alice": "owner", "bob": "member"}
    mine = client_for(bob).get("/api/teams/?mine=true").json()
    assert [row["name"] for row in mine["results"]] == ["Sharks"]
    # Joining again changes nothing.
    again = client_for(bob).post(
        "/api/teams/join/", {"token": token_of(team["invite_url"])}, format="json"
    )
    assert again.status_code == 200 and members(team["id"])["bob"] == "member"


def test_a_regenerated_link_refuses_the_old_one(alice: Any, bob: Any) -> None:
    team = create(alice)
    old = token_of(team["invite_url"])
    # Only an owner makes a new link.
    assert client_for(bob).post(f"/api/teams/{team['id']}/invite/").status_code == 403
    fresh = client_for(alice).post(f"/api/teams/{team['id']}/invite/")
    assert fresh.status_code == 200
    new = token_of(fresh.json()["invite_url"])
    assert new != old

    refused = client_for(bob).post("/api/teams/join/", {"token": old}, format="json")
    assert refused.status_code == 404 and refused.json()["code"] == "team_invite_invalid"
    assert "bob" not in members(team["id"])
    accepted = client_for(bob).post("/api/teams/join/", {"token": new}, format="json")
    assert accepted.status_code == 200


def test_an_expired_link_is_refused(alice: Any, bob: Any, settings: Any) -> None:
    team = create(alice)
    days = settings.ARENA_TEAM_INVITE_DAYS
    made = Team.objects.get(pk=team["id"]).invite_created_at
    Team.objects.filter(pk=team["id"]).update(invite_created_at=made - timedelta(days=days))
    refused = client_for(bob).post(
        "/api/teams/join/", {"token": token_of(team["invite_url"])}, format="json"
    )
    assert refused.status_code == 404
    assert "expired" in refused.json()["detail"]
    # The page says so too, and joins nobody.
    page = Client()
    page.force_login(bob)
    response = page.post(f"/teams/join/{token_of(team['invite_url'])}/")
    assert response.status_code == 404 and "expired" in response.content.decode()
    assert "bob" not in members(team["id"])


def test_the_last_owner_hands_over_before_leaving(alice: Any, bob: Any) -> None:
    team = create(alice)
    client_for(bob).post("/api/teams/join/", {"token": token_of(team["invite_url"])})
    alice_api = client_for(alice)
    refused = alice_api.post(f"/api/teams/{team['id']}/leave/")
    assert refused.status_code == 400 and "last owner" in refused.json()["detail"]
    # A member may not make themselves an owner.
    assert (
        client_for(bob)
        .patch(f"/api/teams/{team['id']}/members/bob/", {"role": "owner"}, format="json")
        .status_code
        == 403
    )
    handed = alice_api.patch(f"/api/teams/{team['id']}/members/bob/", {"role": "owner"})
    assert handed.status_code == 200 and handed.json()["role"] == "owner"
    assert alice_api.post(f"/api/teams/{team['id']}/leave/").status_code == 204
    assert members(team["id"]) == {"bob": TeamRole.OWNER}


def test_an_owner_removes_a_member(alice: Any, bob: Any) -> None:
    team = create(alice)
    client_for(bob).post("/api/teams/join/", {"token": token_of(team["invite_url"])})
    assert client_for(bob).delete(f"/api/teams/{team['id']}/members/alice/").status_code == 403
    assert client_for(alice).delete(f"/api/teams/{team['id']}/members/bob/").status_code == 204
    assert members(team["id"]) == {"alice": "owner"}


def test_the_pages_create_a_team_show_its_link_and_join_by_it(alice: Any, bob: Any) -> None:
    page = Client()
    page.force_login(alice)
    created = page.post("/teams/", {"name": "Sharks", "description": "Our class"})
    assert created.status_code == 302
    team = Team.objects.get(name="Sharks")
    assert created["Location"] == f"/teams/{team.pk}/"
    html = page.get(created["Location"]).content.decode()
    link = f"http://testserver/teams/join/{team.invite_token}/"
    assert f'value="{link}"' in html

    # Bob opens the link: he logs in first, then joins.
    visitor = Client()
    assert visitor.get(f"/teams/join/{team.invite_token}/")["Location"].startswith("/login/")
    visitor.force_login(bob)
    assert "Join Sharks" in visitor.get(f"/teams/join/{team.invite_token}/").content.decode()
    joined = visitor.post(f"/teams/join/{team.invite_token}/")
    assert joined.status_code == 302 and members(team.pk)["bob"] == "member"
    # A member sees the team, not its link.
    html = visitor.get(f"/teams/{team.pk}/").content.decode()
    assert 'data-member="bob"' in html and team.invite_token not in html
