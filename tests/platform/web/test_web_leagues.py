"""The league pages: the list, a league's rules, calendar, fixtures by round and standings;
creating a league through the form, the organiser's controls and the bot owners' answers.

Leagues are created and played through the leagues services as in
test_leagues.py (games played by the engine's policies, recorded as a
worker would); the pages are read as anonymous visitors and as players, and
the forms are posted as a browser would (the Django test client).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from html import unescape
from typing import Any

import pytest
from django.template import Context, Template
from django.test import Client
from django.utils import timezone

from arena.bots.models import Bot, Visibility
from arena.ladders.models import Ladder
from arena.leagues.models import (
    EntryStatus,
    GameStatus,
    League,
    LeagueEntry,
    LeagueGame,
    LeagueStatus,
    LeagueVisibility,
)
from arena.leagues.selectors import (
    league_entry_candidates,
    league_page_fixtures,
    league_standings,
)
from arena.leagues.services import league_entry_remove
from arena.matches.models import Participant
from arena.players.models import User
from arena.web import presenters, views
from tests.platform.factories import BotVersionFactory, LadderFactory, RatingFactory, UserFactory
from tests.platform.leagues.test_leagues import T0, advance, create, make_bots, play_out, play_round
from tests.platform.web.test_web import client_for, text_of

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


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
    # league, standings (count, page), rounds, tables per round, fixtures (tables, games,
    # seats)
    with django_assert_max_num_queries(8):
        response = Client().get("/leagues/winter/")
    assert response.status_code == 200
    html = response.content.decode()
    text = text_of(response)
    standings = list(league_standings(league=finished))
    winner = finished.winner
    assert winner is not None and winner.pk == standings[0].entry_id
    # Bots are named with their owners (two owners may each have a "cup0").
    assert f"Winner: {winner.bot.name} · alice ★" in text
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
    # Each seat shows the frozen version, and the bot's owner.
    assert html.count(">v1</span>") >= 2 * games.count()
    fixtures = html.split('id="fixtures"')[1]
    assert fixtures.count('cup0 <span class="muted small">v1</span> · alice') >= 2
    # The standings: rank, bot, points, money, league rating.
    table = html.split('class="table reflow standings"')[1].split("</table>")[0]
    rows = table.split("<tr>")[2:]
    assert len(rows) == 3
    for row, standing in zip(rows, standings, strict=True):
        assert f">{standing.position}</td>" in row
        assert standing.entry.bot.name in row and 'class="owner" href="/players/alice/"' in row
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
    with django_assert_max_num_queries(8):
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
    with django_assert_max_num_queries(8):
        response = Client().get("/leagues/open/")
    html = response.content.decode()
    table = html.split('class="table reflow standings"')[1].split("</table>")[0]
    (row,) = (r for r in table.split("<tr>")[2:] if ">run0</a>" in r)
    assert (
        '<span class="badge status-failed" title="withdrawn by its owner on 2031-03-01 20:00 UTC, '
        'so its remaining games are lost by forfeit">forfeited</span>'
    ) in row
    assert text_of(response).count("forfeited") == 1


# --------------------------------------------------------------------------- creating a league


@pytest.fixture
def fours(db: None) -> Ladder:
    return LadderFactory(slug="classic-4", name="Classic, 4 seats", rules="classic", seats=4)


@pytest.fixture
def field(fours: Ladder, alice: User, bob: User) -> dict[str, Bot]:
    """Alice's bots (a0 rated on classic, a2 private, boul rated on boulevard only), Bob's
    public b0 and b1 and his private secret; every one with an active version."""
    boulevard = LadderFactory(
        slug="boulevard-4", name="Boulevard, 4 seats", rules="boulevard", seats=4
    )
    LadderFactory(slug="old-4", name="Old ladder", rules="classic", seats=4, is_open=False)
    versions = {
        name: BotVersionFactory(bot__owner=owner, bot__name=name, bot__visibility=visibility)
        for name, owner, visibility in [
            ("a0", alice, Visibility.PUBLIC),
            ("a1", alice, Visibility.PUBLIC),
            ("a2", alice, Visibility.PRIVATE),
            ("a3", alice, Visibility.PUBLIC),
            ("boul", alice, Visibility.PUBLIC),
            ("b0", bob, Visibility.PUBLIC),
            ("b1", bob, Visibility.PUBLIC),
            ("secret", bob, Visibility.PRIVATE),
        ]
    }
    RatingFactory(ladder=fours, bot_version=versions["a0"])
    RatingFactory(ladder=boulevard, bot_version=versions["boul"])
    # A bot without an active version cannot play: not offered.
    Bot.objects.create(owner=alice, name="empty")
    return {name: version.bot for name, version in versions.items()}


def start_field(when: datetime) -> str:
    """A start time as the browser's datetime-local input sends it (UTC)."""
    return when.strftime("%Y-%m-%dT%H:%M")


def league_form(bots: list[Bot], **fields: Any) -> dict[str, Any]:
    return {
        "name": "Winter cup",
        "slug": "winter",
        "ladder": "classic-4",
        "format": "round_robin",
        "visibility": "private",
        "start_at": start_field(timezone.now() + timedelta(days=2)),
        "round_interval": "1 day",
        "bots": [str(bot.pk) for bot in bots],
        "games_per_table": "1",
        "rated": "on",
        "points_per_rank": "",
        "advance": "",
        "rounds": "",
        "max_tables": "500",
        **fields,
    }


def entrant_choices(html: str) -> dict[str, str]:
    """The entrant boxes of the new-league form: bot id -> label."""
    boxes = re.findall(
        r'<label for="id_bots_\d+"><input type="checkbox" name="bots" value="(\d+)"[^>]*>\s*(.*?)'
        r"</label>",
        html,
        flags=re.S,
    )
    return {value: re.sub(r"\s+", " ", unescape(label)).strip() for value, label in boxes}


def test_the_form_offers_own_bots_public_bots_and_public_leagues_to_staff(
    field: dict[str, Bot], alice: User, carol: User, django_assert_max_num_queries: Any
) -> None:
    client = client_for(alice)
    # session, user, ladders, own bots, others' bots, their games
    with django_assert_max_num_queries(6):
        response = client.get("/leagues/new/")
    assert response.status_code == 200
    html = response.content.decode()
    by_name = {label.split(" — ")[0]: label for label in entrant_choices(html).values()}
    # Her own bots first (private ones too), then other players' public bots, invited;
    # never another player's private bot, nor a bot without an active version.
    assert list(by_name) == ["a0", "a1", "a2", "a3", "boul", "b0", "b1"]
    assert by_name["a0"] == "a0 — yours · classic"
    assert by_name["a1"] == "a1 — yours · no games yet"
    assert by_name["boul"] == "boul — yours · boulevard"
    assert by_name["b0"] == "b0 — bob's, invited · no games yet"
    # Each box says which games its bot plays, for the page's script.
    assert f'value="{field["boul"].pk}" id="id_bots_4" data-plays="boulevard"' in html
    # Open ladders only, each with its rule system.
    # (the one proposed is selected: the most entrants among the games her bots play)
    assert re.search(r'<option value="classic-4"( selected)? data-rules="classic"', html)
    assert re.search(r'<option value="boulevard-4"( selected)? data-rules="boulevard"', html)
    assert "old-4" not in html
    # Public leagues are staff's: Alice is offered a private league only.
    assert '<option value="private" selected>Private</option>' in html
    assert '<option value="public"' not in html
    assert "In UTC" in text_of(response)

    html = client_for(carol).get("/leagues/new/").content.decode()
    by_name = {label.split(" — ")[0]: label for label in entrant_choices(html).values()}
    # Staff enter public bots at once: nobody is invited.
    assert list(by_name) == ["a0", "a1", "a3", "boul", "b0", "b1"]
    assert by_name["b0"] == "b0 — bob's · no games yet"
    assert '<option value="public">Public</option>' in html


def test_the_form_needs_a_login_and_is_linked_from_the_list(alice: User) -> None:
    response = Client().get("/leagues/new/")
    assert response.status_code == 302
    assert response["Location"] == "/login/?next=/leagues/new/"
    assert 'href="/leagues/new/"' not in Client().get("/leagues/").content.decode()
    assert 'href="/leagues/new/"' in client_for(alice).get("/leagues/").content.decode()


def test_a_valid_form_creates_the_league_and_shows_it(
    field: dict[str, Bot], alice: User, bob: User
) -> None:
    start = (timezone.now() + timedelta(days=3)).replace(second=0, microsecond=0)
    # As a browser sends ticked boxes: in the list's order, which is the seeding.
    bots = [field["a0"], field["a1"], field["a3"], field["b0"]]
    client = client_for(alice)
    response = client.post(
        "/leagues/new/",
        league_form(
            bots,
            start_at=start_field(start),
            round_interval="1 day 6 hours",
            points_per_rank="3, 2, 1, 0.5",
            games_per_table="4",
            rated="",  # an unticked box is not sent
            duplicate="on",
        ),
    )
    assert response.status_code == 302, text_of(response)
    assert response["Location"] == "/leagues/winter/"
    league = League.objects.get(slug="winter")
    assert (league.organiser, league.visibility, league.format) == (alice, "private", "round_robin")
    # The datetime-local value is UTC.
    assert league.start_at == start.astimezone(UTC)
    assert league.round_interval == timedelta(days=1, hours=6)
    assert (league.games_per_table, league.duplicate, league.rated) == (4, True, False)
    assert league.points_per_rank == [3, 2, 1, 0.5]
    assert (league.advance, league.rounds_requested, league.max_tables) == (None, None, 500)
    # Seeded in that order; Bob's bot is invited.
    assert [(e.seed, e.bot.name, e.status) for e in league.entries.order_by("seed")] == [
        (1, "a0", "accepted"),
        (2, "a1", "accepted"),
        (3, "a3", "accepted"),
        (4, "b0", "invited"),
    ]

    text = text_of(client.get("/leagues/winter/"))
    assert "Created Winter cup: it starts by itself on time." in text
    assert "Round every 1 day 6 hours" in text
    assert "Entrants" in text and "invited" in text
    # Bob sees the league his bot is invited to, and answers there.
    assert "Accept" in text_of(client_for(bob).get("/leagues/winter/"))


def test_points_default_to_one_per_seat_beaten(field: dict[str, Bot], carol: User) -> None:
    bots = [field[name] for name in ("a0", "a1", "a3", "b0", "b1")]
    response = client_for(carol).post(
        "/leagues/new/", league_form(bots, visibility="public", format="swiss", rounds="3")
    )
    assert response.status_code == 302, text_of(response)
    league = League.objects.get(slug="winter")
    assert (league.visibility, league.points_per_rank, league.rounds_requested) == (
        "public",
        [3, 2, 1, 0],
        3,
    )
    assert set(league.entries.values_list("status", flat=True)) == {EntryStatus.ACCEPTED}


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("past", "is in the past (now "),
        ("few", "3 entrants cannot fill a table of 4 seats: add at least 1 more."),
        ("rules", "boul plays boulevard, not classic: enter a bot rated on a classic ladder."),
        ("public", "only staff organise public leagues: create a private league and invite bots."),
        ("knockout", "a knockout needs `advance`: how many of each table go through."),
        ("points", "points per rank must not grow with the rank (first gets the most)."),
        ("interval", "rounds must be at least 0:01:00 apart, got 0:00:30."),
    ],
)
def test_a_refused_form_shows_the_services_message_and_keeps_the_input(
    field: dict[str, Bot], alice: User, case: str, message: str
) -> None:
    four = [field[name] for name in ("a0", "a1", "a3", "b0")]
    data = {
        "past": league_form(four, start_at=start_field(timezone.now() - timedelta(hours=1))),
        "few": league_form(four[:3]),
        "rules": league_form([*four[:3], field["boul"]]),
        "public": league_form(four, visibility="public"),
        "knockout": league_form(four, format="knockout"),
        "points": league_form(four, points_per_rank="1, 2, 3, 4"),
        "interval": league_form(four, round_interval="00:00:30"),
    }[case]
    response = client_for(alice).post("/leagues/new/", data)
    assert response.status_code == 200
    assert message in text_of(response)
    assert not League.objects.exists()
    # What Alice typed and ticked is still there.
    html = response.content.decode()
    assert 'value="Winter cup"' in html and 'value="winter"' in html
    assert f'value="{data["start_at"]}"' in html
    assert f'value="{data["round_interval"]}"' in html
    ticked = re.findall(r'value="(\d+)"[^>]*checked', html)
    assert ticked == data["bots"]


def test_unreadable_input_is_refused_by_the_form(field: dict[str, Bot], alice: User) -> None:
    four = [field[name] for name in ("a0", "a1", "a3", "b0")]
    response = client_for(alice).post(
        "/leagues/new/",
        league_form(four, round_interval="soon", points_per_rank="3, two"),
    )
    assert response.status_code == 200
    text = text_of(response)
    assert "'soon' is not a duration: write a number and a unit, e.g. \"1 day\"" in text
    assert "'3, two' is not a list of numbers" in text
    # /leagues/new/ is this page: the service refuses the slug of a league it would hide.
    response = client_for(alice).post("/leagues/new/", league_form(four, slug="new"))
    assert "the slug 'new' is the address of the new-league page: choose another." in text_of(
        response
    )
    # Another player's private bot is not among the choices.
    response = client_for(alice).post("/leagues/new/", league_form([*four[:3], field["secret"]]))
    assert "is not one of the available choices" in text_of(response)
    assert not League.objects.exists()


# --------------------------------------------------------------------------- organiser


@pytest.fixture
def private(field: dict[str, Bot], alice: User) -> League:
    """Alice's private league: her four bots, and Bob's b0 invited."""
    bots = [field[name] for name in ("a0", "a1", "a3", "b0", "a2")]
    return create(
        alice,
        LadderFactory(slug="classic-4"),
        bots,
        name="Alice's cup",
        slug="alices",
        visibility="private",
        now=timezone.now(),
        start_at=timezone.now() + timedelta(days=2),
    )


def post(user: User | None, url: str, data: dict[str, Any] | None = None) -> Any:
    return client_for(user).post(url, data or {})


def test_organiser_controls_show_for_the_organiser_and_staff_only(
    private: League, alice: User, bob: User, carol: User, django_assert_max_num_queries: Any
) -> None:
    for user in (alice, carol):
        client = client_for(user)
        # A few queries whatever the number of entrants and candidates (no query per row).
        with django_assert_max_num_queries(11):
            html = client.get("/leagues/alices/").content.decode()
        assert 'action="/leagues/alices/pause/"' in html
        assert 'action="/leagues/alices/cancel/"' in html
        assert 'action="/leagues/alices/resume/"' not in html  # not paused
        assert 'id="add-entrant-form"' in html
        assert "Remove a0" in html or "Withdraw a0" in html
    # Bob sees the league his bot is invited to, but no organiser's button.
    html = client_for(bob).get("/leagues/alices/").content.decode()
    assert 'id="organiser-controls"' not in html
    assert 'id="add-entrant-form"' not in html
    assert "Remove a0" not in html and "Withdraw a0" not in html
    # His invited bot: he accepts or declines (declining is his withdraw).
    assert 'name="accept" value="yes"' in html and 'name="accept" value="no"' in html
    assert "Withdraw b0" not in html
    # The invitation is Bob's to answer, not the organiser's.
    assert 'name="accept"' not in client_for(alice).get("/leagues/alices/").content.decode()
    # A public league: visitors see no button at all.
    create(carol, LadderFactory(slug="classic-4"), make_bots(alice, 4, "p"), slug="open")
    html = Client().get("/leagues/open/").content.decode()
    assert '<form method="post" action="/leagues/' not in html


def test_the_organiser_pauses_resumes_and_cancels(private: League, alice: User) -> None:
    client = client_for(alice)
    response = client.post("/leagues/alices/pause/")
    assert response.status_code == 302
    assert response["Location"] == "/leagues/alices/"
    private.refresh_from_db()
    assert private.status == LeagueStatus.PAUSED
    page = client.get("/leagues/alices/")
    text = text_of(page)
    assert "Paused Alice's cup: no round starts until you resume it." in text
    assert 'action="/leagues/alices/resume/"' in page.content.decode()
    assert 'action="/leagues/alices/pause/"' not in page.content.decode()

    # Pausing twice is refused with the service's reason, shown on the page (no 500).
    response = client.post("/leagues/alices/pause/", follow=True)
    assert response.status_code == 200
    assert "Alice's cup is paused: it cannot become paused" in text_of(response)

    client.post("/leagues/alices/resume/")
    private.refresh_from_db()
    assert private.status == LeagueStatus.SCHEDULED

    response = client.post("/leagues/alices/cancel/", {"reason": "the venue flooded"}, follow=True)
    text = text_of(response)
    assert "Cancelled Alice's cup: results so far and every log are kept." in text
    assert "the venue flooded" in text
    private.refresh_from_db()
    assert (private.status, private.note) == (LeagueStatus.CANCELLED, "the venue flooded")
    html = response.content.decode()
    assert 'id="organiser-controls"' not in html  # nothing left to do
    assert "Remove a0" not in html


def test_the_organiser_adds_and_removes_entrants_before_the_start(
    private: League, field: dict[str, Bot], alice: User
) -> None:
    html = client_for(alice).get("/leagues/alices/").content.decode()
    form = html.split('id="add-entrant-form"')[1].split("</form>")[0]
    offered = re.findall(r'<option value="(\d+)">(.*?)</option>', form)
    # Bots not entered yet that play classic: not boul (boulevard), not Bob's private one.
    assert [unescape(label) for _, label in offered] == ["b1 — bob's, invited"]

    client = client_for(alice)
    response = client.post("/leagues/alices/entries/", {"bot": field["b1"].pk}, follow=True)
    assert "Invited b1: it plays if bob accepts." in text_of(response)
    entry = LeagueEntry.objects.get(league=private, bot=field["b1"])
    assert (entry.status, entry.seed) == (EntryStatus.INVITED, 6)
    refused = client.post("/leagues/alices/entries/", {"bot": field["boul"].pk}, follow=True)
    assert "Add a bot: Select a valid choice." in text_of(refused)

    response = client.post(f"/leagues/alices/entries/{field['a0'].pk}/withdraw/", follow=True)
    assert "Withdrew a0: it plays nothing in Alice's cup." in text_of(response)
    assert "removed before the start by its owner" in text_of(response)
    client.post(f"/leagues/alices/entries/{field['a1'].pk}/withdraw/", follow=True)
    # Three would be left for a four-seat table (b1's invitation counts): the service
    # refuses, the page says why.
    response = client.post(f"/leagues/alices/entries/{field['a3'].pk}/withdraw/", follow=True)
    assert response.status_code == 200
    assert (
        "without a3, 3 entrants cannot fill a table of 4 seats: enter another bot first."
        in text_of(response)
    )


def test_an_invited_owner_accepts_or_declines(
    private: League, field: dict[str, Bot], alice: User, bob: User
) -> None:
    league_url = "/leagues/alices/"
    b0 = f"{league_url}entries/{field['b0'].pk}/respond/"
    # Not Alice's to answer.
    assert post(alice, b0, {"accept": "yes"}).status_code == 403
    response = client_for(bob).post(b0, {"accept": "yes"}, follow=True)
    assert "Accepted: b0 plays in Alice's cup." in text_of(response)
    assert LeagueEntry.objects.get(bot=field["b0"]).status == EntryStatus.ACCEPTED
    # Answered: no button any more, and answering again is refused with the reason.
    assert 'name="accept"' not in response.content.decode()
    again = client_for(bob).post(b0, {"accept": "no"}, follow=True)
    assert "b0 has no open invitation to Alice's cup." in text_of(again)
    # Accepted, it is his to withdraw before the start: it simply leaves.
    assert "Withdraw b0" in text_of(again)
    withdraw = f"{league_url}entries/{field['b0'].pk}/withdraw/"
    response = client_for(bob).post(withdraw, follow=True)
    assert "Withdrew b0: it plays nothing in Alice's cup." in text_of(response)
    entry = LeagueEntry.objects.get(bot=field["b0"])
    assert (entry.status, entry.reason) == (
        EntryStatus.WITHDRAWN,
        "removed before the start by its owner",
    )

    post(alice, f"{league_url}entries/", {"bot": field["b1"].pk})
    b1 = f"{league_url}entries/{field['b1'].pk}/respond/"
    response = client_for(bob).post(b1, {"accept": "no"}, follow=True)
    assert "Declined: b1 stays out of Alice's cup." in text_of(response)
    entry = LeagueEntry.objects.get(bot=field["b1"])
    assert (entry.status, entry.reason) == (EntryStatus.WITHDRAWN, "the invitation was declined")


def test_an_owner_withdraws_a_bot_from_a_running_league(
    fours: Ladder, alice: User, bob: User, carol: User
) -> None:
    mine = make_bots(alice, 4, "a")
    theirs = make_bots(bob, 1, "b")[0]
    league = advance(create(carol, fours, [*mine, theirs], slug="open"), T0)
    assert league.status == LeagueStatus.RUNNING
    button = "Withdraw b0: its remaining games are lost by forfeit"
    assert button in text_of(client_for(bob).get("/leagues/open/"))
    # Alice's page offers her own bots only; Carol (staff) may withdraw any.
    alice_text = text_of(client_for(alice).get("/leagues/open/"))
    assert "Withdraw a0: its remaining games are lost by forfeit" in alice_text
    assert button not in alice_text
    # Carol's names whose bot it is: two owners may each have a "b0".
    staff = "Withdraw b0 · bob: its remaining games are lost by forfeit"
    assert staff in text_of(client_for(carol).get("/leagues/open/"))
    assert "Withdraw" not in text_of(Client().get("/leagues/open/"))

    url = f"/leagues/open/entries/{theirs.pk}/withdraw/"
    assert post(alice, url).status_code == 403
    response = client_for(bob).post(url, follow=True)
    text = text_of(response)
    assert "Withdrew b0: its remaining games are lost by forfeit." in text
    assert button not in text  # already out
    entry = LeagueEntry.objects.get(bot=theirs)
    assert entry.status == EntryStatus.FORFEITED
    assert entry.reason.startswith("withdrawn by its owner on ")
    again = client_for(bob).post(url, follow=True)
    assert "b0 has already forfeited Spring cup" in text_of(again)


def test_refusals_match_the_api(private: League, field: dict[str, Bot], bob: User) -> None:
    urls = [
        "/leagues/alices/pause/",
        "/leagues/alices/resume/",
        "/leagues/alices/cancel/",
        "/leagues/alices/entries/",
        f"/leagues/alices/entries/{field['a0'].pk}/withdraw/",
        f"/leagues/alices/entries/{field['b0'].pk}/respond/",
    ]
    dave = UserFactory(username="dave")
    for url in urls:
        # A visitor logs in first, then comes back to the league page.
        response = Client().post(url)
        assert response.status_code == 302
        assert response["Location"] == "/login/?next=/leagues/alices/"
        # The private league does not exist for a stranger.
        assert post(dave, url).status_code == 404
        # Buttons are POST forms.
        assert client_for(bob).get(url).status_code == 405
    # Bob sees the league (his bot is invited) but does not organise it.
    for url in urls[:5]:
        assert post(bob, url, {"bot": field["b1"].pk}).status_code == 403
    # An entrant that is not there: the organiser is told, others are refused.
    missing = f"/leagues/alices/entries/{field['b1'].pk}/"
    assert post(bob, f"{missing}withdraw/").status_code == 403
    assert post(bob, f"{missing}respond/", {"accept": "yes"}).status_code == 404
    private.refresh_from_db()
    assert private.status == LeagueStatus.SCHEDULED
    assert private.entries.exclude(status=EntryStatus.INVITED).count() == 4


# --------------------------------------------------------------------------- frictions (issue 17)


def test_the_form_proposes_the_ladder_with_entrants(
    field: dict[str, Bot], fours: Ladder, alice: User
) -> None:
    from arena.ladders.models import Entry

    Entry.objects.filter(ladder__slug="boulevard-4").delete()
    for name in ("a0", "a1", "b0"):
        Entry.objects.get_or_create(bot=field[name], ladder=fours)
    entered = Entry.objects.filter(ladder=fours).count()
    html = client_for(alice).get("/leagues/new/").content.decode()
    assert '<option value="classic-4" selected data-rules="classic">' in html
    assert f"Classic, 4 seats (classic, 4 seats, {entered} bots entered)" in html
    assert "Boulevard, 4 seats (boulevard, 4 seats, 0 bots entered)" in html


def test_start_now_creates_a_league_starting_at_once(field: dict[str, Bot], alice: User) -> None:
    bots = [field[name] for name in ("a0", "a1", "a2", "a3")]
    before = timezone.now()
    response = client_for(alice).post(
        "/leagues/new/", league_form(bots, start_at="", start_now="on"), follow=True
    )
    assert "it starts by itself within a minute or two" in text_of(response), text_of(response)
    league = League.objects.get(slug="winter")
    assert before < league.start_at <= timezone.now() + timedelta(seconds=10)
    # Neither a time nor "start now": the form says what to do.
    again = client_for(alice).post("/leagues/new/", league_form(bots, slug="w2", start_at=""))
    assert "Choose the start time, or tick Start now." in text_of(again)


def test_withdrawing_asks_first(field: dict[str, Bot], fours: Ladder, alice: User) -> None:
    league = create(
        alice,
        fours,
        [field[n] for n in ("a0", "a1", "a2", "a3")],
        slug="asks",
        visibility=LeagueVisibility.PRIVATE,
    )
    html = client_for(alice).get(f"/leagues/{league.slug}/").content.decode()
    # A short button opening the question; the form posts only from the confirming button.
    assert '<summary class="button small secondary">Withdraw<span class="sr-only"> a0</span>' in (
        html
    )
    assert "Withdraw a0 from " in html and ">Yes, withdraw a0</button>" in html


# --------------------------------------------------------------------------- big leagues


def test_a_big_leagues_fixtures_and_standings_come_a_page_at_a_time(
    finished: League, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pages of tables (the current round's first) and of standings: a 512-entrant Swiss
    has thousands of games, which the page would otherwise render at once."""
    monkeypatch.setattr(views, "FIXTURES_PAGE_TABLES", 1)  # three rounds of one table
    monkeypatch.setattr(views, "LEAGUE_ROWS_PAGE_SIZE", 2)  # three entrants
    games = {g.match_id for g in LeagueGame.objects.filter(fixture__round__league=finished)}

    def shown(query: str) -> tuple[str, set[int]]:
        html = Client().get(f"/leagues/winter/{query}").content.decode()
        fixtures = html[html.index('id="fixtures"') :]
        return html, {int(pk) for pk in re.findall(r'href="/matches/(\d+)/"', fixtures)}

    # The last round started is where a visitor looks first.
    html, first = shown("")
    assert 'id="round-3"' in html and 'id="round-1"' not in html
    assert "Tables 3\u20133 of 3" in unescape(html)
    assert '<a href="?fixtures=2#fixtures" rel="prev">' in html
    for number in (1, 2, 3):
        assert f'href="?fixtures={number}#round-{number}"' in html
    # Every table on exactly one page; out of range or not a number: the nearest page.
    pages = [shown(f"?fixtures={n}")[1] for n in (1, 2, 3)]
    assert set().union(*pages) == games and sum(map(len, pages)) == len(games)
    assert shown("?fixtures=99")[1] == pages[2] and shown("?fixtures=x")[1] == first

    def standing_rows(query: str) -> list[str]:
        html = Client().get(f"/leagues/winter/{query}").content.decode()
        table = html.split('class="table reflow standings"')[1].split("</table>")[0]
        return re.findall(r'<td class="num rank"[^>]*>(\d+)</td>', table)

    assert standing_rows("") == ["1", "2"]
    assert standing_rows("?standings=2") == ["3"]
    assert (
        '<a href="?standings=2#standings" rel="next">'
        in Client().get("/leagues/winter/").content.decode()
    )


def test_fixture_pages_place_each_round() -> None:
    pages = presenters.fixture_pages(
        [(1, 5), (2, 5), (3, 2)], current_round=2, requested=None, per_page=4
    )
    assert (pages.number, pages.count, pages.start, pages.stop, pages.tables) == (2, 3, 4, 8, 12)
    assert pages.round_pages == [(1, 1), (2, 2), (3, 3)]
    assert (pages.previous, pages.next) == (1, 3)
    before_start = presenters.fixture_pages([], current_round=None, requested="3", per_page=4)
    assert (before_start.number, before_start.count, before_start.stop) == (1, 1, 0)


def test_the_candidates_are_all_own_bots_then_the_first_of_others(
    field: dict[str, Bot], alice: User, bob: User
) -> None:
    """Ten thousand public bots make no page of checkboxes: every bot of the organiser's,
    then the first others by owner and name."""
    BotVersionFactory(bot__owner__username="zed", bot__name="z")  # sorts after bob's
    names = [c.bot.name for c in league_entry_candidates(user=alice, others=2)]
    assert names == ["a0", "a1", "a2", "a3", "boul", "b0", "b1"]
    names = [c.bot.name for c in league_entry_candidates(user=alice, others=3)]
    assert names[5:] == ["b0", "b1", "z"]
    # The game filter comes first: boul plays boulevard only, a bot with no game plays any.
    classic = [c.bot.name for c in league_entry_candidates(user=alice, rules="classic", others=1)]
    assert classic == ["a0", "a1", "a2", "a3", "b0"]
    boulevard = [c.bot.name for c in league_entry_candidates(user=bob, rules="boulevard")]
    assert boulevard == ["b0", "b1", "secret", "a1", "a3", "boul", "z"]


# --------------------------------------------------------------------------- fixture rows

#: The fixtures' rows as web/league.html wrote them with template nodes, before
#: arena_web.fixture_rows: the tag must say exactly the same.
FIXTURE_ROWS_AS_TEMPLATE = (
    "{% load arena_web %}{% for fixture in fixtures %}{% for game in fixture.games.all %}<tr>"
    '<td class="num" data-label="Table">{{ fixture.table }}</td>'
    '<td class="num" data-label="Game">{{ game.number|add:1 }}</td>'
    '<td class="wide" data-label="Seats">{% for seat in game.seats.all %}'
    '<span class="seat-tag {{ seat.seat|seat_class }}">{{ seat.entry.bot.name }}'
    "{% if seat.entry.bot_version %}"
    ' <span class="muted small">v{{ seat.entry.bot_version.number }}</span>{% endif %}'
    " · {{ seat.entry.bot.owner.username }}"
    "{% if seat.result_rank %} · #{{ seat.result_rank }} {{ seat.result_money|money }}"
    "{% endif %}{% if seat.result_forfeit %} · forfeit{% endif %}"
    "{% if seat.result_rank == 1 %} ★{% endif %}</span>"
    "{% if not forloop.last %}\n{% endif %}{% endfor %}</td>"
    '<td data-label="Result"><span class="badge status-{{ game.status }}">'
    "{{ game.get_status_display|lower }}</span></td>"
    '<td data-label="Match">{% if game.match_id %}'
    "<a href=\"{% url 'web:match' game.match_id %}\">Match #{{ game.match_id }}</a>"
    '{% else %}<span class="muted">—</span>{% endif %}</td>'
    "</tr>{% endfor %}{% endfor %}"
)


def test_the_fixture_rows_tag_writes_what_the_template_wrote(
    pairs: Ladder, carol: User, alice: User
) -> None:
    bots = make_bots(alice, 5, "<b>run")  # a name to escape
    league = advance(create(carol, pairs, bots, name="Open", slug="open"), T0)
    play_round(league, 1)
    # A seat of a played game lost by forfeit (its result stays in the match).
    game = LeagueGame.objects.filter(fixture__round__league=league, match__isnull=False).first()
    assert game is not None
    Participant.objects.filter(match_id=game.match_id, seat=1).update(forfeit="timeout")
    league = advance(league, T0 + timedelta(hours=3))
    fixtures = list(league_page_fixtures(league=league))
    seats = [s for f in fixtures for g in f.games.all() for s in g.seats.all()]
    assert {bool(s.result_rank) for s in seats} == {True, False}, "played and unplayed games"
    assert any(s.result_forfeit for s in seats) and any(s.result_rank == 1 for s in seats)

    def squeezed(html: str) -> str:
        return re.sub(r">\s+<", "><", html.strip())

    written = Template("{% load arena_web %}{% fixture_rows fixtures %}").render(
        Context({"fixtures": fixtures})
    )
    expected = Template(FIXTURE_ROWS_AS_TEMPLATE).render(Context({"fixtures": fixtures}))
    assert squeezed(written) == squeezed(expected)
    assert "&lt;b&gt;run" in written and "<b>run" not in written
    # Seat tags are inline: the space between them is what sets them apart on screen.
    assert re.search(r'</span>\s+<span class="seat-tag', written)
    assert written.count("<tr>") == sum(len(f.games.all()) for f in fixtures) > 2
