"""Hostile bots through the platform: every attack of tests/bots_sdk/hostile in a real
match played by the platform's match service (sandbox, referee, storage, ratings).

Whatever the attacker does, the match finishes, the attacker's seat forfeits
with the referee's exact fault kind (the API's forfeit and the log's agree),
the other seat plays on, and the ratings change once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from arena.ladders.flows import ladder_create
from arena.ladders.models import RatingChange
from arena.ladders.services import ratings_apply
from arena.matches.models import Match, MatchStatus
from arena.matches.services import match_create
from tests.bots_sdk.test_hostile_games import CASES, LIMITS, Case
from tests.platform.ladders.test_match_pipeline import house_bot, player_bot
from tests.platform.scenes import on_ladder, publish_match, run_match
from tests.platform.worker import needs_redis, needs_shared_database, redis_worker, wait_for

HOSTILE = Path(__file__).resolve().parents[2] / "bots_sdk" / "hostile"
#: The attacks that fault, under the limits a ladder can set (the others keep to the rules).
ATTACKS = [case for case in CASES if case.kind is not None and case.limits == LIMITS]

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


@pytest.mark.parametrize("case", ATTACKS, ids=[case.bot for case in ATTACKS])
def test_a_hostile_bot_forfeits_its_seat_and_the_match_is_rated_once(
    case: Case, alice: Any, house: Any, django_capture_on_commit_callbacks: Any
) -> None:
    ladder = ladder_create(
        slug="hostile",
        name="Hostile",
        rules="classic",
        seats=2,
        time_per_decision_ms=LIMITS.decision_ms,
        time_bank_ms=LIMITS.bank_ms,
        memory_mb=LIMITS.memory_bytes // 2**20,
    )
    attacker = player_bot(alice, "attacker", (HOSTILE / f"game_{case.bot}.py").read_bytes())
    seats = [house_bot(house, "greedy"), attacker]
    if case.seat == 0:
        seats.reverse()
    match = publish_match(match_create(**on_ladder(ladder), versions=seats))

    with django_capture_on_commit_callbacks(execute=True):
        match = run_match(match)

    assert match.status == MatchStatus.FINISHED, match.error
    shown = {
        p["bot"]: p for p in APIClient().get(f"/api/matches/{match.pk}/").json()["participants"]
    }
    log = APIClient().get(f"/api/matches/{match.pk}/log/").json()
    fault = log["referee"]["seats"][case.seat]["fault"]
    assert shown["attacker"]["forfeit"] == fault["kind"] == case.kind.value  # type: ignore[union-attr]
    assert (shown["greedy"]["forfeit"], shown["attacker"]["rank"]) == ("", 2)
    assert RatingChange.objects.filter(match=match).count() == 2
    assert ratings_apply(match=match) == []  # once only


@pytest.mark.parametrize("bot", ["deep_json", "long_int", "deep_ready", "long_int_ready"])
def test_a_hostile_line_in_the_preflight_fails_the_version_never_sticks_it(
    bot: str, alice: Any, django_capture_on_commit_callbacks: Any
) -> None:
    from arena.bots.models import VersionStatus
    from arena.ladders.flows import bot_submit

    ladder = ladder_create(slug="classic-2", name="Classic 2", rules="classic", seats=2)
    with django_capture_on_commit_callbacks(execute=True):
        version = bot_submit(
            owner=alice,
            name="attacker",
            filename="attacker.py",
            content=(HOSTILE / f"game_{bot}.py").read_bytes(),
            ladders=[ladder],
        )
    version.refresh_from_db()
    assert version.status == VersionStatus.FAILED
    fault = version.validation_report["games"]["classic-2"]["fault"]
    assert fault["cause"] == ("bad_handshake" if bot.endswith("ready") else "garbage")


@needs_shared_database
@needs_redis
@pytest.mark.django_db(transaction=True)
def test_hostile_bots_in_matches_played_by_a_real_worker(
    alice: Any, house: Any, settings: Any, media_root: Path, tmp_path: Path
) -> None:
    attacks = {"deep_json": "garbage", "early_answer": "garbage", "long_int": "garbage"}
    ladder = ladder_create(slug="hostile", name="Hostile", rules="classic", seats=2)
    greedy = house_bot(house, "greedy")
    with redis_worker(tmp_path, media_root):
        matches = {
            bot: publish_match(
                match_create(
                    **on_ladder(ladder),
                    versions=[
                        greedy,
                        player_bot(alice, bot, (HOSTILE / f"game_{bot}.py").read_bytes()),
                    ],
                )
            )
            for bot in attacks
        }

        def rated() -> bool:
            done = Match.objects.filter(pk__in=[m.pk for m in matches.values()])
            return all(m.status == MatchStatus.FINISHED and m.rated_at for m in done)

        wait_for(rated, timeout=90, what="the worker to play and rate the hostile matches")
    for bot, match in matches.items():
        attacker = match.participants.get(seat=1)
        assert (attacker.forfeit, attacker.rank) == (attacks[bot], 2), bot
        assert RatingChange.objects.filter(match=match).count() == 2
