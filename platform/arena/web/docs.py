"""The documentation pages: docs/*.md rendered to HTML, the one source of truth.

Only the pages listed in ``PAGES`` are served, each under ``/docs/<slug>/``.
A link from one of them to another (``protocol.md#faults``) becomes that
page's URL; a link to a file that is not a page (a schema, the code) is left
as text. Pages are rendered once per change of their file (keyed by its
modification time), so editing docs/ shows at the next request.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from xml.etree import ElementTree

import markdown
from django.conf import settings
from django.urls import reverse
from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor


@dataclass(frozen=True)
class DocPage:
    slug: str
    file: str
    title: str
    summary: str
    group: str


GETTING_STARTED = "Getting started"
COMPETING = "Ladders and ratings"
GAME = "The games"
REFERENCE = "Reference"
PLATFORM = "Running the platform"

PAGES: tuple[DocPage, ...] = (
    DocPage(
        "getting-started",
        "getting-started.md",
        "Getting started",
        "Five minutes from signing up to a bot of yours on the ladders.",
        GETTING_STARTED,
    ),
    DocPage(
        "play",
        "play.md",
        "Playing in the browser",
        "Take a seat against bots, and watch matches as they are played.",
        GETTING_STARTED,
    ),
    DocPage(
        "ladders",
        "ladders.md",
        "Ladders",
        "Uploads, pre-flights, whom a bot plays, duplicate deals, challenges, levels.",
        COMPETING,
    ),
    DocPage(
        "ratings",
        "ratings.md",
        "Ratings",
        "How a result moves a rating, and whether a new version is better.",
        COMPETING,
    ),
    DocPage(
        "leagues",
        "leagues.md",
        "Leagues",
        "Leagues and tournaments on a ladder's game.",
        COMPETING,
    ),
    DocPage(
        "competitions",
        "competitions.md",
        "Competitions",
        "Events with entry dates, a submission freeze and a final event, for a class or a club.",
        COMPETING,
    ),
    DocPage(
        "notifications",
        "notifications.md",
        "Notifications",
        "E-mails and signed webhooks when a pre-flight, a round or a challenge is decided.",
        COMPETING,
    ),
    DocPage(
        "teams",
        "teams.md",
        "Teams",
        "Bots owned by several players: invitations, members, quotas.",
        COMPETING,
    ),
    DocPage(
        "rules",
        "rules.md",
        "The rules",
        "The five rule systems, each with its observation and actions.",
        GAME,
    ),
    DocPage(
        "rulings",
        "rulings.md",
        "Rulings",
        "How the engine reads the rules where they are silent.",
        GAME,
    ),
    DocPage(
        "protocol",
        "protocol.md",
        "The protocol",
        "What a bot reads and writes, limits, faults and runtimes.",
        REFERENCE,
    ),
    DocPage(
        "sdk",
        "sdk.md",
        "The SDK's kits and commands",
        "Starter kits in seven languages; play, tournament and validate locally.",
        REFERENCE,
    ),
    DocPage(
        "observation",
        "observation.md",
        "The observation",
        "Every field a bot is shown, per rule system.",
        REFERENCE,
    ),
    DocPage(
        "actions",
        "actions.md",
        "Actions",
        "The grammar of every decision's actions.",
        REFERENCE,
    ),
    DocPage(
        "rl",
        "rl.md",
        "Reinforcement learning",
        "PettingZoo, OpenSpiel and Gymnasium bridges, and a short training run.",
        REFERENCE,
    ),
    DocPage(
        "game-log",
        "game-log.md",
        "The game log",
        "The format of a match's log, which replays it exactly.",
        REFERENCE,
    ),
    DocPage(
        "game-log-events",
        "game-log-events.md",
        "The game log's events",
        "Each event of the log and its fields, in every rule system.",
        REFERENCE,
    ),
    DocPage(
        "game-log-royale",
        "game-log-royale.md",
        "The game log's royale events",
        "The events of royale's tiles, chips and bank.",
        REFERENCE,
    ),
    DocPage(
        "engine",
        "engine.md",
        "The engine's API",
        "Games in Python: descriptions and seeds, chance nodes, positions.",
        REFERENCE,
    ),
    DocPage(
        "sandbox",
        "sandbox.md",
        "The sandbox",
        "Where and how a bot runs: isolation, limits, builds.",
        REFERENCE,
    ),
    DocPage(
        "api",
        "api.md",
        "The API guide",
        "How the API answers, who sees what, its limits, and every endpoint.",
        REFERENCE,
    ),
    DocPage(
        "platform",
        "platform.md",
        "The platform",
        "What the platform does, and which page covers each part.",
        PLATFORM,
    ),
    DocPage(
        "deploy",
        "deploy.md",
        "Deployment",
        "Hosts, compose, proxies, queues, brokers and storage.",
        PLATFORM,
    ),
    DocPage(
        "settings",
        "settings.md",
        "Settings",
        "Every environment variable the platform reads, with its default.",
        PLATFORM,
    ),
    DocPage(
        "operations",
        "operations.md",
        "How it runs",
        "Matches on the workers, failures and retries, beat, the storage check.",
        PLATFORM,
    ),
    DocPage(
        "development",
        "development.md",
        "The platform's code",
        "Layout, apps, data model and tests, for contributors.",
        PLATFORM,
    ),
    DocPage(
        "design",
        "design.md",
        "Design notes",
        "Why it is built as it is: series, deals, ratings, matchmaking, storage, speed.",
        PLATFORM,
    ),
)
BY_SLUG = {page.slug: page for page in PAGES}
BY_FILE = {page.file: page for page in PAGES}


@dataclass(frozen=True)
class Heading:
    level: int
    id: str
    name: str


@dataclass(frozen=True)
class RenderedDoc:
    page: DocPage
    html: str
    toc: tuple[Heading, ...]


class DocMissingError(Exception):
    """A listed page whose file is not there (an install without docs/)."""


def docs_groups() -> list[tuple[str, list[DocPage]]]:
    """The pages by group, in the order of PAGES."""
    groups: dict[str, list[DocPage]] = {}
    for page in PAGES:
        groups.setdefault(page.group, []).append(page)
    return list(groups.items())


def doc_render(slug: str) -> RenderedDoc | None:
    """The page ``slug`` rendered, or None when there is no such page."""
    page = BY_SLUG.get(slug)
    if page is None:
        return None
    path = Path(settings.DOCS_DIR) / page.file
    try:
        mtime = path.stat().st_mtime_ns
    except FileNotFoundError:
        raise DocMissingError(f"{path} is missing") from None
    return _render(page, str(path), mtime)


@lru_cache(maxsize=64)
def _render(page: DocPage, path: str, mtime: int) -> RenderedDoc:
    text = Path(path).read_text(encoding="utf-8")
    converter = markdown.Markdown(
        extensions=["extra", "sane_lists", "toc", _DocLinks()],
        extension_configs={
            "toc": {"permalink": "#", "permalink_title": "Link to this section"},
            # A column's alignment as an attribute: a style attribute is refused by our CSP.
            "extra": {"tables": {"use_align_attribute": True}},
        },
        output_format="html",
    )
    html = converter.convert(text)
    tokens = getattr(converter, "toc_tokens", [])
    toc = tuple(
        Heading(level=int(str(token["level"])), id=str(token["id"]), name=_plain(token["name"]))
        for token in _flatten(tokens)
        if token["level"] in (2, 3)
    )
    return RenderedDoc(page=page, html=html, toc=toc)


def _flatten(tokens: list[dict[str, object]]) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for token in tokens:
        out.append(token)
        children = token.get("children")
        if isinstance(children, list):
            out.extend(_flatten(children))
    return out


def _plain(name: object) -> str:
    # toc names keep entities (&amp;, &lt;): the template escapes, so undo them once.
    return (
        str(name)
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", '"')
        .replace("&amp;", "&")
    )


LINK = re.compile(r"^(?:\.\./docs/|docs/|\./)?(?P<file>[\w.-]+\.md)(?P<anchor>#.*)?$")


def doc_link(href: str) -> str | None:
    """The site URL of a link between docs (``protocol.md#faults``), None for any other
    relative file; absolute URLs, site paths and anchors are kept as they are."""
    if href.startswith(("http://", "https://", "mailto:", "/", "#")):
        return href
    match = LINK.match(href)
    if match is None or match["file"] not in BY_FILE:
        return None
    url = reverse("web:doc", kwargs={"slug": BY_FILE[match["file"]].slug})
    return url + (match["anchor"] or "")


class _LinkRewriter(Treeprocessor):
    def run(self, root: ElementTree.Element) -> None:
        for parent in root.iter():
            for child in list(parent):
                if child.tag != "a":
                    continue
                target = doc_link(child.get("href", ""))
                if target is not None:
                    child.set("href", target)
                else:
                    # A file of the repository, not a page: keep the words, drop the link.
                    child.tag = "span"
                    child.attrib.pop("href", None)
                    child.set("class", "repo-path")


class _DocLinks(Extension):
    def extendMarkdown(self, md: markdown.Markdown) -> None:
        md.treeprocessors.register(_LinkRewriter(md), "arena_doc_links", 5)
