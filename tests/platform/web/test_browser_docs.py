"""The documentation, the API's pages and the error pages in a real Chromium, on a desktop
and on a phone (390 px wide)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.platform.browser import PHONE, SCREENSHOTS, overflows_horizontally

pytest_plugins = ("tests.platform.browser",)

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_a_newcomer_finds_getting_started_then_the_rules(page: Any, screenshot: Any) -> None:
    page.goto("/")
    page.click(".site-nav >> text=Docs")
    page.wait_for_url("**/docs/")
    assert page.is_visible("text=Getting started")
    screenshot("docs-index")
    page.click(".doc-list >> text=Getting started")
    page.wait_for_url("**/docs/getting-started/")
    assert page.inner_text("#doc h1").startswith("Getting started")
    assert page.is_visible("#doc pre")  # the SDK commands, as code
    screenshot("docs-getting-started")
    # Links inside the rendered Markdown lead to other pages of the site.
    page.click("#doc >> text=The rules")
    page.wait_for_url("**/docs/rules/")
    assert page.is_visible("#doc h2#royale")
    screenshot("docs-rules")
    page.click("#doc a[href='/docs/observation/']")
    page.wait_for_url("**/docs/observation/")
    assert page.locator("#doc table").count() > 3
    screenshot("docs-observation")


def test_the_footer_api_link_opens_swagger_served_locally(page: Any, screenshot: Any) -> None:
    page.goto("/")
    page.click(".site-footer >> text=API")
    page.wait_for_url("**/api/docs/")
    page.wait_for_selector(".swagger-ui .opblock", timeout=20_000)
    assert page.locator(".swagger-ui .opblock").count() > 10
    screenshot("api-swagger")
    page.goto("/api/")
    assert '"schema"' in page.inner_text("body")


def test_the_404_page_is_the_sites(page: Any, screenshot: Any) -> None:
    response = page.goto("/bots/999999/")
    assert response.status == 404
    assert page.inner_text("h1") == "Nothing here"
    assert page.is_visible(".site-header")
    screenshot("404")


@pytest.mark.parametrize("viewport", [PHONE])
@pytest.mark.parametrize("path", ["/docs/", "/docs/protocol/", "/docs/observation/", "/no/page/"])
def test_docs_and_404_fit_a_phone(page: Any, screenshot: Any, path: str) -> None:
    page.goto(path)
    assert not overflows_horizontally(page)
    name = path.strip("/").replace("/", "-") or "home"
    screenshot(f"phone-{name}")
    if page.locator("#doc table").count():  # a long page: the screen at its first table
        page.locator("#doc table").first.scroll_into_view_if_needed()
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"phone-{name}-table.png"))
