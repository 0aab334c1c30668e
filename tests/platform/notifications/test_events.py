"""Events told by the real flows: a pre-flight decided, a challenge finished, a league round
closed, a level beating a bot for the first time. Bots play in the sandbox (pre-flights,
challenges); the league's games are recorded as a worker would."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.core import mail

from arena.ladders.flows import bot_submit, challenge_create, ladder_create
from arena.ladders.models import Ladder
from arena.ladders.tasks import ratings_apply_match
from arena.leagues.tasks import leagues_advance
from arena.notifications.models import Notification
from bots_sdk.levels import LEVELS
from tests.platform.factories import BotVersionFactory, LadderFactory, finished_match
from tests.platform.ladders.test_challenges import playing
from tests.platform.leagues.test_leagues import T0, create, make_bots, play_round
from tests.platform.worker import GOOD_BOT

pytestmark = pytest.mark.django_db


@pytest.fixture
def duel(db: None) -> Ladder:
    return ladder_create(slug="classic-2", name="Classic, 2 seats", rules="classic", seats=2)


def subjects() -> list[str]:
    return [m.subject.removeprefix("[Las Vegas Arena] ") for m in mail.outbox]


def test_an_upload_tells_its_author_the_pre_flight_passed_or_failed(
    alice: Any, duel: Ladder, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        good = bot_submit(
            owner=alice, name="shark", filename="shark.py", content=GOOD_BOT, ladders=[duel]
        )
    assert subjects() == ["shark v1 passed its pre-flight"]
    assert "- Classic, 2 seats: passed, it plays there now." in mail.outbox[0].body
    note = Notification.objects.get()
    assert note.payload["ladders"] == {"classic-2": "passed"}
    assert note.payload["version"] == good.pk

    with django_capture_on_commit_callbacks(execute=True):
        bot_submit(
            owner=alice,
            name="wreck",
            filename="wreck.py",
            content=b"raise SystemExit(3)\n",
            ladders=[duel],
        )
    assert subjects()[1] == "wreck v1 failed its pre-flight"
    assert re.search(r"- Classic, 2 seats: failed \(.+\)\.", mail.outbox[1].body)


def test_a_finished_challenge_is_told_to_who_asked(
    alice: Any, bob: Any, duel: Ladder, django_capture_on_commit_callbacks: Any
) -> None:
    shark = playing(alice, "shark", duel)
    turtle = playing(bob, "turtle", duel)
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        challenge = challenge_create(
            user=alice, bot=shark.bot, ladder=duel, opponents=[turtle.bot], games=2
        )
    (message,) = mail.outbox  # once, for both games: told when the last one is over
    assert message.to == ["alice@example.org"]
    assert re.fullmatch(
        r"\[Las Vegas Arena\] Challenge on Classic, 2 seats finished: shark v1 won [0-2] of 2",
        message.subject,
    )
    note = Notification.objects.get(key=f"challenge:{challenge.pk}")
    assert [g["status"] for g in note.payload["games"]] == ["finished", "finished"]
    assert f"/challenges/{challenge.pk}/" in message.body


def test_a_closed_league_round_is_told_to_each_entrant_s_owner(
    alice: Any, bob: Any, carol: Any, django_capture_on_commit_callbacks: Any
) -> None:
    ladder = LadderFactory(slug="classic-4", rules="classic", seats=4)
    league = create(carol, ladder, make_bots(alice, 2, "a") + make_bots(bob, 2, "b"))
    # Starts: round 1's games queued (their runs left unpublished: played below by hand).
    leagues_advance.delay(T0.isoformat())
    assert not Notification.objects.exists()
    play_round(league, 1)
    with django_capture_on_commit_callbacks(execute=True):
        leagues_advance.delay((T0 + timedelta(seconds=10)).isoformat())  # collects, closes
        leagues_advance.delay((T0 + timedelta(seconds=20)).isoformat())  # nothing new
    rounds = league.rounds.count()
    assert sorted((m.to[0], m.subject) for m in mail.outbox) == [
        (f"{who}@example.org", f"[Las Vegas Arena] Spring cup: round 1 of {rounds} closed")
        for who in ("alice", "bob")
    ]
    body = next(m.body for m in mail.outbox if m.to == ["alice@example.org"])
    assert re.search(r"After it: a\d \d of 4 \([\d.]+ points\), a\d \d of 4", body), body
    assert "/leagues/spring/" in body
    note = Notification.objects.get(user=bob)
    assert note.payload["round"] == 1 and {s["bot_name"] for s in note.payload["standings"]} == {
        "b0",
        "b1",
    }


def test_a_level_beating_a_bot_is_told_the_first_time_only(
    alice: Any, house: Any, django_capture_on_commit_callbacks: Any
) -> None:
    ladder = LadderFactory(slug="classic-2", rules="classic", seats=2)
    level = LEVELS[0]
    level_version = BotVersionFactory(bot__owner=house, bot__name=level.bot)
    mine = BotVersionFactory(bot__owner=alice, bot__name="shark")

    def rated_game(ranks: list[int]) -> None:
        match = finished_match(ladder, [mine, level_version], ranks, rated=True)
        with django_capture_on_commit_callbacks(execute=True):
            ratings_apply_match.delay(match.pk)

    rated_game([1, 2])  # shark ahead: nothing to tell
    assert mail.outbox == []
    rated_game([2, 1])
    assert subjects() == [f"Level {level.number} ({level.title}) beat shark for the first time"]
    rated_game([2, 1])  # not the first time
    unrated = finished_match(ladder, [mine, level_version], [2, 1], rated=False)
    with django_capture_on_commit_callbacks(execute=True):
        ratings_apply_match.delay(unrated.pk)
    assert len(mail.outbox) == 1
    note = Notification.objects.get()
    assert (note.kind, note.payload["level"], note.payload["ladder"]) == (
        "level.beat",
        level.number,
        "classic-2",
    )
