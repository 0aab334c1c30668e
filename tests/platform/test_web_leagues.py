"""The league pages: the list, a league's rules, calendar, fixtures by round and standings.

Leagues are created and played through the leagues services as in
test_leagues.py (games played by the engine's policies, recorded as a
worker would); the pages are read as anonymous visitors and as players.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client

from arena.ladders.models import Ladder
from arena.leagues.models import GameStatus, League, LeagueGame, LeagueStatus
from arena.leagues.selectors import league_standings
from arena.leagues.services import league_entry_remove
from arena.players.models import User

from .factories import LadderFactory
from .test_leagues import T0, advance, create, make_bots, play_out, play_round
from .test_web import client_for, text_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def pairs(db: None) -> Ladder:
    return LadderFactory(slug="classic-2", name="Classic, 2 seats", rules="classic", seats=2)


@pytest.fixture
def finished(pairs: Ladder, carol: User, alice: User) -> League:
    """A public round robin of three bots (three rounds of one table, one bye), played out."""
    league = create(carol, pairs, make_bots(alice, 3, "cup"), name="Winter cup", slug="winter")
    league = play_out(league)
    assert league.status == LeagueStatus.FINISHED
    return league


def test_the_league_list_shows_public_leagues_to_anyone(finished: League) -> None:
    response = Client().get("/leagues/")
    assert response.status_code == 200
    text = text_of(response)
    assert "Winter cup" in text
    assert "Round robin" in text
    assert 'href="/leagues/winter/"' in response.content.decode()
    # The navigation links to the list from every page.
    assert 'href="/leagues/"' in Client().get("/").content.decode()


def test_a_finished_league_shows_fixtures_standings_and_winner(
    finished: League, django_assert_max_num_queries: Any
) -> None:
    with django_assert_max_num_queries(6):
        response = Client().get("/leagues/winter/")
    assert response.status_code == 200
    html = response.content.decode()
    text = text_of(response)
    standings = list(league_standings(league=finished))
    winner = finished.winner
    assert winner is not None and winner.pk == standings[0].entry_id
    assert f"Winner: {winner.bot.name} ★" in text
    assert "Round robin" in text and "Classic, 2 seats" in text
    assert "Points per rank" in text
    assert "rated: league games also count on the ladder's Elo" in text
    # Fixtures by round: one table a round; each game links to its match page.
    games = LeagueGame.objects.filter(fixture__round__league=finished)
    assert {g.status for g in games} == {GameStatus.FINISHED}
    for number in (1, 2, 3):
        assert f'id="round-{number}"' in html
        assert f"Round {number} finished" in text
    for game in games:
        assert f'href="/matches/{game.match_id}/"' in html
    # Each seat shows the frozen version.
    assert html.count(">v1</span>") >= 2 * games.count()
    # The standings: rank, bot, points, money, league rating.
    table = html.split('class="table standings"')[1].split("</table>")[0]
    rows = table.split("<tr>")[2:]
    assert len(rows) == 3
    for row, standing in zip(rows, standings, strict=True):
        assert f">{standing.position}</td>" in row
        assert standing.entry.bot.name in row
        assert f"${standing.money:,}" in row
        assert f">{round(standing.rating)}</td>" in row
    # The bundle from the leagues API.
    assert 'href="/api/leagues/winter/bundle/"' in html
    assert Client().get("/api/leagues/winter/bundle/").status_code == 200


def test_a_running_league_shows_queued_games_and_partial_standings(
    pairs: Ladder, carol: User, alice: User, django_assert_max_num_queries: Any
) -> None:
    league = create(carol, pairs, make_bots(alice, 4, "run"), name="Open", slug="open")
    league = advance(league, T0)
    play_round(league, 1)
    league = advance(league, T0)
    assert league.status == LeagueStatus.RUNNING
    with django_assert_max_num_queries(6):
        response = Client().get("/leagues/open/")
    text = text_of(response)
    assert "running" in text
    assert "Winner" not in text
    assert "Round 1" in text and "Round 2" in text
    assert "Match #" in text


def test_an_unrated_league_says_so(pairs: Ladder, carol: User, alice: User) -> None:
    create(carol, pairs, make_bots(alice, 2, "f"), name="Friendly", slug="friendly", rated=False)
    text = text_of(Client().get("/leagues/friendly/"))
    assert "unrated: the ladder's Elo ignores league games" in text


def test_private_leagues_are_hidden_from_others(
    pairs: Ladder, alice: User, bob: User, carol: User
) -> None:
    create(
        alice,
        pairs,
        make_bots(alice, 2, "mine"),
        name="Alice's own",
        slug="own",
        visibility="private",
    )
    for client in (Client(), client_for(bob)):
        assert "Alice's own" not in text_of(client.get("/leagues/"))
        assert client.get("/leagues/own/").status_code == 404
    for user in (alice, carol):  # the organiser, and staff
        client = client_for(user)
        assert "Alice's own" in text_of(client.get("/leagues/"))
        response = client.get("/leagues/own/")
        assert response.status_code == 200
        assert "private" in text_of(response)


def test_an_unknown_league_is_not_found() -> None:
    assert Client().get("/leagues/nothing/").status_code == 404


def test_a_withdrawn_entrant_stays_in_the_standings_marked_forfeited(
    pairs: Ladder, carol: User, alice: User, django_assert_max_num_queries: Any
) -> None:
    bots = make_bots(alice, 4, "run")
    league = advance(create(carol, pairs, bots, name="Open", slug="open"), T0)
    play_round(league, 1)
    league_entry_remove(league=league, bot=bots[0], by=alice, now=T0 + timedelta(hours=2))
    with django_assert_max_num_queries(6):
        response = Client().get("/leagues/open/")
    html = response.content.decode()
    table = html.split('class="table standings"')[1].split("</table>")[0]
    (row,) = (r for r in table.split("<tr>")[2:] if ">run0</a>" in r)
    assert (
        '<span class="badge status-failed" title="withdrawn by its owner on 2031-03-01 20:00 UTC, '
        'so its remaining games are lost by forfeit">forfeited</span>'
    ) in row
    assert text_of(response).count("forfeited") == 1
