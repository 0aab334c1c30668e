"""Two owners may each have a bot of the same name: every page and API answer that shows
a bot names its owner beside it, so that neither passes for the other (issue 33), and
marks the house's bots as such."""

from __future__ import annotations

import re
from typing import Any

import pytest

from arena.ladders.flows import ladder_create
from arena.ladders.models import Ladder
from arena.web.presenters import bot_label
from tests.platform.api_support import client_for as api_client_for
from tests.platform.factories import BotFactory, BotVersionFactory
from tests.platform.scenes import play_match
from tests.platform.web.test_web import client_for, replay_data, text_of

pytestmark = pytest.mark.django_db

NAME = "my-first-bot"


@pytest.fixture
def ladder(db: None) -> Ladder:
    return ladder_create(slug="classic-3", name="Classic, 3 seats", rules="classic", seats=3)


@pytest.fixture
def seated(ladder: Ladder, alice: Any, bob: Any, house: Any) -> tuple[Any, list[Any]]:
    """A finished, rated match of alice's and bob's my-first-bot and the house's greedy."""
    versions = [
        BotVersionFactory(bot=BotFactory(owner=alice, name=NAME)),
        BotVersionFactory(bot=BotFactory(owner=bob, name=NAME)),
        BotVersionFactory(bot=BotFactory(owner=house, name="greedy")),
    ]
    match, _ = play_match(ladder, versions, 3)
    return match, versions


def rows_with(html: str, needle: str) -> list[str]:
    return [row for row in re.findall(r"<tr\b.*?</tr>", html, flags=re.S) if needle in row]


def test_the_label_names_the_bot_with_its_owner(seated: Any) -> None:
    _, versions = seated
    labels = [bot_label(version.bot) for version in versions]
    assert [label.text for label in labels] == [
        f"{NAME} · alice",
        f"{NAME} · bob",
        "greedy · house",
    ]
    assert [label.credit.house for label in labels] == [False, False, True]


def test_the_ladder_page_tells_the_two_bots_apart(seated: Any, ladder: Ladder) -> None:
    html = client_for().get(f"/ladders/{ladder.slug}/").content.decode()
    # The leaderboard (new bots: its provisional table): one row per bot, with its owner.
    rows = rows_with(html, f">{NAME}</a>")
    owners = sorted(re.findall(r'class="owner" href="/players/(\w+)/"', "".join(rows)))
    assert owners == ["alice", "bob"]
    house_row = rows_with(html, ">greedy</a>")
    assert len(house_row) == 1 and 'class="badge house"' in house_row[0]
    # The latest matches: each chip names the owner.
    latest = text_of(client_for().get(f"/ladders/{ladder.slug}/live/"))
    assert f"{NAME} · alice" in latest and f"{NAME} · bob" in latest
    assert "greedy · house" in latest


def test_the_match_page_and_its_replay_tell_the_two_bots_apart(seated: Any) -> None:
    match, _ = seated
    response = client_for().get(f"/matches/{match.pk}/")
    html = response.content.decode()
    table = html[html.index('class="table reflow results"') :].split("</table>")[0]
    owners = {
        int(seat): owner
        for seat, owner in re.findall(
            r'data-seat="(\d)".*?class="owner" href="/players/(\w+)/"', table, flags=re.S
        )
    }
    assert owners == {0: "alice", 1: "bob", 2: "house"}
    assert 'class="badge house"' in table
    # The replay's seat table (replay.js) reads who sat where from the page's document.
    players = replay_data(response)["players"]
    assert [(p["name"], p["owner"], p["house"]) for p in players] == [
        (NAME, "alice", False),
        (NAME, "bob", False),
        ("greedy", "house", True),
    ]


def test_the_bot_page_names_each_opponents_owner(seated: Any) -> None:
    _, versions = seated
    page = text_of(client_for().get(f"/bots/{versions[0].bot_id}/"))
    assert f"{NAME} · bob" in page and "greedy · house" in page


def test_the_api_names_each_bots_owner(seated: Any, ladder: Ladder, carol: Any) -> None:
    match, _ = seated
    api = api_client_for(carol)
    seats = api.get(f"/api/matches/{match.pk}/").json()["participants"]
    assert [(s["bot"], s["owner"]) for s in seats] == [
        (NAME, "alice"),
        (NAME, "bob"),
        ("greedy", "house"),
    ]
    board = api.get(f"/api/ladders/{ladder.slug}/leaderboard/").json()["results"]
    assert sorted((r["bot"], r["owner"]) for r in board) == [
        ("greedy", "house"),
        (NAME, "alice"),
        (NAME, "bob"),
    ]
