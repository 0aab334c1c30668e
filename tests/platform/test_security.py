"""The Content-Security-Policy header (arena.security) on every kind of response; that the
pages obey it is test_browser_csp's part."""

from __future__ import annotations

import pytest
from django.test import Client

from arena.security import HEADER, POLICY

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "path", ["/", "/docs/protocol/", "/login/", "/api/", "/api/docs/", "/no/such/page/"]
)
def test_every_response_carries_the_policy(path: str) -> None:
    response = Client().get(path)
    assert response.status_code in (200, 404)
    assert response[HEADER] == POLICY


def test_the_pages_have_no_inline_script_or_style() -> None:
    for path in ("/", "/docs/rules/", "/login/", "/signup/", "/api/docs/"):
        html = Client().get(path).content.decode()
        assert "<style" not in html and " style=" not in html, path
        # Data blocks (json_script) are not run; any other script has a src.
        for tag in html.split("<script")[1:]:
            opening = tag.split(">", 1)[0]
            assert "src=" in opening or 'type="application/json"' in opening, (path, opening)
