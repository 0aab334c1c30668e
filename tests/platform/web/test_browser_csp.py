"""The site under its strict Content-Security-Policy (arena.security) in a real Chromium:
every page loads with the header and without a single violation, and what runs scripts
still works: the replay plays, the editor (Ace) takes typing, a table shows the decision,
Swagger UI lists the API, the admin opens.

Every browser test's page fails on a violation (tests.platform.browser): this one
visits one page of each kind, and shows that a violation would be seen.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from arena.bots.models import Bot
from arena.ladders.services.editor import draft_start_from_kit
from arena.security import HEADER, POLICY
from arena.tables.models import Table
from arena.tables.services import table_ask, table_create, table_start
from tests.platform.browser import watch_csp
from tests.platform.web.test_browser import PASSWORD
from tests.platform.web.test_browser_site import site  # noqa: F401  # the fixture: one page of each kind

pytest_plugins = ("tests.platform.browser",)
pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def visit(page: Any, path: str) -> Any:
    response = page.goto(path)
    assert response is not None and response.ok, (path, response and response.status)
    assert response.headers.get(HEADER.lower()) == POLICY, path
    return response


def test_the_policy_is_strict() -> None:
    directives = dict(part.split(" ", 1) for part in POLICY.split("; "))
    assert directives["script-src"] == directives["style-src"] == "'self'"
    assert directives["object-src"] == directives["base-uri"] == "'none'"
    assert directives["frame-ancestors"] == "'none'" and directives["form-action"] == "'self'"
    assert "unsafe" not in POLICY


def test_every_page_works_under_the_policy(
    page: Any,
    log_in: Any,
    screenshot: Any,
    alice: Any,
    carol: Any,
    house: Any,
    site: dict[str, str],  # noqa: F811  # the fixture imported above
    settings: Any,
) -> None:
    # A table being played, its worker stood in for (no beat: a long lease).
    settings.ARENA_TABLE_LEASE_SECONDS = 3600
    greedy = Bot.objects.get(owner=house, name="greedy")  # the site's finished table's
    live = table_start(
        table=table_create(player=carol, rules="classic", seats=2, seat=0, opponents=[greedy])
    )
    legal = ["place 2", "place 5"]
    observation = {"decision": "place", "legal_actions": legal, "seat": 0}
    assert table_ask(table_id=live.pk, request_id=3, observation=observation, time_ms=80_000)
    draft = draft_start_from_kit(owner=alice, name="shark", lang="python")

    # Signed out: the home page, the login form.
    visit(page, "/")
    visit(page, "/login/")
    log_in("alice", PASSWORD)
    for name, path in site.items():
        visit(page, path)
        screenshot(f"csp-{name}")

    # The match's replay plays (its script draws every step).
    visit(page, site["match"])
    page.click("#replay-first")
    first = page.inner_text("#replay-position")
    page.click("#replay-play")
    expect(page.locator("#replay-position")).not_to_have_text(first, timeout=10_000)
    assert page.locator("#replay-casinos .casino").count() == 6
    screenshot("csp-match-replay-playing")

    # The editor: Ace replaces the text area and takes typing, which is saved.
    visit(page, f"/editor/{draft.pk}/")
    expect(page.locator("#code-editor.ace_editor")).to_be_visible()
    page.click("#code-editor .ace_content")
    page.keyboard.press("Control+End")
    page.keyboard.type("# typed under the CSP")
    value = page.evaluate("window.ace.edit('code-editor').getValue()")
    assert value.rstrip().endswith("# typed under the CSP")
    expect(page.locator("#save-status")).to_have_text(re.compile(r"^Saved \d"))
    # Ace's look comes from its linked stylesheet: its gutter is styled, not bare.
    assert (
        page.locator("#code-editor .ace_gutter").evaluate(
            "gutter => getComputedStyle(gutter).position"
        )
        == "absolute"
    )
    screenshot("csp-editor")

    # The docs and the API's Swagger UI.
    visit(page, "/docs/getting-started/")
    visit(page, "/api/docs/")
    page.wait_for_selector(".swagger-ui .opblock", timeout=20_000)
    assert page.locator(".swagger-ui .opblock").count() > 10
    screenshot("csp-swagger")

    # Carol's table being played: the decision's buttons, from the page's script.
    page.context.clear_cookies()
    log_in("carol", PASSWORD)
    visit(page, f"/play/{live.pk}/")
    buttons = page.locator("#decision-actions .action-button")
    expect(buttons.first).to_be_visible()
    assert buttons.all_inner_texts() == legal
    buttons.last.click()
    expect(page.locator("#decision-line")).to_contain_text("You chose “place 5”")
    assert Table.objects.get(pk=live.pk).answer == "place 5"
    screenshot("csp-table-live")
    # The admin (staff): its own scripts and styles.
    visit(page, "/admin/")
    visit(page, "/admin/tables/table/")
    visit(page, f"/admin/tables/table/{live.pk}/change/")
    screenshot("csp-admin")


def test_a_violation_is_seen(browser: Any, live_server: Any) -> None:
    """The watch of every test's page sees a style attribute a script sets, refused."""
    context = browser.new_context(base_url=live_server.url)
    try:
        tab = context.new_page()
        violations = watch_csp(tab)
        visit(tab, "/")
        assert violations == []
        with tab.expect_console_message(lambda message: "CSP violation" in message.text):
            tab.evaluate("document.body.setAttribute('style', 'background: red')")
        assert violations and "style-src-attr" in violations[-1]
        assert tab.evaluate("getComputedStyle(document.body).backgroundColor") != "rgb(255, 0, 0)"
    finally:
        context.close()
