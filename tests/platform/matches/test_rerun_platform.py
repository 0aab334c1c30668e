"""``rerun`` against the platform: a match's address and the owner's API token fetch the
log with the seat's bot seed over real HTTP (the live server), and the match page
gives its owner the command. Real PostgreSQL, and a log the real referee wrote."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.authtoken.models import Token

from arena.bots.models import BotVersion
from arena.matches.models import Match, MatchStatus
from arena.matches.outcomes import SeatOutcome
from arena.matches.services import match_finish
from bots_sdk.launcher import BotSpec
from bots_sdk.referee import play_series
from bots_sdk.rerun import RerunError, read_log, rerun
from tests.platform.factories import (
    BotFactory,
    BotVersionFactory,
    LadderFactory,
    MatchFactory,
    ParticipantFactory,
)
from vegas_engine import describe

pytestmark = pytest.mark.django_db(transaction=True)

#: Seeded by its bot seed: it answers the same only when rerun with the seat's own seed.
SEEDED = """\
from bots_sdk import Bot, run


class Seeded(Bot):
    def act(self, observation):
        legal = observation["legal_actions"]
        return legal[self.rng.randrange(len(legal))]


if __name__ == "__main__":
    run(Seeded)
"""


@pytest.fixture
def seeded(tmp_path: Path) -> BotSpec:
    (tmp_path / "seeded.py").write_text(SEEDED)
    return BotSpec(name="seeded", bot_dir=tmp_path, main="seeded.py", trusted=True)


@pytest.fixture
def match(alice: Any, bob: Any, seeded: BotSpec) -> Match:
    """A finished match of a real game between two seeded bots: alice's shark at seat 0."""
    versions: list[BotVersion] = [
        BotVersionFactory(bot=BotFactory(owner=alice, name="shark")),
        BotVersionFactory(bot=BotFactory(owner=bob, name="turtle")),
    ]
    (record,) = play_series([seeded, seeded], [(describe("classic", 2), 7)])
    assert not record.faults
    started = MatchFactory(
        ladder=LadderFactory(slug="classic-2"),
        seed=7,
        status=MatchStatus.RUNNING,
        attempts=1,
        started_at=timezone.now(),
    )
    for seat, version in enumerate(versions):
        ParticipantFactory(match=started, seat=seat, bot_version=version)
    outcomes = [
        SeatOutcome(seat=r["seat"], money=r["money"], rank=r["rank"]) for r in record.result
    ]
    log = json.dumps(record.moves_log).encode()
    return match_finish(match=started, outcomes=outcomes, game_log=log)


def test_the_owner_reruns_a_match_by_its_address(
    live_server: Any, match: Match, alice: Any, bob: Any, seeded: BotSpec
) -> None:
    address = f"{live_server.url}/matches/{match.pk}/"
    mine = read_log(address, token=Token.objects.create(user=alice).key)
    result = rerun(mine, 0, seeded)
    assert result.same
    assert result.compared > 5
    # Bob's download of the same match has no bot seed for alice's seat.
    theirs = read_log(address, token=Token.objects.create(user=bob).key)
    assert "bot_seed" not in theirs["referee"]["seats"][0]
    with pytest.raises(RerunError, match="download the log as the owner"):
        rerun(theirs, 0, seeded)
    assert rerun(theirs, 1, seeded).same  # his own seat


def test_a_bad_token_or_address_says_what_to_change(live_server: Any, match: Match) -> None:
    with pytest.raises(RerunError, match="HTTP 401 the token is not valid"):
        read_log(f"{live_server.url}/matches/{match.pk}/", token="not-a-token")
    with pytest.raises(RerunError, match="HTTP 404"):
        read_log(f"{live_server.url}/matches/{match.pk + 1000}/", token=None)


def test_the_match_page_gives_the_owner_the_command(match: Match, alice: Any, bob: Any) -> None:
    client = Client()
    client.force_login(alice)
    page = client.get(f"/matches/{match.pk}/").content.decode()
    assert f"/matches/{match.pk}/ --seat 0 path/to/your/bot" in page
    assert "python -m bots_sdk rerun http://testserver/matches/" in page
    assert "--seat 1" not in page
    client.force_login(bob)
    page = client.get(f"/matches/{match.pk}/").content.decode()
    assert f"/matches/{match.pk}/ --seat 1 path/to/your/bot" in page
    assert "--seat 0" not in page
    assert "bots_sdk rerun" not in Client().get(f"/matches/{match.pk}/").content.decode()
