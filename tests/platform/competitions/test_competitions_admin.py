"""Competitions in the admin: the list with its filters, a page, and the actions."""

from __future__ import annotations

import pytest
from django.test import Client

from arena.competitions.models import Competition, Phase
from arena.players.models import User
from tests.platform.competitions.test_competitions import create

pytestmark = pytest.mark.django_db


def test_the_admin_lists_renews_and_cancels(carol: User) -> None:
    competition = create(carol)
    client = Client()
    client.force_login(carol)
    listed = client.get("/admin/competitions/competition/?phase__exact=draft")
    assert listed.status_code == 200 and b"Spring cup" in listed.content
    page = client.get(f"/admin/competitions/competition/{competition.pk}/change/")
    assert page.status_code == 200 and b"Spring cup (classic)" in page.content
    token = competition.invitation_token
    for action in ("renew_invitation", "advance_now", "cancel"):
        sent = client.post(
            "/admin/competitions/competition/",
            {"action": action, "_selected_action": [competition.pk]},
        )
        assert sent.status_code == 302
    competition.refresh_from_db()
    assert competition.invitation_token != token
    # Advanced on the real clock: entry opens in 2031, so nothing was due until cancelled.
    assert competition.phase == Phase.CANCELLED
    assert competition.note == "cancelled by carol"
    assert Competition.objects.count() == 1


def test_the_admins_add_button_opens_the_creation_form(carol: User) -> None:
    client = Client()
    client.force_login(carol)
    listed = client.get("/admin/competitions/competition/").content.decode()
    assert 'href="/admin/competitions/competition/add/"' in listed
    add = client.get("/admin/competitions/competition/add/")
    assert (add.status_code, add["Location"]) == (302, "/competitions/new/")
    form = client.get("/competitions/new/")
    assert form.status_code == 200 and b"<form" in form.content
