"""Playwright fixtures: the site in a real, headless Chromium against pytest-django's live server.

The browser is Debian's ``chromium`` package (``/usr/bin/chromium``, or
``ARENA_CHROMIUM``); the Playwright driver ships inside the ``playwright``
wheel. Never run ``playwright install``: it downloads browsers. Without the
package or the browser the tests fail, saying which is missing.

Test modules load these with ``pytest_plugins = ("tests.platform.browser",)``.
Every page asserts at teardown that it raised no JavaScript error, asked
nothing from another origin (every asset is served by the platform: no CDN)
and broke nothing of the site's Content-Security-Policy (arena.security).
Screenshots go to ``ARENA_SCREENSHOTS`` (default /tmp/arena-screenshots).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path(os.environ.get("ARENA_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--no-sandbox",  # we run as root in CI containers
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SCREENSHOTS = Path(os.environ.get("ARENA_SCREENSHOTS", "/tmp/arena-screenshots"))
TIMEOUT_MS = 20_000


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    # A missing browser fails rather than skips: a skipped browser test proves nothing.
    try:
        from playwright import sync_api
    except ImportError:
        pytest.fail("pip install playwright (never `playwright install`: it downloads a browser)")
    if not CHROMIUM.exists():
        pytest.fail(f"no Chromium at {CHROMIUM}: apt-get install chromium")
    # Playwright's sync API keeps an asyncio loop in this thread, and Django refuses
    # ORM calls from such a thread; the loop only drives the browser, so it is safe.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_api.sync_playwright() as playwright:
            launched = playwright.chromium.launch(
                executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
            )
            yield launched
            launched.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


PHONE = {"width": 390, "height": 844}

#: Run in every page: a CSP violation becomes a console line (Chromium logs its own
#: "Refused to ... Content Security Policy" line too).
REPORT_CSP_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (event) => {
  console.error("CSP violation: " + event.violatedDirective + " blocked " + event.blockedURI
    + " at " + event.sourceFile + ":" + event.lineNumber);
});
"""


def watch_csp(tab: Any) -> list[str]:
    """The CSP violations of ``tab``'s pages from now on, as they are told in its console."""
    seen: list[str] = []
    tab.add_init_script(REPORT_CSP_VIOLATIONS)
    tab.on(
        "console",
        lambda message: (
            seen.append(f"{tab.url}: {message.text}")
            if "Content Security Policy" in message.text or "CSP violation" in message.text
            else None
        ),
    )
    return seen


@pytest.fixture
def viewport() -> dict[str, int] | None:
    """The tab's size: None is a desktop's; a test parametrizes it with PHONE for a phone's."""
    return None


@pytest.fixture
def page(browser: Any, live_server: Any, viewport: dict[str, int] | None) -> Iterator[Any]:
    """A fresh browser tab (own cookies) on the live server, at a desktop size, or a phone's
    (390 x 844) under ``@pytest.mark.parametrize("viewport", [PHONE])``."""
    context = browser.new_context(
        base_url=live_server.url, viewport=viewport or {"width": 1280, "height": 900}
    )
    context.set_default_timeout(TIMEOUT_MS)
    tab = context.new_page()
    errors: list[str] = []
    foreign: list[str] = []
    violations = watch_csp(tab)
    tab.on("pageerror", lambda error: errors.append(str(error)))
    tab.on(
        "request",
        lambda request: (
            None
            if request.url.startswith((live_server.url, "data:", "about:"))
            else foreign.append(request.url)
        ),
    )
    yield tab
    context.close()
    assert not errors, f"JavaScript errors: {errors}"
    assert not foreign, f"requests to other origins: {foreign}"
    assert not violations, f"Content-Security-Policy violations: {violations}"


def overflows_horizontally(page: Any) -> bool:
    """Does the page itself scroll sideways (a table cut off on a phone)? Boxes that
    scroll their own content (.table-wrap) do not count."""
    return bool(page.evaluate("document.documentElement.scrollWidth > window.innerWidth + 1"))


def take_screenshot(page: Any, name: str) -> Path:
    """The whole page as <ARENA_SCREENSHOTS>/<name>.png, for a human to look at."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


@pytest.fixture
def screenshot(page: Any) -> Callable[[str], Path]:
    return lambda name: take_screenshot(page, name)


@pytest.fixture
def log_in(page: Any) -> Callable[[str, str], None]:
    """Log in through the login form, as a person would."""

    def log_in_as(username: str, password: str) -> None:
        page.goto("/login/")
        page.fill("#id_username", username)
        page.fill("#id_password", password)
        page.click("#login-form button[type=submit]")
        page.wait_for_url("**/")

    return log_in_as
