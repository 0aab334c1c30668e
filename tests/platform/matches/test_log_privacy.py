"""What a match log keeps private to a seat (its bot's notes, per-decision stderr and
trace, its bot seed, its stderr) reaches the owner of the seat's bot and staff only:
on the API (events and moves forms, the download), the ladder's export and the match
page. Real PostgreSQL, and a log the real referee wrote for two bots that note."""

from __future__ import annotations

import io
import json
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from arena.bots.models import BotVersion
from arena.ladders.models import Ladder
from arena.leagues.models import LeagueFormat, LeagueGame
from arena.leagues.selectors import league_bundle
from arena.leagues.services import league_advance, league_create
from arena.live.selectors import live_read
from arena.live.services import LivePublisher
from arena.matches.models import Match, MatchStatus
from arena.matches.outcomes import SeatOutcome
from arena.matches.services import match_finish, match_start
from arena.players.services import team_create
from bots_sdk.launcher import BotSpec
from bots_sdk.referee import Match as Referee
from bots_sdk.referee import play_series
from tests.bots_sdk.test_protocol import validator
from tests.platform.api_support import client_for
from tests.platform.factories import (
    BotFactory,
    BotVersionFactory,
    LadderFactory,
    MatchFactory,
    ParticipantFactory,
    UserFactory,
)
from vegas_engine import describe
from vegas_engine import log as game_logs

pytestmark = pytest.mark.django_db

#: Each seat's bot writes its own secret in every note and on stderr at every decision.
SECRETS = ("alice's secret plan", "bob's secret plan")

NOTER = """\
import os, sys
from bots_sdk import Bot, run


class Noter(Bot):
    def act(self, observation):
        legal = observation["legal_actions"]
        print(os.environ["SECRET"], "on stderr", file=sys.stderr)
        self.note(os.environ["SECRET"] + f": {len(legal)} legal")
        return legal[0]


if __name__ == "__main__":
    run(Noter)
"""


@pytest.fixture
def ladder(db: None) -> Ladder:
    return LadderFactory(slug="classic-2")


@pytest.fixture
def versions(alice: Any, bob: Any) -> list[BotVersion]:
    """alice's shark, her team's (Sharks); bob's turtle, of no team."""
    sharks = team_create(user=alice, name="Sharks")
    return [
        BotVersionFactory(bot=BotFactory(owner=alice, team=sharks, name="shark")),
        BotVersionFactory(bot=BotFactory(owner=bob, name="turtle")),
    ]


@pytest.fixture
def match(ladder: Ladder, versions: list[BotVersion], tmp_path: Path) -> Match:
    """A match whose log is a real game between the two noting bots (shark at seat 0)."""
    (tmp_path / "noter.py").write_text(NOTER)
    bots = [
        BotSpec(
            name=f"noter {seat}",
            bot_dir=tmp_path,
            main="noter.py",
            trusted=True,
            env={"SECRET": SECRETS[seat]},
        )
        for seat in (0, 1)
    ]
    (record,) = play_series(bots, [(describe("classic", 2), 5)])
    assert not record.faults
    started = MatchFactory(
        ladder=ladder, seed=5, status=MatchStatus.RUNNING, attempts=1, started_at=timezone.now()
    )
    for seat, version in enumerate(versions):
        ParticipantFactory(match=started, seat=seat, bot_version=version)
    outcomes = [
        SeatOutcome(seat=row["seat"], money=row["money"], rank=row["rank"]) for row in record.result
    ]
    log = json.dumps(record.moves_log).encode()
    return match_finish(match=started, outcomes=outcomes, game_log=log)


def readers(alice: Any, bob: Any, carol: Any) -> list[tuple[str, Any, set[int]]]:
    """Who asks, and the seats whose private fields they read: the owners their own
    seat, staff (carol) every seat, another player and anonymous none."""
    dave = UserFactory(username="dave")
    return [
        ("alice", alice, {0}),
        ("bob", bob, {1}),
        ("carol (staff)", carol, {0, 1}),
        ("dave", dave, set()),
        ("anonymous", None, set()),
    ]


def check_seats(log: dict[str, Any], readable: set[int], who: str) -> None:
    validator("referee-log").validate(log["referee"])
    for seat in log["referee"]["seats"]:
        # Each seat names its bot's owner and team, for everyone (alice's shark sits at
        # seat 0).
        assert seat["owner"] == ("alice", "bob")[seat["seat"]], who
        assert seat["team"] == ("Sharks", None)[seat["seat"]], who
        mine = SECRETS[seat["seat"]]
        if seat["seat"] in readable:
            trace = seat["trace"]
            assert trace and isinstance(seat["bot_seed"], int), who
            assert all(e["note"].startswith(mine) for e in trace), who
            assert all(e["stderr"] == f"{mine} on stderr\n" for e in trace), who
        else:
            assert "trace" not in seat and "bot_seed" not in seat, who


def check_body(content: bytes, readable: set[int], who: str) -> None:
    """The raw body holds the secrets of the readable seats only, wherever they are."""
    for seat, secret in enumerate(SECRETS):
        assert (json.dumps(secret)[1:-1].encode() in content) == (seat in readable), (who, seat)


def test_the_match_log_shows_notes_and_stderr_to_the_seats_owner_and_staff_only(
    match: Match, alice: Any, bob: Any, carol: Any
) -> None:
    url = f"/api/matches/{match.pk}/log/"
    for who, user, readable in readers(alice, bob, carol):
        api = client_for(user)
        for query in ({}, {"form": "moves"}, {"download": "1"}):
            response = api.get(url, query)
            assert response.status_code == 200, (who, query)
            check_seats(response.json(), readable, who)
            check_body(response.content, readable, who)
        moves = api.get(url, {"form": "moves"}).json()
        for seat in moves["referee"]["seats"]:
            for entry in seat.get("trace", []):  # each at a move of its own seat
                assert moves["moves"][entry["move"]][0] == seat["seat"]


def test_the_ladders_export_shows_them_to_the_seats_owner_and_staff_only(
    match: Match, alice: Any, bob: Any, carol: Any
) -> None:
    for who, user, readable in readers(alice, bob, carol):
        response = client_for(user).get("/api/ladders/classic-2/logs/")
        assert response.status_code == 200
        body = b"".join(response.streaming_content)
        (line,) = [json.loads(line) for line in body.splitlines()]
        assert line["match"]["id"] == match.pk
        check_seats(line["log"], readable, who)
        check_body(body, readable, who)


def test_the_match_page_shows_them_to_the_seats_owner_and_staff_only(
    match: Match, alice: Any, bob: Any, carol: Any, client: Any
) -> None:
    for who, user, readable in readers(alice, bob, carol):
        client.logout()
        if user is not None:
            client.force_login(user)
        response = client.get(f"/matches/{match.pk}/")
        assert response.status_code == 200
        # The page may show less than the log, never more.
        for seat, secret in enumerate(SECRETS):
            if seat not in readable:
                assert json.dumps(secret)[1:-1].encode() not in response.content, (who, seat)
                assert secret.replace("'", "&#x27;").encode() not in response.content


def test_the_live_feed_of_a_game_in_play_carries_no_notes_or_stderr(tmp_path: Path) -> None:
    """The live feed publishes the engine's events as the referee plays: the bots' debug
    output is the referee's, never an event."""
    (tmp_path / "noter.py").write_text(NOTER)
    bots = [
        BotSpec(name="noter", bot_dir=tmp_path, main="noter.py", trusted=True, env={"SECRET": s})
        for s in SECRETS
    ]
    live = LivePublisher(feed="privacy-test", attempt=1, interval_s=0)
    with Referee(bots, on_progress=live) as played:
        record = played.play(describe("cardgame", 2), 6, [0, 1])
    assert all(seat["trace"] for seat in record.moves_log["referee"]["seats"])
    feed = live_read(feed="privacy-test")
    assert feed is not None and feed.events == game_logs.expand(record.moves_log)["events"]
    assert not any(secret in json.dumps(feed.events) for secret in SECRETS)


def test_a_league_bundle_shows_them_to_the_seats_owner_and_staff_only(
    ladder: Ladder, versions: list[BotVersion], alice: Any, bob: Any, carol: Any, tmp_path: Path
) -> None:
    """Each game of the league played by the real referee between the noting bots."""
    start = datetime(2031, 3, 1, 18, 0, tzinfo=UTC)
    league = league_create(
        organiser=carol,
        ladder=ladder,
        bots=[version.bot for version in versions],
        name="Spring cup",
        slug="spring",
        format=LeagueFormat.ROUND_ROBIN,
        start_at=start,
        round_interval=timedelta(days=1),
        now=start - timedelta(days=1),
    )
    league_advance(league=league, now=start)
    games = list(LeagueGame.objects.filter(fixture__round__league=league, status="queued"))
    assert games
    (tmp_path / "noter.py").write_text(NOTER)
    bot_ids = [version.bot_id for version in versions]
    for game in games:
        match = game.match
        assert match is not None
        seated = [row.entry.bot_id for row in game.seats.order_by("seat")]
        bots = [
            BotSpec(
                name=f"noter {seat}",
                bot_dir=tmp_path,
                main="noter.py",
                trusted=True,
                env={"SECRET": SECRETS[bot_ids.index(bot)]},
            )
            for seat, bot in enumerate(seated)
        ]
        (record,) = play_series(bots, [(describe("classic", 2), match.seed)])
        outcomes = [
            SeatOutcome(seat=row["seat"], money=row["money"], rank=row["rank"])
            for row in record.result
        ]
        log = json.dumps(record.moves_log).encode()
        match_finish(match=match_start(match=match), outcomes=outcomes, game_log=log)
    for who, user, readable in readers(alice, bob, carol):
        if user is None:
            continue  # bundles are for signed-in players
        archive = zipfile.ZipFile(io.BytesIO(b"".join(league_bundle(league=league, user=user))))
        members = [name for name in archive.namelist() if name.startswith("logs/")]
        assert len(members) == len(games), who
        # The fixtures and the table name each bot's owner beside its name.
        fixtures = json.loads(archive.read("fixtures.json"))
        seated = [seat for table in fixtures for game in table["games"] for seat in game["seats"]]
        assert {(s["bot"], s["owner"]) for s in seated} == {("shark", "alice"), ("turtle", "bob")}
        summary = json.loads(archive.read("league.json"))
        assert {(s["bot"], s["owner"]) for s in summary["standings"]} == {
            ("shark", "alice"),
            ("turtle", "bob"),
        }
        for name in members:
            # SECRETS[i] is the secret of versions[i]'s bot, wherever it sat.
            check_body(archive.read(name), readable, who)
            stored = json.loads(archive.read(name))
            validator("referee-log").validate(stored["referee"])
            assert {seat["owner"] for seat in stored["referee"]["seats"]} == {"alice", "bob"}
            traced = [seat for seat in stored["referee"]["seats"] if "trace" in seat]
            assert len(traced) == len(readable), who
