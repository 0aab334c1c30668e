"""A team in a real Chromium: Alice creates it, Bob opens her invitation link, logs in and
joins, and the team's bot's page names the team."""

from __future__ import annotations

from typing import Any

import pytest

from arena.players.models import Team, TeamMembership
from tests.platform.browser import overflows_horizontally, take_screenshot
from tests.platform.factories import BotFactory

pytestmark = pytest.mark.slow

pytest_plugins = ("tests.platform.browser",)

PASSWORD = "correct horse battery staple"


def test_a_team_is_created_joined_by_its_link_and_named_on_its_bot(
    page: Any, browser: Any, live_server: Any, log_in: Any, alice: Any, bob: Any
) -> None:
    log_in("alice", PASSWORD)
    page.goto("/teams/")
    page.fill("#id_name", "Sharks")
    page.fill("#id_description", "Our class's bots")
    page.click("#team-form button[type=submit]")
    page.wait_for_selector("#invite-url")
    link = page.input_value("#invite-url")
    team = Team.objects.get(name="Sharks")
    assert link == f"{live_server.url}/teams/join/{team.invite_token}/"
    take_screenshot(page, "teams-owner-page")

    # Bob, in a browser of his own, opens the link: a login first, then the join page.
    context = browser.new_context(base_url=live_server.url)
    other = context.new_page()
    try:
        other.goto(link)
        other.wait_for_selector("#id_username")
        other.fill("#id_username", "bob")
        other.fill("#id_password", PASSWORD)
        other.click("#login-form button[type=submit]")
        other.wait_for_selector("#team-join")
        take_screenshot(other, "teams-join-page")
        other.click("#team-join")
        other.wait_for_selector('tr[data-member="bob"]')
        assert TeamMembership.objects.filter(team=team, user=bob, role="member").exists()
        # A member sees the team, not its link.
        assert other.locator("#invite-url").count() == 0
    finally:
        context.close()

    bot = BotFactory(owner=alice, team=team, name="hammer")
    page.goto(f"/bots/{bot.pk}/")
    assert page.inner_text("#bot-owner") == "Sharks"
    assert page.locator("#bot-team option:checked").inner_text() == "Sharks"
    assert not overflows_horizontally(page)
    take_screenshot(page, "teams-bot-page")
