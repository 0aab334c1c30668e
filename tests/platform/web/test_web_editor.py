"""The editor's pages: starting a draft, saving it (autosave's JSON and the plain form),
running a test game and submitting, each for its author only."""

from __future__ import annotations

import io
import json
import re
import zipfile
from typing import Any

import pytest
from django.test import Client

from arena.bots.models import Draft, TestGame, VersionStatus
from arena.bots.services import bot_upload
from arena.ladders.models import Ladder
from tests.platform.ladders.test_editor import duel_with_house_bots, house_bot_named

pytestmark = pytest.mark.django_db


@pytest.fixture
def duel(house: Any) -> Ladder:
    return duel_with_house_bots(house)


def browser_of(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def started(client: Client, name: str = "shark", lang: str = "python") -> Draft:
    answer = client.post("/editor/", {"start": "kit", "kit-name": name, "kit-lang": lang})
    assert answer.status_code == 302, answer.content.decode()
    return Draft.objects.get(pk=int(answer["Location"].rstrip("/").rsplit("/", 1)[1]))


def test_a_draft_starts_from_a_kit_and_keeps_what_is_saved(alice: Any, bob: Any) -> None:
    client = browser_of(alice)
    home = client.get("/editor/").content.decode()
    assert "From a starter kit" in home and "No version yet: start from a kit." in home

    draft = started(client, "shark", "go")
    page = client.get(f"/editor/{draft.pk}/").content.decode()
    assert "main.go" in page and 'data-mode="golang"' in page and "package main" in page
    assert "vendor/ace-1.45.2/ace.js" in page and "web/editor.js" in page
    assert "<script>" not in page  # no inline script: a strict CSP allows the page

    # The editor's autosave: JSON in, JSON out.
    saved = client.post(
        f"/editor/{draft.pk}/save/",
        {"source": "package main // v2\n"},
        HTTP_ACCEPT="application/json",
    )
    assert saved.status_code == 200 and saved.json()["saved"] is True
    assert "package main // v2" in client.get(f"/editor/{draft.pk}/").content.decode()
    # The plain form (no JavaScript) saves too.
    assert client.post(f"/editor/{draft.pk}/save/", {"source": "v3\n"}).status_code == 302
    draft.refresh_from_db()
    assert draft.source == "v3\n"

    # Too large: refused, nothing saved, the reason said.
    huge = client.post(
        f"/editor/{draft.pk}/save/",
        {"source": "x" * (1024 * 1024 + 1)},
        HTTP_ACCEPT="application/json",
    )
    assert huge.status_code == 400 and "above the 1.0 MiB upload limit" in huge.json()["error"]
    draft.refresh_from_db()
    assert draft.source == "v3\n"

    # A draft is its author's: Bob sees nothing of it and cannot change it.
    other = browser_of(bob)
    assert other.get(f"/editor/{draft.pk}/").status_code == 404
    assert other.post(f"/editor/{draft.pk}/save/", {"source": "x"}).status_code == 404
    assert Client().get(f"/editor/{draft.pk}/").status_code == 302  # to the login page


def test_a_bad_name_or_a_zip_version_is_refused_with_the_reason(alice: Any) -> None:
    client = browser_of(alice)
    answer = client.post("/editor/", {"start": "kit", "kit-name": "my bot!", "kit-lang": "c"})
    assert answer.status_code == 400 and "Use 1-40 letters" in answer.content.decode()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("main.py", "print(1)\n")
    zipped = bot_upload(owner=alice, name="zipped", filename="z.zip", content=buffer.getvalue())
    answer = client.post("/editor/", {"start": "version", "version-version": zipped.pk})
    assert answer.status_code == 400
    assert "a .zip of several files and the editor holds one file" in answer.content.decode()
    assert not Draft.objects.exists()


def test_the_bot_page_opens_the_editor_on_its_latest_version(alice: Any) -> None:
    version = bot_upload(owner=alice, name="shark", filename="shark.py", content=b"print(2)\n")
    client = browser_of(alice)
    assert (
        f'href="/editor/?bot={version.bot_id}"'
        in client.get(f"/bots/{version.bot_id}/").content.decode()
    )
    home = client.get(f"/editor/?bot={version.bot_id}").content.decode()
    assert f'<option value="{version.pk}" selected>shark v1' in home
    answer = client.post("/editor/", {"start": "version", "version-version": version.pk})
    draft = Draft.objects.get()
    assert answer["Location"] == f"/editor/{draft.pk}/"
    assert (draft.name, draft.filename, draft.source) == ("shark", "shark.py", "print(2)\n")


def test_run_a_test_game_then_submit_from_the_page(
    alice: Any, duel: Ladder, django_capture_on_commit_callbacks: Any, settings: Any
) -> None:
    client = browser_of(alice)
    draft = started(client)
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(
            f"/editor/{draft.pk}/test/",
            {
                "source": draft.source,
                "ladder": duel.pk,
                "opponents": [house_bot_named("random").pk],
            },
        )
    assert answer.status_code == 302 and answer["Location"].endswith("#test-games")
    test_game = TestGame.objects.get()
    assert test_game.match is not None
    games = client.get(f"/editor/{draft.pk}/tests/").content.decode()
    assert 'data-stage="finished"' in games and f"/matches/{test_game.match_id}/" in games
    assert "hx-get" not in games  # done: the block stops polling
    # The page offers the same game again.
    page = client.get(f"/editor/{draft.pk}/").content.decode()
    random_bot = house_bot_named("random").pk
    assert f'<option value="{duel.pk}" selected>' in page
    assert f'value="{random_bot}" id="id_opponents_1" checked' in page
    # The house bots are offered as the levels they are.
    assert "Level 1: Tourist (random)" in page and "Level 3: Regular (greedy)" in page

    settings.ARENA_EDITOR_TEST_GAMES_PER_HOUR = 1
    refused = client.post(
        f"/editor/{draft.pk}/test/",
        {"source": draft.source, "ladder": duel.pk, "opponents": [house_bot_named("random").pk]},
    )
    assert refused.status_code == 429
    assert "you ran 1 test games in the last hour, the limit." in refused.content.decode()

    with django_capture_on_commit_callbacks(execute=True):
        submitted = client.post(f"/editor/{draft.pk}/submit/", {"source": draft.source})
    version = alice.bots.get(name="shark").versions.get()
    assert submitted["Location"] == f"/bots/{version.bot_id}/"
    version.refresh_from_db()
    assert version.status == VersionStatus.ACTIVE


def test_an_author_keeps_a_bounded_number_of_drafts_and_deletes_them(
    alice: Any, bob: Any, carol: Any, settings: Any
) -> None:
    settings.ARENA_EDITOR_MAX_DRAFTS = 2
    client = browser_of(alice)
    first = started(client, "one")
    started(client, "two")
    refused = client.post("/editor/", {"start": "kit", "kit-name": "three", "kit-lang": "c"})
    assert refused.status_code == 400
    assert "you have 2 drafts, the most one may keep: delete one" in refused.content.decode()

    assert browser_of(bob).post(f"/editor/{first.pk}/delete/").status_code == 404
    assert client.post(f"/editor/{first.pk}/delete/")["Location"] == "/editor/"
    assert list(Draft.objects.values_list("name", flat=True)) == ["two"]
    started(client, "three")
    # Staff read drafts in the admin.
    admin = browser_of(carol)
    assert admin.get("/admin/bots/draft/").status_code == 200
    draft = Draft.objects.get(name="three")
    assert admin.get(f"/admin/bots/draft/{draft.pk}/change/").status_code == 200
    assert admin.get("/admin/bots/testgame/").status_code == 200


def found(pattern: str, text: str) -> str:
    """The first group of ``pattern`` in ``text``, which must hold it."""
    match = re.search(pattern, text, re.DOTALL)
    assert match is not None, pattern
    return match.group(1)


def test_a_test_game_s_page_names_the_draft_s_build_and_links_no_missing_bot_page(
    alice: Any, carol: Any, duel: Ladder, django_capture_on_commit_callbacks: Any
) -> None:
    client = browser_of(alice)
    draft = started(client)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            f"/editor/{draft.pk}/test/",
            {
                "source": draft.source,
                "ladder": duel.pk,
                "opponents": [house_bot_named("greedy").pk],
            },
        )
    test_game = TestGame.objects.get()
    seat = test_game.seat
    url = f"/matches/{test_game.match_id}/"

    for viewer, linked in ((client, True), (browser_of(carol), False)):
        page = viewer.get(url).content.decode()
        bot_cell = found(f'<tr data-seat="{seat}">.*?<td data-label="Bot">(.*?)</td>', page)
        if linked:  # the author: to the draft in the editor
            assert bot_cell == (
                f'<a href="/editor/{draft.pk}/" title="Your draft in the editor">'
                "shark (test build)</a>"
            )
        else:  # staff: the name alone
            assert bot_cell == "shark (test build)"
        # Every bot page the page links to opens (the workbench has none).
        for bot_id in set(re.findall(r'href="/bots/(\d+)/"', page)):
            assert viewer.get(f"/bots/{bot_id}/").status_code == 200
        assert f'href="/bots/{test_game.build.bot_id}/"' not in page
        # The replay's seats and the decision panel's seat picker name it so too.
        replay = json.loads(found(r'id="replay-data"[^>]*>(.*?)</script>', page))
        names = {p["seat"]: p["name"] for p in replay["players"]}
        assert names == {seat: "shark (test build)", 1 - seat: "greedy"}
        study = json.loads(found(r'id="study-data"[^>]*>(.*?)</script>', page))
        shown = {s["seat"]: (s["name"], s["version"]) for s in study["seats"]}
        assert shown[seat] == ("shark (test build)", None)
        assert f"seat {seat} · shark (test build)</option>" in page
        assert "~draft" not in page
