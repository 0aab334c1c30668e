"""Entries and per-ladder pre-flights: a bot plays the ladders whose pre-flight it passed.

Real pre-flight games in the sandbox: the tasks queued on commit run here
(captured on-commit callbacks), as a worker would run them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from arena.bots.models import BotVersion, VersionStatus
from arena.ladders.flows import bot_submit, entries_set, ladder_create
from arena.ladders.models import Entry, Ladder, Qualification, QualificationStatus
from arena.ladders.selectors import matchmaking_candidates
from tests.platform.api_support import client_for
from tests.platform.worker import protocol_bot

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

# A correct card game bot: it reads its hand, which only the card game deals.
CARDS_ONLY = b"""\
from bots_sdk import Bot, run


class Cards(Bot):
    def act(self, observation):
        hand = observation["hand"]  # the card game's cards; a dice game deals none
        return observation["legal_actions"][0]


run(Cards)
"""
# Thinks 300 ms on every decision.
SLOW = protocol_bot(prelude="import time", before="time.sleep(0.3)")

Submit = Callable[..., BotVersion]


@pytest.fixture
def submit(django_capture_on_commit_callbacks: Any) -> Submit:
    """bot_submit, its pre-flights played when it commits (as a worker would)."""

    def upload(owner: Any, name: str, code: bytes, ladders: Sequence[Ladder] | None) -> BotVersion:
        with django_capture_on_commit_callbacks(execute=True):
            version = bot_submit(
                owner=owner, name=name, filename=f"{name}.py", content=code, ladders=ladders
            )
        version.refresh_from_db()
        return version

    return upload


def ladder(slug: str, rules: str, seats: int, **limits: Any) -> Ladder:
    return ladder_create(slug=slug, name=slug, rules=rules, seats=seats, **limits)


def qualification(version: BotVersion, on: Ladder) -> Qualification:
    return Qualification.objects.get(bot_version=version, ladder=on)


def test_a_card_game_bot_plays_the_card_game_and_is_told_why_not_the_dice(
    alice: Any, submit: Submit
) -> None:
    classic, cards = ladder("classic-4", "classic", 4), ladder("cardgame-4", "cardgame", 4)
    version = submit(alice, "dealer", CARDS_ONLY, [classic, cards])

    assert version.status == VersionStatus.ACTIVE  # it passed a game: it plays that one
    passed, failed = qualification(version, cards), qualification(version, classic)
    assert passed.status == QualificationStatus.PASSED
    assert passed.report["game"]["rules"] == "cardgame" and passed.report["game"]["seats"] == 4
    assert failed.status == QualificationStatus.FAILED
    fault = failed.report["fault"]
    assert fault["cause"] == "crashed" and "KeyError: 'hand'" in fault["stderr_tail"]
    # The report names the game that failed, and why.
    assert version.validation_report["errors"] == [
        "classic-4: crashed: the process exited with status 1"
    ]
    assert [c.version_id for c in matchmaking_candidates(ladder=cards)] == [version.pk]
    assert matchmaking_candidates(ladder=classic) == []


def test_each_preflight_plays_the_ladder_s_exact_limits_on_a_fresh_seed(
    alice: Any, submit: Submit
) -> None:
    hasty = ladder("hasty", "classic", 2, time_per_decision_ms=100, time_bank_ms=0)
    patient = ladder("patient", "classic", 2, time_per_decision_ms=2000, time_bank_ms=60_000)
    version = submit(alice, "snail", SLOW, [hasty, patient])

    fast, slow = qualification(version, hasty), qualification(version, patient)
    assert fast.status == QualificationStatus.FAILED
    assert fast.report["fault"]["cause"] == "timeout"
    assert fast.report["game"]["limits"]["decision_ms"] == 100
    assert slow.status == QualificationStatus.PASSED
    assert slow.report["game"]["limits"]["decision_ms"] == 2000
    assert slow.report["game"]["limits"]["bank_ms"] == 60_000
    assert slow.seed == slow.report["seed"] and fast.seed != slow.seed

    again = submit(alice, "snail", SLOW + b"# v2\n", None)  # keeps its entries
    assert qualification(again, patient).seed != slow.seed


def test_a_bot_entered_on_a_new_ladder_plays_its_preflight_there(
    alice: Any, bob: Any, submit: Submit, django_capture_on_commit_callbacks: Any
) -> None:
    classic, cards = ladder("classic-2", "classic", 2), ladder("cardgame-3", "cardgame", 3)
    version = submit(alice, "shark", protocol_bot(), [classic])
    assert set(Entry.objects.values_list("ladder__slug", flat=True)) == {"classic-2"}

    api = client_for(alice)
    with django_capture_on_commit_callbacks(execute=True):
        answer = api.put(
            f"/api/bots/{version.bot_id}/ladders/", {"ladders": ["cardgame-3"]}, format="json"
        )
    assert answer.status_code == 200, answer.content
    (entry,) = answer.json()
    # Queued for a worker when the entry committed; played once it ran.
    assert (entry["ladder"], entry["preflight"]["status"]) == ("cardgame-3", "pending")
    (entry,) = api.get(f"/api/bots/{version.bot_id}/ladders/").json()
    assert (entry["ladder"], entry["preflight"]["status"]) == ("cardgame-3", "passed")
    assert entry["preflight"]["report"]["game"]["rules"] == "cardgame"
    # Left classic-2: off its matchmaking at once.
    assert matchmaking_candidates(ladder=classic) == []
    assert [c.version_id for c in matchmaking_candidates(ladder=cards)] == [version.pk]
    # Others see the status, not the report; only the owner changes the entries.
    (seen,) = client_for(bob).get(f"/api/bots/{version.bot_id}/ladders/").json()
    assert seen["preflight"] == {"status": "passed"}
    refused = client_for(bob).put(
        f"/api/bots/{version.bot_id}/ladders/", {"ladders": ["classic-2"]}, format="json"
    )
    assert refused.status_code == 403


@pytest.mark.parametrize(
    ("ladders", "words"),
    [
        (["nowhere"], "no ladder nowhere: choose among classic-2"),
        ([], "This list may not be empty"),
    ],
)
def test_a_bad_choice_of_ladders_is_refused_saying_what_to_do(
    alice: Any, ladders: list[str], words: str
) -> None:
    ladder("classic-2", "classic", 2)
    bot = Entry.objects.none()
    from tests.platform.factories import BotFactory

    bot = BotFactory(owner=alice, name="shark")
    answer = client_for(alice).put(f"/api/bots/{bot.pk}/ladders/", {"ladders": ladders}, "json")
    assert answer.status_code == 400 and words in answer.content.decode()


def test_an_upload_naming_an_unknown_ladder_stores_nothing(alice: Any) -> None:
    ladder("classic-2", "classic", 2)
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("shark.py", protocol_bot())
    answer = client_for(alice).post(
        "/api/bots/", {"name": "shark", "file": upload, "ladders": ["classic-3"]}
    )
    assert answer.status_code == 400
    assert answer.json() == {
        "code": "entry_invalid",
        "detail": "no ladder classic-3: choose among classic-2.",
    }
    assert not BotVersion.objects.exists()


def test_an_upload_enters_the_ladders_it_names(
    alice: Any, django_capture_on_commit_callbacks: Any
) -> None:
    ladder("classic-2", "classic", 2)
    ladder("sixdice-3", "sixdice", 3)
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("shark.py", protocol_bot())
    with django_capture_on_commit_callbacks(execute=True):
        answer = client_for(alice).post(
            "/api/bots/", {"name": "shark", "file": upload, "ladders": ["sixdice-3, classic-2"]}
        )
    assert answer.status_code == 201, answer.content
    version = BotVersion.objects.get()
    assert version.status == VersionStatus.ACTIVE
    assert set(Qualification.objects.values_list("ladder__slug", "status")) == {
        ("sixdice-3", "passed"),
        ("classic-2", "passed"),
    }


def test_staff_create_ladders_over_the_api_others_are_told_they_cannot(
    alice: Any, carol: Any
) -> None:
    body = {"slug": "royale-3", "name": "Royale, 3", "rules": "royale", "seats": 3}
    refused = client_for(alice).post("/api/ladders/", {**body, "options": {"tiles": 2}}, "json")
    assert refused.status_code == 403
    assert refused.json()["detail"] == "only staff may create ladders: ask an administrator."
    assert client_for().post("/api/ladders/", body, "json").status_code in (401, 403)

    made = client_for(carol).post("/api/ladders/", {**body, "options": {"tiles": 2}}, "json")
    assert made.status_code == 201, made.content
    assert made.json()["options"] == {"neutral_dice": False, "tiles": 2}
    bad = client_for(carol).post("/api/ladders/", {**body, "slug": "x", "seats": 9}, "json")
    assert bad.status_code == 400
    assert "royale takes 2-5 seats, got 9" in bad.json()["detail"]


def test_entries_need_at_least_one_ladder(alice: Any) -> None:
    from arena.ladders.services.entries import EntryError
    from tests.platform.factories import BotFactory

    with pytest.raises(EntryError, match="choose at least one ladder"):
        entries_set(bot=BotFactory(owner=alice), ladders=[])
