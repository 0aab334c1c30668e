"""Challenges of a version against its parent: both play as they are, in duplicate deals
where the ladder plays them, for real in the sandbox; the verdict counts the results."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.test import Client

from arena.bots.models import BotVersion, VersionStatus
from arena.bots.selectors import bot_versions
from arena.bots.services import bot_version_upload
from arena.ladders.flows import ladder_create, version_challenge_create
from arena.ladders.models import Challenge, Ladder, RatingChange
from arena.ladders.selectors import bot_ratings, bot_verdicts
from arena.ladders.services.challenges import ChallengeError, ChallengeQuotaError
from arena.matches.models import Match, MatchStatus, Participant
from tests.platform.api_support import client_for
from tests.platform.factories import BotVersionFactory, RatingFactory
from tests.platform.ladders.test_match_pipeline import activate, player_bot
from tests.platform.scenes import enter, never_run
from tests.platform.web.test_web import text_of
from tests.platform.worker import GOOD_BOT, protocol_bot

pytestmark = pytest.mark.django_db

#: v2 of the shark: plays the last legal action where v1 plays the first.
SHARK_V2 = protocol_bot(decide="legal[-1]")


@pytest.fixture
def duel() -> Ladder:
    """A 2-seat ladder: duplicate deals, as new 2-seat ladders play."""
    ladder = ladder_create(slug="classic-2", name="Classic, 2 seats", rules="classic", seats=2)
    assert ladder.duplicate_deals
    return ladder


def shark(owner: Any, ladder: Ladder) -> tuple[BotVersion, BotVersion]:
    """Alice's shark, v1 then v2 (v1 retired by the upload), both qualified on ``ladder``."""
    v1 = player_bot(owner, "shark", GOOD_BOT)
    enter(v1, ladder)
    v2 = activate(bot_version_upload(bot=v1.bot, filename="shark.py", content=SHARK_V2))
    enter(v2, ladder)
    v1.refresh_from_db()
    assert (v1.status, v2.parent_id) == (VersionStatus.RETIRED, v1.pk)
    return v1, v2


def test_v2_meets_its_retired_parent_in_duplicate_deals_and_the_verdict_counts_them(
    alice: Any, duel: Ladder, django_capture_on_commit_callbacks: Any
) -> None:
    v1, v2 = shark(alice, duel)

    with django_capture_on_commit_callbacks(execute=True):
        challenge = version_challenge_create(user=alice, version=v2, ladder=duel, games=4)

    assert list(challenge.opponent_versions.all()) == [v1]
    assert (challenge.bot_version, challenge.games) == (v2, 4)
    matches = list(challenge.matches.order_by("series_game"))
    assert [m.status for m in matches] == [MatchStatus.FINISHED] * 4
    assert not any(m.rated for m in matches) and not RatingChange.objects.exists()
    # Two deals of two games, each seed from both seats; one series, lane by lane.
    assert len({m.deal_id for m in matches}) == 2 and len({m.seed for m in matches}) == 2
    assert {m.series_id for m in matches} == {matches[0].pk}
    seats = Participant.objects.filter(match__in=matches)
    # The retired parent itself sat at the table, at both seats of each deal, and played clean.
    assert {(p.match_id, p.bot_version_id) for p in seats} == {
        (m.pk, v) for m in matches for v in (v1.pk, v2.pk)
    }
    assert {p.seat for p in seats if p.bot_version_id == v1.pk} == {0, 1}
    assert not any(p.forfeit for p in seats)
    v1.refresh_from_db()
    assert v1.status == VersionStatus.RETIRED

    [found] = bot_verdicts(
        versions=list(bot_versions(bot=v2.bot)), ratings=list(bot_ratings(bot=v2.bot))
    )
    assert (found.ladder, found.version, found.parent) == (duel, v2, v1)
    assert (found.verdict.version_units, found.verdict.parent_units) == (2, 2)
    assert found.challengeable


def test_other_seats_go_to_the_ladder_s_players_drawn_anew_for_each_deal(
    alice: Any, bob: Any, carol: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.ladders import tasks

    never_run(monkeypatch, tasks.match_run)
    table = ladder_create(
        slug="classic-3", name="Classic 3", rules="classic", seats=3, duplicate_deals=True
    )
    v1, v2 = shark(alice, table)
    others = set()
    for owner in (bob, carol):
        version = player_bot(owner, f"bot-{owner.username}", GOOD_BOT)
        enter(version, table)
        others.add(version.pk)
    mine = player_bot(alice, "mine", GOOD_BOT)  # another of Alice's bots plays there too
    enter(mine, table)

    challenge = version_challenge_create(
        user=alice, version=v2, ladder=table, games=9, rng=random.Random(2)
    )

    deals: dict[int, set[int]] = {}
    for match in challenge.matches.all():
        assert match.deal_id is not None and match.series_id is None
        deals.setdefault(match.deal_id, set()).update(
            match.participants.values_list("bot_version_id", flat=True)
        )
    assert len(deals) == 3
    for seated in deals.values():
        assert {v1.pk, v2.pk} < seated and len(seated) == 3 and seated - {v1.pk, v2.pk} <= others
    assert len({frozenset(s) for s in deals.values()}) == 2  # drawn anew per deal


def test_the_default_is_a_ladder_s_series_within_the_challenge_maximum(
    alice: Any, duel: Ladder, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.ladders import tasks

    never_run(monkeypatch, tasks.match_run)
    _, v2 = shark(alice, duel)
    # A series of 6 deals is 12 games, over the maximum of 10: 5 deals.
    assert version_challenge_create(user=alice, version=v2, ladder=duel).games == 10


@pytest.mark.parametrize(
    ("case", "words"),
    [
        ("not yours", "shark is not your bot"),
        ("no parent", "shark v1 has no parent version to meet"),
        ("never qualified", "no version of shark before v2 passed the pre-flight of classic-2"),
        ("named, never qualified", "shark v1 never passed the pre-flight of classic-2"),
        ("failed", "shark v1 is failed: only versions that passed validation"),
        ("odd", "classic-2 plays duplicate deals of 2 games .*a multiple of 2, not 3"),
        ("too many", "ask for 1 to 10 games, not 12"),
        ("closed", "classic-2 is closed"),
    ],
)
def test_a_version_challenge_that_cannot_be_played_says_why(
    alice: Any, bob: Any, duel: Ladder, case: str, words: str
) -> None:
    v1, v2 = shark(alice, duel)
    kwargs: dict[str, Any] = {"user": alice, "version": v2, "ladder": duel, "games": 2}
    if case == "not yours":
        kwargs["user"] = bob
    elif case == "no parent":
        kwargs["version"] = v1
    elif case == "never qualified":
        v1.qualifications.all().delete()
    elif case == "named, never qualified":
        v1.qualifications.all().delete()
        kwargs["opponent"] = v1
    elif case == "failed":
        BotVersion.objects.filter(pk=v1.pk).update(status=VersionStatus.FAILED)
        kwargs["opponent"] = BotVersion.objects.get(pk=v1.pk)
    elif case == "odd":
        kwargs["games"] = 3
    elif case == "too many":
        kwargs["games"] = 12
    elif case == "closed":
        Ladder.objects.filter(pk=duel.pk).update(is_open=False)
        duel.refresh_from_db()
    with pytest.raises(ChallengeError, match=words):
        version_challenge_create(**kwargs)
    assert not Match.objects.exists() and not Challenge.objects.exists()


def test_version_challenges_share_the_hourly_quota(
    alice: Any, duel: Ladder, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.ladders import tasks

    never_run(monkeypatch, tasks.match_run)
    settings.ARENA_CHALLENGE_GAMES_PER_HOUR = 6
    _, v2 = shark(alice, duel)
    version_challenge_create(user=alice, version=v2, ladder=duel, games=4)
    with pytest.raises(ChallengeQuotaError, match="4 challenge games in the last hour"):
        version_challenge_create(user=alice, version=v2, ladder=duel, games=4)
    assert Challenge.objects.count() == 1 and Match.objects.count() == 4


def test_a_parent_of_another_owner_is_refused(alice: Any, bob: Any, duel: Ladder) -> None:
    _, v2 = shark(alice, duel)
    theirs = BotVersionFactory(bot__owner=bob)
    with pytest.raises(ChallengeError, match="is not your bot's version"):
        version_challenge_create(user=alice, version=v2, ladder=duel, opponent=theirs, games=2)


# --------------------------------------------------------------------------- the API and the page


def test_the_api_asks_for_a_version_challenge_and_reads_the_verdicts(
    alice: Any, bob: Any, duel: Ladder, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.ladders import tasks

    never_run(monkeypatch, tasks.match_run)
    v1, v2 = shark(alice, duel)
    api = client_for(alice)

    answer = api.post(
        "/api/challenges/",
        {"bot": v2.bot_id, "ladder": "classic-2", "version": 2, "games": 4},
        format="json",
    )
    assert answer.status_code == 201, answer.content
    body = answer.json()
    assert body["version"] == 2 and body["games"] == 4
    assert body["opponent_versions"] == [
        {"bot_id": v1.bot_id, "bot": "shark", "owner": "alice", "team": None, "number": 1}
    ]
    challenge = Challenge.objects.get(pk=body["id"])
    assert set(
        Participant.objects.filter(match__in=challenge.matches.all()).values_list(
            "bot_version_id", flat=True
        )
    ) == {v1.pk, v2.pk}

    for wrong, words in (
        ({"opponent_version": 1, "opponents": [v2.bot_id]}, "not both"),
        ({"version": 9}, "shark has no version 9"),
        ({"version": 1}, "shark v1 has no parent version to meet"),
    ):
        answer = api.post(
            "/api/challenges/", {"bot": v2.bot_id, "ladder": "classic-2", **wrong}, format="json"
        )
        assert answer.status_code == 400 and answer.json()["code"] == "challenge_invalid"
        assert words in answer.json()["detail"]

    RatingFactory(ladder=duel, bot_version=v1, rating=1620, rated_matches=40)
    # Ratings are public: anyone reads a public bot's verdicts; a private one's only its owner.
    for reader in (None, bob, alice):
        [line] = client_for(reader).get(f"/api/bots/{v2.bot_id}/verdicts/").json()
        assert (line["ladder"], line["version"], line["parent_version"]) == ("classic-2", 2, 1)
        assert line["kind"] == "too_few" and line["challengeable"] is True
    v2.bot.visibility = "private"
    v2.bot.save()
    assert client_for(bob).get(f"/api/bots/{v2.bot_id}/verdicts/").status_code == 404
    assert client_for(alice).get(f"/api/bots/{v2.bot_id}/verdicts/").status_code == 200


def test_the_owner_challenges_v2_against_v1_from_the_verdict_line(
    alice: Any, bob: Any, duel: Ladder, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.ladders import tasks

    never_run(monkeypatch, tasks.match_run)
    v1, v2 = shark(alice, duel)
    RatingFactory(ladder=duel, bot_version=v1, rating=1620, rated_matches=40)
    page = f"/bots/{v2.bot_id}/"
    button = f"/bots/{v2.bot_id}/versions/2/challenge/"
    owner = Client(enforce_csrf_checks=True)
    owner.force_login(alice)
    shown = owner.get(page).content.decode()
    assert 'id="verdicts"' in shown and "not enough games yet (0 of 10)" in shown
    assert f'action="{button}"' in shown and "Challenge v2 against v1" in shown
    token = owner.cookies["csrftoken"].value
    # Without the form's CSRF token the POST is refused.
    assert owner.post(button, {"ladder": duel.pk, "opponent": 1}).status_code == 403

    answer = owner.post(button, {"ladder": duel.pk, "opponent": 1, "csrfmiddlewaretoken": token})
    challenge = Challenge.objects.get()
    assert answer.status_code == 302 and answer["Location"] == f"/challenges/{challenge.pk}/"
    assert list(challenge.opponent_versions.all()) == [v1] and challenge.games == 10
    shown = text_of(owner.get(answer["Location"]))
    assert "shark v2 against shark v1" in shown

    # Others see the verdict, not the button, and cannot post it.
    rival = Client()
    rival.force_login(bob)
    shown = rival.get(page).content.decode()
    assert "not enough games yet" in shown and button not in shown
    assert rival.post(button, {"ladder": duel.pk, "opponent": 1}).status_code == 403
    # A refusal is said on the bot page.
    v1.qualifications.all().delete()
    answer = owner.post(
        button, {"ladder": duel.pk, "opponent": 1, "csrfmiddlewaretoken": token}, follow=True
    )
    assert "The challenge was not sent: shark v1 never passed the pre-flight" in (
        answer.content.decode()
    )
    assert Challenge.objects.count() == 1
