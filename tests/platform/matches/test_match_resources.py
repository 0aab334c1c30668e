"""Each seat's resources in a match's log (CPU from its cgroup, in each game of a series;
peak memory; time charged and time waited for a CPU), shown on the match page to the
bot's owner only. Real PostgreSQL, the sandbox, and logs the real referee wrote."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from arena.matches.models import Match, MatchStatus
from arena.matches.outcomes import SeatOutcome
from arena.matches.services import match_finish
from bots_sdk.launcher import house_bot
from bots_sdk.referee import GameRecord, play_series
from tests.platform.factories import (
    BotFactory,
    BotVersionFactory,
    LadderFactory,
    MatchFactory,
    ParticipantFactory,
)
from vegas_engine import describe

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def series() -> list[GameRecord]:
    """Two games of one sandboxed series: each bot's process plays both."""
    bots = [
        dataclasses.replace(house_bot(name), trusted=False) for name in ("greedy", "montecarlo")
    ]
    records = play_series(bots, [(describe("classic", 2), 3), (describe("classic", 2), 4)])
    assert not [record.faults for record in records if record.faults]
    return records


def stored(record: GameRecord, alice: Any, bob: Any) -> Match:
    started = MatchFactory(
        ladder=LadderFactory(slug="classic-2"),
        seed=record.seed,
        status=MatchStatus.RUNNING,
        attempts=1,
        started_at=timezone.now(),
    )
    for seat, owner in enumerate((alice, bob)):
        version = BotVersionFactory(bot=BotFactory(owner=owner, name=f"bot-{owner.username}"))
        ParticipantFactory(match=started, seat=seat, bot_version=version)
    outcomes = [
        SeatOutcome(seat=r["seat"], money=r["money"], rank=r["rank"]) for r in record.result
    ]
    return match_finish(
        match=started, outcomes=outcomes, game_log=json.dumps(record.moves_log).encode()
    )


def test_every_sandboxed_seat_logs_its_cpu_memory_and_time_in_each_game(
    series: list[GameRecord],
) -> None:
    first, second = ({s["name"]: s for s in r.log["referee"]["seats"]} for r in series)
    for game in (first, second):
        for seat in game.values():
            used = seat["resources"]
            assert used["cpu_seconds"] > 0 and used["memory_peak_bytes"] > 0
            assert used["pids_peak"] >= 1 and used["cpu_wait_ms"] is not None
            assert used["charged_ms"] >= sum(seat["decision_ms"]) - 0.01
    # A game's CPU is that game's: montecarlo searches at every decision, greedy does not.
    assert (
        first["montecarlo"]["resources"]["cpu_seconds"]
        > first["greedy"]["resources"]["cpu_seconds"]
    )
    # The second game is charged no start-up: its process was running already.
    assert all(seat["startup_ms"] is None for seat in second.values())
    assert all(seat["startup_ms"] is not None for seat in first.values())


def test_the_match_page_shows_a_seats_resources_to_its_owner_only(
    series: list[GameRecord], alice: Any, bob: Any, carol: Any
) -> None:
    match = stored(series[0], alice, bob)
    seats = {s["seat"]: s for s in series[0].log["referee"]["seats"]}

    def page(user: Any) -> str:
        client = Client()
        if user is not None:
            client.force_login(user)
        response = client.get(f"/matches/{match.pk}/")
        assert response.status_code == 200
        return response.content.decode()

    alices = page(alice)
    assert "Your bots' resources" in alices
    row = alices[alices.index('id="seat-resources"') :]
    cpu = seats[0]["resources"]["cpu_seconds"]
    assert f"{cpu:.3f} s" in row and "Waited for a CPU" in row
    assert (
        'data-seat="0"' in row.split("</table>")[0]
        and 'data-seat="1"' not in row.split("</table>")[0]
    )
    for other in (carol, None):
        assert "Your bots' resources" not in page(other)
