"""The documentation pages (docs/*.md on the site), /api/, and the 404 and 500 pages."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.test import Client
from django.urls import reverse

from arena.web import docs
from tests.platform.web.test_web import text_of

pytestmark = pytest.mark.django_db

DOCS = Path(django_settings.DOCS_DIR)


def test_every_listed_page_is_a_file_of_docs() -> None:
    for page in docs.PAGES:
        assert (DOCS / page.file).is_file(), page.file


def test_every_page_of_docs_is_listed_on_the_site() -> None:
    pages = {path.name for path in DOCS.glob("*.md")} - {"README.md"}
    assert pages - {page.file for page in docs.PAGES} == set(), "add them to docs.PAGES"


def test_the_docs_index_lists_the_guides_kits_and_the_api() -> None:
    response = Client().get(reverse("web:docs"))
    assert response.status_code == 200
    html = response.content.decode()
    for page in docs.PAGES:
        assert f'href="/docs/{page.slug}/"' in html
    assert 'href="/kits/"' in html
    assert 'href="/api/docs/"' in html


@pytest.mark.parametrize("slug", [page.slug for page in docs.PAGES])
def test_each_page_renders_its_markdown(slug: str) -> None:
    response = Client().get(reverse("web:doc", args=[slug]))
    assert response.status_code == 200
    html = response.content.decode()
    first_heading = next(
        line
        for line in (DOCS / docs.BY_SLUG[slug].file).read_text().splitlines()
        if line[:2] == "# "
    )
    assert f">{first_heading[2:].split('`')[0]}" in html
    assert "<h2" in html  # rendered, not raw Markdown
    assert "\n## " not in text_of(response)


def test_getting_started_walks_from_signup_to_an_uploaded_kit_bot() -> None:
    text = text_of(Client().get("/docs/getting-started/"))
    for step in ("Sign up", "starter kit", "Upload", "pre-flight", "active"):
        assert step.lower() in text.lower(), step
    html = Client().get("/docs/getting-started/").content.decode()
    assert 'href="/kits/"' in html and 'href="/upload/"' in html


def test_the_rules_page_covers_every_rule_system_and_links_observation_and_actions() -> None:
    response = Client().get("/docs/rules/")
    html = response.content.decode()
    for rules in ("classic", "boulevard", "cardgame", "royale", "sixdice"):
        assert f'id="{rules}"' in html, rules
    assert 'href="/docs/observation/"' in html and 'href="/docs/actions/"' in html


def test_links_between_docs_become_site_links_and_repository_files_plain_text() -> None:
    html = Client().get("/docs/observation/").content.decode()
    # "[game-log.md](game-log.md)" and "[actions.md](actions.md)" in the Markdown.
    assert 'href="/docs/game-log/"' in html and 'href="/docs/actions/"' in html
    assert 'href="game-log.md"' not in html
    assert docs.doc_link("protocol.md#faults") == "/docs/protocol/#faults"
    assert docs.doc_link("https://example.org/x.md") == "https://example.org/x.md"
    assert docs.doc_link("protocol/hello.schema.json") is None
    assert docs.doc_link("../README.md") is None


def test_a_page_shows_an_edit_of_its_file_at_once(settings: Any, tmp_path: Path) -> None:
    settings.DOCS_DIR = tmp_path
    (tmp_path / "rules.md").write_text("# Rules\n\n## One\n\nFirst text.\n")
    assert "First text." in text_of(Client().get("/docs/rules/"))
    page = tmp_path / "rules.md"
    page.write_text("# Rules\n\n## One\n\nSecond text.\n")
    stat = page.stat()
    import os

    os.utime(page, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert "Second text." in text_of(Client().get("/docs/rules/"))


def test_unknown_or_missing_pages_are_404(settings: Any, tmp_path: Path) -> None:
    assert Client().get("/docs/nothing/").status_code == 404
    settings.DOCS_DIR = tmp_path  # an install without docs/
    response = Client().get("/docs/rules/")
    assert response.status_code == 404


def test_the_footer_links_the_swagger_page_which_serves_offline() -> None:
    html = Client().get(reverse("web:home")).content.decode()
    footer = html[html.index('class="site-footer"') :]
    assert 'href="/api/docs/"' in footer and 'href="/api/schema/"' not in footer
    assert 'href="/docs/getting-started/"' in footer
    swagger = Client().get("/api/docs/")
    assert swagger.status_code == 200
    assert "swagger-ui" in swagger.content.decode()
    assert "/static/drf_spectacular_sidecar/" in swagger.content.decode()
    schema = Client().get("/api/schema/")
    assert schema.status_code == 200 and b"openapi:" in schema.content


def test_api_root_answers_an_index_in_json() -> None:
    response = Client().get("/api/")
    assert response.status_code == 200
    data = response.json()
    assert data["docs"].endswith("/api/docs/") and data["schema"].endswith("/api/schema/")
    assert data["endpoints"]["ladders"].endswith("/api/ladders/")
    assert data["guide"].endswith("/docs/api/")


def test_an_unknown_api_path_is_json_404_and_a_page_the_styled_404() -> None:
    api = Client().get("/api/nothing/")
    assert api.status_code == 404 and api.json()["code"] == "not_found"
    page = Client().get("/no/such/page/")
    assert page.status_code == 404
    html = page.content.decode()
    assert "Nothing here" in html and "/no/such/page/" in html
    assert 'class="site-header"' in html and 'href="/docs/"' in html


def test_a_server_error_is_the_styled_500_page(settings: Any) -> None:
    settings.DEBUG = False
    client = Client(raise_request_exception=False)
    from unittest import mock

    with mock.patch("arena.web.views.docs.docs_groups", side_effect=RuntimeError("boom")):
        response = client.get("/docs/")
    assert response.status_code == 500
    html = response.content.decode()
    assert "Something broke on our side" in html and "arena.css" in html
