"""Every relative link in the documentation leads to a file, and every anchor to a heading.

The pages are rendered as the site renders them (Python-Markdown with its `toc`
extension, arena/web/docs.py), so an anchor is checked against the ids the site
gives its headings. Plain mentions of a page (`docs/ratings.md` in prose or in
a code comment) must name a file that exists.
"""

from __future__ import annotations

import re
from functools import cache
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import markdown
import pytest

REPO = Path(__file__).resolve().parent.parent
DOCUMENTS = sorted(
    [
        REPO / "README.md",
        REPO / "bench" / "README.md",
        REPO / "platform" / "README.md",
        *(REPO / "docs").glob("*.md"),
    ]
)
MENTIONS = re.compile(r"\bdocs/[\w-]+\.(?:md|json)\b")
MENTIONING = sorted(
    set(DOCUMENTS)
    | {
        path
        for folder in ("platform/arena", "bots_sdk", "vegas_engine", "bench", "scripts")
        for path in (REPO / folder).rglob("*")
        if path.suffix in {".py", ".sh", ".html"} and "migrations" not in path.parts
    }
    | {REPO / "docker-compose.yml", REPO / "pyproject.toml", REPO / "Makefile"}
)


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name == "id" and value:
                self.ids.add(value)
            if tag == "a" and name == "href" and value:
                self.hrefs.append(value)


@cache
def _parsed(path: Path) -> _Links:
    html = markdown.markdown(
        path.read_text(encoding="utf-8"), extensions=["extra", "sane_lists", "toc"]
    )
    links = _Links()
    links.feed(html)
    return links


def _relative(document: Path) -> list[str]:
    return [
        href
        for href in _parsed(document).hrefs
        if not urlsplit(href).scheme and not href.startswith("/")
    ]


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: str(path.relative_to(REPO)))
def test_every_relative_link_resolves_to_a_file_and_an_anchor(document: Path) -> None:
    broken = []
    for href in _relative(document):
        parts = urlsplit(href)
        target = (document.parent / unquote(parts.path)).resolve() if parts.path else document
        if not target.exists():
            broken.append(f"{href}: no file {target.relative_to(REPO)}")
        elif target.suffix == ".md" and parts.fragment not in {"", *_parsed(target).ids}:
            broken.append(f"{href}: no heading #{parts.fragment} in {target.relative_to(REPO)}")
    assert not broken, f"{document.relative_to(REPO)}:\n" + "\n".join(broken)


def test_the_checker_sees_links_anchors_and_breaks(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# Page\n\n## Is v7 better? (verdicts)\n\n[a](other.md#gone) `[b](x.md)`\n")
    (tmp_path / "other.md").write_text("# Other\n\n## Here\n")
    assert _relative(page) == ["other.md#gone"]
    assert "is-v7-better-verdicts" in _parsed(page).ids
    assert "gone" not in _parsed(tmp_path / "other.md").ids
    assert "here" in _parsed(tmp_path / "other.md").ids


def test_every_page_named_in_prose_or_code_exists() -> None:
    missing = sorted(
        f"{path.relative_to(REPO)}: {name}"
        for path in MENTIONING
        for name in set(MENTIONS.findall(path.read_text(encoding="utf-8", errors="replace")))
        if not (REPO / name).exists()
    )
    assert not missing, "\n".join(missing)
