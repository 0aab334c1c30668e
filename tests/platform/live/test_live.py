"""Games followed as they are played: the live feeds, and a running match's events on the API.

The end-to-end test plays a real match in a thread of this process (the
referee, a house bot and a slow uploaded bot in the sandbox) while the test
polls ``/api/matches/<id>/events/`` as the match page does.
"""

from __future__ import annotations

import json
import threading
import time
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from arena.ladders.flows import ladder_create
from arena.live.models import LiveChunk
from arena.live.selectors import live_read
from arena.live.services import LivePublisher, live_drop, live_sweep
from arena.matches.games import MatchGame
from arena.matches.models import Match, MatchStatus, match_feed
from arena.matches.selectors import match_live_read
from arena.matches.services import match_create, match_create_deal, match_start
from tests.platform.ladders.test_match_pipeline import house_bot, player_bot, stored_log
from tests.platform.scenes import run_match
from tests.platform.worker import needs_concurrent_writes, protocol_bot
from vegas_engine import log as game_logs

EVENTS = [{"type": "round_start", "round": 1, "start_player": 0}] + [
    {"type": "roll", "seat": n % 2, "dice": {"die": [n % 6 + 1]}} for n in range(9)
]
# Sleeps before each answer, in the sandbox: the match lasts a few seconds.
SLOW_BOT = protocol_bot(before="time.sleep(0.08)")


@pytest.mark.django_db
def test_a_publisher_writes_the_new_events_at_most_every_interval() -> None:
    publisher = LivePublisher(feed="match:1", attempt=1, interval_s=3600)
    publisher.show(EVENTS[:3])  # within the first interval: a game over sooner writes nothing
    assert not LiveChunk.objects.exists()
    publisher.flush()  # what is due: everything so far, now
    publisher.show(EVENTS[:6])  # within the interval again: kept for later
    assert list(LiveChunk.objects.values_list("start", "end")) == [(0, 3)]
    publisher.flush()
    assert list(LiveChunk.objects.order_by("start").values_list("start", "end")) == [
        (0, 3),
        (3, 6),
    ]
    publisher.flush()  # nothing new: nothing written
    assert LiveChunk.objects.count() == 2
    read = live_read(feed="match:1", since=2)
    assert read is not None
    assert (read.attempt, read.since, read.total, read.events) == (1, 2, 6, EVENTS[2:6])
    assert live_read(feed="match:2") is None


@pytest.mark.django_db
def test_a_new_attempt_starts_the_feed_again_and_a_drop_or_the_sweep_ends_it() -> None:
    first = LivePublisher(feed="match:1", attempt=1, interval_s=0)
    first.show(EVENTS)
    again = LivePublisher(feed="match:1", attempt=2, interval_s=0)
    again.show(EVENTS[:2])
    read = live_read(feed="match:1", since=5)  # a reader of attempt 1, 5 events in
    assert read is not None and (read.attempt, read.total, read.events) == (2, 2, [])
    assert live_read(feed="match:1") == type(read)(attempt=2, since=0, total=2, events=EVENTS[:2])
    LivePublisher(feed="table:1", attempt=1, interval_s=0).show(EVENTS)
    assert live_drop(feed="match:1") == 1 and live_read(feed="match:1") is None
    LiveChunk.objects.update(created_at=timezone.now() - timedelta(hours=25))
    assert live_sweep(older_than=timedelta(hours=24)) == 1
    assert not LiveChunk.objects.exists()


@pytest.mark.django_db
def test_a_running_deal_game_shows_nothing_while_another_game_of_its_deal_is_to_play(
    alice: Any, house: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    ladder = ladder_create(slug="classic-2", name="Classic", rules="classic", seats=2)
    versions = [house_bot(house, "greedy"), house_bot(house, "random")]
    game = MatchGame.of(ladder)
    single = match_start(match=match_create(ladder_id=ladder.pk, game=game, versions=versions))
    first, second = match_create_deal(ladder_id=ladder.pk, game=game, versions=versions)
    first = match_start(match=first)
    for match in (single, first):
        LivePublisher(feed=match_feed(match.pk), attempt=1, interval_s=0).show(EVENTS)
    shown = match_live_read(match=single, since=0)
    assert shown is not None and shown.events == EVENTS
    # Game 2 rolls the same dice: game 1's events stay hidden until it is played.
    assert match_live_read(match=first, since=0) is None
    Match.objects.filter(pk=second.pk).update(status=MatchStatus.CANCELLED)
    assert match_live_read(match=first, since=0) is not None
    second.status = MatchStatus.QUEUED
    assert match_live_read(match=second, since=0) is None  # not running: nothing


@needs_concurrent_writes
@pytest.mark.django_db(transaction=True)
def test_a_running_match_shows_its_events_as_they_are_played_then_its_log(
    alice: Any, house: Any, monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    settings.ARENA_LIVE_PUBLISH_MS = 200
    ladder = ladder_create(slug="classic-2", name="Classic", rules="classic", seats=2)
    versions = [house_bot(house, "greedy"), player_bot(alice, "slow", SLOW_BOT)]
    match = match_create(ladder_id=ladder.pk, game=MatchGame.of(ladder), versions=versions)

    def play() -> None:
        try:
            run_match(match)
        finally:
            connection.close()

    player = threading.Thread(target=play, daemon=True)
    player.start()
    client = APIClient()
    seen: list[dict[str, Any]] = []
    totals = []
    body: dict[str, Any] = {}
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        body = client.get(f"/api/matches/{match.pk}/events/?since={len(seen)}").json()
        if body["status"] == MatchStatus.FINISHED:
            break
        if body["live"]:
            assert body["since"] == len(seen)
            seen.extend(body["events"])
            totals.append(body["total"])
        time.sleep(0.05)
    player.join(timeout=30)
    assert body["status"] == MatchStatus.FINISHED and body["live"] is False
    assert body["events"] == [] and body["attempt"] is None
    # It grew while the match was played, and every event seen is the log's, in order.
    # A poll may see the whole game live: the last publish lands before the status flips.
    assert len(set(totals)) >= 3 and totals == sorted(totals)
    log = stored_log(Match.objects.get(pk=match.pk))
    events = game_logs.expand(json.loads(log))["events"]
    assert 0 < len(seen) <= len(events) and seen == events[: len(seen)]
    assert not LiveChunk.objects.exists()  # the stored log replaced the feed
