"""The match page around the replay: the result table's order and the seats' faults.

The faults come from the referee's section of the stored log, as the match
runner stores it (bots_sdk.faults.Fault.to_json): only the owner of the
seat's bot, and staff, read one; everyone else sees the forfeit badge.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.db import transaction

from arena.ladders.models import Ladder
from arena.matches.models import ForfeitCause, Match
from arena.matches.outcomes import SeatOutcome
from arena.matches.services import match_create, match_finish, match_start
from bots_sdk.faults import Fault, FaultKind
from tests.platform.factories import BotFactory, BotVersionFactory, LadderFactory, finished_match
from tests.platform.scenes import engine_log, play_match, publish_match
from tests.platform.web.test_web import client_for, replay_data, text_of
from vegas_engine.log import dumps
from vegas_engine.rules.royale import ROYALE_RULES

pytestmark = pytest.mark.django_db

# The request bob's bot ran out of time on (its observation cut down to what the page shows).
SLOW_REQUEST = {
    "type": "request",
    "id": 17,
    "game_id": 1,
    "observation": {
        "rules": "classic",
        "seat": 1,
        "round": 2,
        "legal_actions": ["place 3", "place 5"],
    },
    "time_left_ms": 0,
    "bank_left_ms": 0,
}


def forfeited_match(ladder: Ladder, versions: list[Any], seed: int, *, seat: int) -> Match:
    """A finished match of a real game in which ``seat`` ran out of its time bank."""
    log = engine_log(ladder, seed)
    fault = Fault(
        kind=FaultKind.TIME_BANK,
        message="the decision took 10,412 ms; 9,870 ms were left of the time bank",
        game_id=1,
        request=SLOW_REQUEST,
        elapsed_ms=10412.0,
        stderr_tail="bob's bot is thinking hard\n",
    ).to_json()
    records = [
        {"seat": s, "player": s, "forfeited": s == seat, "fault": fault if s == seat else None}
        for s in range(ladder.seats)
    ]
    stored = {**log, "referee": {"protocol": 1, "seats": records}}
    outcomes = [
        SeatOutcome(
            seat=r["seat"],
            money=r["money"],
            rank=r["rank"],
            forfeit=ForfeitCause.TIMEOUT if r["seat"] == seat else None,
        )
        for r in log["events"][-1]["result"]
    ]
    with transaction.atomic():
        match = match_start(
            match=publish_match(
                match_create(ladder_id=ladder.pk, game=ladder.game, versions=versions, seed=seed)
            )
        )
        return match_finish(match=match, outcomes=outcomes, game_log=dumps(stored).encode())


def result_seats(response: Any) -> list[int]:
    """The seats of the result table's rows, top to bottom."""
    html = response.content.decode()
    table = html[html.index('<table class="table reflow results">') : html.index("</table>")]
    return [int(seat) for seat in re.findall(r'<tr data-seat="(\d+)">', table)]


def test_the_result_table_lists_the_seats_by_rank_ties_by_seat(alice: Any) -> None:
    ladder = LadderFactory(slug="classic-4", rules="classic", seats=4)
    versions = [BotVersionFactory(bot=BotFactory(owner=alice)) for _ in range(4)]
    match = finished_match(ladder, versions, ranks=[3, 1, 2, 1])
    assert result_seats(client_for().get(f"/matches/{match.pk}/")) == [1, 3, 2, 0]


def test_a_played_match_lists_its_winner_first(alice: Any, bob: Any) -> None:
    ladder = LadderFactory(slug="classic-3", rules="classic", seats=3)
    versions = [BotVersionFactory(bot=BotFactory(owner=o)) for o in (alice, bob, alice)]
    match, log = play_match(ladder, versions, 4)
    result = log["events"][-1]["result"]
    ranked = [r["seat"] for r in sorted(result, key=lambda r: (r["rank"], r["seat"]))]
    assert ranked != [0, 1, 2]  # the seed makes seat order and rank order differ
    assert result_seats(client_for().get(f"/matches/{match.pk}/")) == ranked


def test_the_owner_reads_the_seats_exact_fault_others_see_the_badge(
    alice: Any, bob: Any, carol: Any
) -> None:
    ladder = LadderFactory(slug="classic-2", rules="classic", seats=2)
    shark = BotVersionFactory(bot=BotFactory(owner=alice, name="shark"))
    turtle = BotVersionFactory(bot=BotFactory(owner=bob, name="turtle"))
    match = forfeited_match(ladder, [shark, turtle], 6, seat=1)
    detail = (
        "time_bank_exhausted",
        "the decision took 10,412 ms; 9,870 ms were left of the time bank",
        '"id": 17',  # the request it failed on
        "place 5",  # its legal actions
    )

    for owner in (bob, carol):  # the seat's owner, and staff
        response = client_for(owner).get(f"/matches/{match.pk}/")
        text = text_of(response)
        assert "forfeit: ran out of time" in text
        assert b'id="fault-seat-1"' in response.content
        for part in detail:
            assert part in text, (owner, part)
        assert b'id="fault-seat-0"' not in response.content  # seat 0 had no fault

    for other in (alice, None):  # the other player, and anyone
        response = client_for(other).get(f"/matches/{match.pk}/")
        text = text_of(response)
        assert "forfeit: ran out of time" in text  # the short badge only
        assert b"fault-seat-" not in response.content
        for part in detail:
            assert part not in text, (other, part)


def test_a_royale_replay_gets_the_worth_of_a_chip(alice: Any, bob: Any) -> None:
    ladder = LadderFactory(slug="royale-2", rules="royale", seats=2, options={"tiles": 3})
    versions = [BotVersionFactory(bot=BotFactory(owner=o)) for o in (alice, bob)]
    match, _ = play_match(ladder, versions, 1)
    data = replay_data(client_for().get(f"/matches/{match.pk}/"))
    assert data["chip_value"] == ROYALE_RULES.chip_value
    assert data["jackpot_start"] == ROYALE_RULES.tiles.jackpot_start
    classic, _ = play_match(LadderFactory(slug="classic-2"), versions, 1)
    assert "chip_value" not in replay_data(client_for().get(f"/matches/{classic.pk}/"))
