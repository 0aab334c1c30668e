"""The browser editor's drafts and test games, played for real in the sandbox.

A test game builds the draft's code with the upload's build step and plays
one unrated match of a ladder's game against house bots (eager Celery, the
real referee and sandbox); submitting a draft is an upload.
"""

from __future__ import annotations

import io
import json
import random
import re
import zipfile
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from arena.bots.models import Bot, BotVersion, TestGame, VersionStatus
from arena.bots.selectors import (
    bot_list_visible,
    bot_versions,
)
from arena.bots.services import bot_upload, bot_version_validate, bot_versions_stuck
from arena.ladders.flows import draft_run_test_game, draft_submit
from arena.ladders.models import Ladder, QualificationStatus, RatingChange
from arena.ladders.services.editor import (
    DraftError,
    TestGameError,
    TestGameQuotaError,
    draft_save,
    draft_start_from_kit,
    draft_start_from_version,
)
from arena.ladders.tasks import match_run as match_run_task
from arena.ladders.tasks import play_test_game
from arena.matches.models import MatchStatus
from arena.matches.selectors import (
    TestGameStage,
    ladder_matches_live,
    ladder_recent_matches,
    stage_of_test_game,
)
from arena.matches.services import match_create
from tests.platform.api_support import client_for
from tests.platform.ladders.test_match_pipeline import classic_2, house_bot
from tests.platform.scenes import enter, never_run, play_match, publish_match

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


def duel_with_house_bots(house: Any) -> Ladder:
    """classic-2 with the house bots random and greedy playing there."""
    ladder = classic_2()
    for name in ("random", "greedy"):
        enter(house_bot(house, name), ladder)
    return ladder


@pytest.fixture
def duel(house: Any) -> Ladder:
    return duel_with_house_bots(house)


def house_bot_named(name: str) -> Bot:
    return Bot.objects.get(name=name, owner__profile__is_house=True)


def played(draft: Any, ladder: Ladder, capture: Any, *opponents: str) -> TestGame:
    """A test game of ``draft`` against ``opponents``, run to its end (eager Celery)."""
    with capture(execute=True):
        test_game = draft_run_test_game(
            draft=draft,
            ladder=ladder,
            opponents=[house_bot_named(name) for name in opponents],
            rng=random.Random(3),
        )
    test_game.refresh_from_db()
    return test_game


def test_a_python_draft_s_test_game_plays_unrated_against_a_house_bot(
    alice: Any, bob: Any, duel: Ladder, django_capture_on_commit_callbacks: Any
) -> None:
    draft = draft_start_from_kit(owner=alice, name="shark", lang="python")
    assert draft.filename == "main.py" and "class Shark(Bot)" in draft.source

    test_game = played(draft, duel, django_capture_on_commit_callbacks, "greedy")

    assert stage_of_test_game(test_game) == TestGameStage.FINISHED
    match = test_game.match
    assert match is not None and match.status == MatchStatus.FINISHED and not match.rated
    seats = {p.seat: p.bot_version for p in match.participants.all()}
    assert seats[test_game.seat] == test_game.build
    assert seats[1 - test_game.seat].bot.name == "greedy"
    assert all(p.money is not None for p in match.participants.all())
    assert not RatingChange.objects.exists()
    # The test build is a workbench's: the author's bot (none yet) and lists know nothing of it.
    assert test_game.build.bot.name == "shark~draft" and test_game.build.bot.workbench
    assert not Bot.objects.filter(owner=alice, workbench=False).exists()
    assert list(bot_list_visible(user=alice, owner="alice")) == []
    # Nothing handles a workbench as a bot: no page, no API (no upload, entry or challenge).
    workbench = test_game.build.bot_id
    assert client_for(alice).get(f"/api/bots/{workbench}/").status_code == 404
    assert client_for(alice).post(f"/api/bots/{workbench}/versions/", {}).status_code == 404
    # Only its author sees it (and staff): not on the ladder's list for anyone else.
    assert client_for(alice).get(f"/api/matches/{match.pk}/").status_code == 200
    assert client_for(bob).get(f"/api/matches/{match.pk}/").status_code == 404
    assert Client().get(f"/matches/{match.pk}/").status_code == 404
    listed = client_for(bob).get("/api/matches/", {"ladder": "classic-2"}).json()["results"]
    assert match.pk not in [m["id"] for m in listed]

    # The same code again reuses the build: a new game, no new version.
    again = played(draft, duel, django_capture_on_commit_callbacks, "random")
    assert again.build_id == test_game.build_id and again.match_id != test_game.match_id
    assert stage_of_test_game(again) == TestGameStage.FINISHED
    # Unrated both: no rating moved.
    assert ladder_recent_matches(ladder_id=duel.pk).filter(rated=True).count() == 0


def listed_match_ids(user: Any, ladder: Ladder, house_bot_id: int) -> dict[str, set[int]]:
    """The match ids each list, export and page shows ``user`` of ``ladder`` and of the house
    bot ``house_bot_id``."""
    client, web = client_for(user), Client()
    web.force_login(user)

    def ids(url: str, **params: Any) -> set[int]:
        return {m["id"] for m in client.get(url, params).json()["results"]}

    def linked(url: str) -> set[int]:
        return {int(pk) for pk in re.findall(r'href="/matches/(\d+)/"', web.get(url).text)}

    logs = b"".join(client.get(f"/api/ladders/{ladder.slug}/logs/").streaming_content)
    return {
        "api ladder": ids("/api/matches/", ladder=ladder.slug),
        "api bot": ids("/api/matches/", bot=house_bot_id),
        "api ladder matches": ids(f"/api/ladders/{ladder.slug}/matches/"),
        "ladder logs": {json.loads(line)["match"]["id"] for line in logs.splitlines()},
        "ladder page": linked(f"/ladders/{ladder.slug}/"),
        "ladder live": linked(f"/ladders/{ladder.slug}/live/"),
        "house bot page": linked(f"/bots/{house_bot_id}/"),
    }


def test_a_test_game_is_in_no_list_of_matches_and_opens_for_its_author(
    alice: Any, bob: Any, carol: Any, house: Any, django_capture_on_commit_callbacks: Any
) -> None:
    duel = classic_2()
    greedy, random_bot = house_bot(house, "greedy"), house_bot(house, "random")
    for version in (greedy, random_bot):
        enter(version, duel)
    ladder_match, _ = play_match(duel, [greedy, random_bot], seed=5)
    draft = draft_start_from_kit(owner=alice, name="shark", lang="python")
    test_game = played(draft, duel, django_capture_on_commit_callbacks, "greedy")
    assert test_game.match is not None and test_game.match.status == MatchStatus.FINISHED
    # A second one waits in the queue, as the worker queues it before it plays it.
    waiting = publish_match(
        match_create(
            ladder_id=duel.pk, game=duel.game, versions=[test_game.build, greedy], rated=False
        )
    )
    TestGame.objects.create(
        owner=alice, draft=draft, ladder=duel, build=test_game.build, seat=0, match=waiting
    )
    tests = {test_game.match.pk, waiting.pk}

    for user in (alice, carol, bob):
        listed = listed_match_ids(user, duel, greedy.bot_id)
        for where, ids in listed.items():
            assert not ids & tests, (user.username, where)
        # The ladder's own match is in every list (the lists are the real ones).
        assert all(ladder_match.pk in ids for ids in listed.values()), (user.username, listed)
        live = ladder_matches_live(ladder_id=duel.pk, user=user, latest=10, queued=10)
        assert (live.running, live.queued, live.queue) == (0, 0, [])
        # The house bot's head-to-head counts its ladder game only: no test build met.
        web = Client()
        web.force_login(user)
        page = web.get(f"/bots/{greedy.bot_id}/").text
        assert "shark~draft" not in page and "random" in page

    # Each test game opens by its own page for its author and staff, for no one else.
    for pk in tests:
        for user, status in ((alice, 200), (carol, 200), (bob, 404)):
            web = Client()
            web.force_login(user)
            assert web.get(f"/matches/{pk}/").status_code == status, user.username
            assert client_for(user).get(f"/api/matches/{pk}/").status_code == status
        assert Client().get(f"/matches/{pk}/").status_code == 404
        assert Client().get(f"/api/matches/{pk}/").status_code == 404


def test_a_c_draft_is_compiled_and_plays_its_test_game(
    alice: Any, duel: Ladder, django_capture_on_commit_callbacks: Any
) -> None:
    draft = draft_start_from_kit(owner=alice, name="crab", lang="c")
    test_game = played(draft, duel, django_capture_on_commit_callbacks, "random")

    build = test_game.build
    assert build.runtime == "c" and build.status == VersionStatus.ACTIVE
    assert build.validation_report["build"]["ok"] is True and build.build.startswith("bots/")
    assert stage_of_test_game(test_game) == TestGameStage.FINISHED
    assert test_game.match is not None and test_game.match.status == MatchStatus.FINISHED


def test_bad_code_gets_the_same_build_report_as_its_upload(
    alice: Any, duel: Ladder, django_capture_on_commit_callbacks: Any
) -> None:
    broken = "int main(void) { return 0 }\n"
    draft = draft_start_from_kit(owner=alice, name="broken", lang="c")
    draft_save(draft=draft, source=broken)
    test_game = played(draft, duel, django_capture_on_commit_callbacks, "random")

    assert stage_of_test_game(test_game) == TestGameStage.BUILD_FAILED
    assert test_game.match is None
    uploaded = bot_upload(owner=alice, name="broken", filename="main.c", content=broken.encode())
    uploaded = bot_version_validate(version=uploaded)
    tested = test_game.build.validation_report
    assert tested["build"]["ok"] is False
    assert tested["build"]["output"] == uploaded.validation_report["build"]["output"]
    assert "/bot/main.c:1:26: error: expected ';' before '}' token" in tested["build"]["output"]
    assert tested["errors"] == uploaded.validation_report["errors"]

    # The editor shows it as the bot page shows the upload's.
    browser = Client()
    browser.force_login(alice)
    page = browser.get(f"/editor/{draft.pk}/").content.decode()
    assert "The build failed" in page and "expected &#x27;;&#x27; before" in page


def test_test_games_are_limited_per_author_per_hour(
    alice: Any, bob: Any, duel: Ladder, settings: Any, monkeypatch: Any
) -> None:
    settings.ARENA_EDITOR_TEST_GAMES_PER_HOUR = 2
    never_run(monkeypatch, play_test_game)
    draft = draft_start_from_kit(owner=alice, name="shark", lang="python")
    for _ in range(2):
        draft_run_test_game(draft=draft, ladder=duel, opponents=[house_bot_named("random")])
    with pytest.raises(TestGameQuotaError, match="you ran 2 test games in the last hour"):
        draft_run_test_game(draft=draft, ladder=duel, opponents=[house_bot_named("random")])
    assert TestGame.objects.filter(owner=alice).count() == 2
    # Bob's limit is his own.
    other = draft_start_from_kit(owner=bob, name="turtle", lang="python")
    draft_run_test_game(draft=other, ladder=duel, opponents=[house_bot_named("random")])


def test_a_test_game_refuses_what_it_cannot_play(
    alice: Any, bob: Any, duel: Ladder, monkeypatch: Any
) -> None:
    never_run(monkeypatch, play_test_game)
    draft = draft_start_from_kit(owner=alice, name="shark", lang="python")
    with pytest.raises(TestGameError, match="choose 1 to 1 house bots"):
        draft_run_test_game(draft=draft, ladder=duel, opponents=[])
    bobs = bot_upload(owner=bob, name="turtle", filename="t.py", content=b"print(1)\n").bot
    with pytest.raises(TestGameError, match="turtle: no house bot playing on classic-2"):
        draft_run_test_game(draft=draft, ladder=duel, opponents=[bobs])
    draft_save(draft=draft, source="")
    with pytest.raises(Exception, match="is empty"):
        draft_run_test_game(draft=draft, ladder=duel, opponents=[house_bot_named("random")])
    assert not TestGame.objects.exists()


def test_submitting_a_draft_uploads_a_version_that_plays_its_pre_flights(
    alice: Any, duel: Ladder, django_capture_on_commit_callbacks: Any
) -> None:
    first = bot_upload(owner=alice, name="shark", filename="shark.py", content=b"print('v1')\n")
    draft = draft_start_from_version(owner=alice, version=first)
    assert (draft.name, draft.filename, draft.source) == ("shark", "shark.py", "print('v1')\n")
    kit = draft_start_from_kit(owner=alice, name="unused", lang="python")
    draft_save(draft=draft, source=kit.source)

    with django_capture_on_commit_callbacks(execute=True):
        version = draft_submit(draft=draft)
    version.refresh_from_db()
    assert (version.bot_id, version.number, version.parent_id) == (first.bot_id, 2, first.pk)
    assert version.status == VersionStatus.ACTIVE
    assert version.validation_report["build"]["ok"] is True
    assert [q.status for q in version.qualifications.all()] == [QualificationStatus.PASSED]
    assert [v.number for v in bot_versions(bot=first.bot)] == [2, 1]


def test_a_zip_version_cannot_be_edited_here(alice: Any) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("main.py", "print(1)\n")
    version = bot_upload(owner=alice, name="zipped", filename="z.zip", content=buffer.getvalue())
    with pytest.raises(DraftError, match=r"\.zip of several files"):
        draft_start_from_version(owner=alice, version=version)


def test_the_worker_that_builds_a_test_game_plays_it_without_queueing_again(
    alice: Any, duel: Ladder, django_capture_on_commit_callbacks: Any, monkeypatch: Any
) -> None:
    # The match's own message goes nowhere: the build's worker plays the game itself.
    never_run(monkeypatch, match_run_task)
    draft = draft_start_from_kit(owner=alice, name="shark", lang="python")
    test_game = played(draft, duel, django_capture_on_commit_callbacks, "random")
    assert test_game.match is not None and test_game.match.status == MatchStatus.FINISHED
    assert test_game.match.attempts == 1


def test_a_lost_test_build_is_not_swept_into_a_pre_flight(
    alice: Any, duel: Ladder, monkeypatch: Any
) -> None:
    never_run(monkeypatch, play_test_game)
    draft = draft_start_from_kit(owner=alice, name="shark", lang="python")
    test_game = draft_run_test_game(draft=draft, ladder=duel, opponents=[house_bot_named("random")])
    upload = bot_upload(owner=alice, name="shark", filename="main.py", content=b"print(1)\n")
    long_ago = timezone.now() - timedelta(hours=1)
    BotVersion.objects.filter(pk__in=[upload.pk, test_game.build_id]).update(
        status_changed_at=long_ago
    )
    assert [v.pk for v in bot_versions_stuck()] == [upload.pk]


def test_a_version_uploaded_under_a_name_that_tells_no_runtime_is_edited_as_its_main_file(
    alice: Any,
) -> None:
    version = bot_upload(
        owner=alice, name="crab", filename="bot.txt", content=b"int main(void){}\n", runtime="c"
    )
    draft = draft_start_from_version(owner=alice, version=version)
    assert (draft.filename, draft.source) == ("main.c", "int main(void){}\n")
    named = bot_upload(owner=alice, name="gopher", filename="gopher.go", content=b"package main\n")
    assert draft_start_from_version(owner=alice, version=named).filename == "gopher.go"
