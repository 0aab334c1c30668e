"""Bots and versions over the API: uploads and their refusals, who sees and changes what."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from arena.bots.models import Bot, BotVersion
from tests.platform.api_support import GOOD, client_for, zip_bytes
from tests.platform.factories import BotFactory, BotVersionFactory

pytestmark = pytest.mark.django_db


def upload(api: Any, name: str, filename: str, content: bytes, **fields: Any) -> Any:
    return api.post(
        "/api/bots/",
        {"name": name, "file": SimpleUploadedFile(filename, content), **fields},
        format="multipart",
    )


# --------------------------------------------------------------------------- uploads


def test_uploading_under_the_same_name_makes_the_next_version_of_the_same_bot(
    alice: Any,
) -> None:
    api = client_for(alice)
    first = upload(api, "shark", "shark.py", GOOD)
    # Names ignore case: "Shark" is the same bot.
    second = upload(api, "Shark", "shark.zip", zip_bytes({"main.py": GOOD, "util.py": b""}))

    assert first.status_code == 201 and second.status_code == 201, second.content
    assert first.json()["bot_id"] == second.json()["bot_id"]
    assert [first.json()["number"], second.json()["number"]] == [1, 2]
    assert second.json()["code_format"] == "zip"
    assert Bot.objects.filter(owner=alice).count() == 1
    bot_id = first.json()["bot_id"]
    listed = api.get(f"/api/bots/{bot_id}/versions/").json()
    assert listed["count"] == 2
    assert [(v["number"], v["status"]) for v in listed["results"]] == [
        (2, "pending"),
        (1, "pending"),
    ]


def test_alice_uploads_a_new_version_to_her_bot(alice: Any) -> None:
    bot = BotFactory(owner=alice, name="shark")
    response = client_for(alice).post(
        f"/api/bots/{bot.pk}/versions/",
        {"file": SimpleUploadedFile("shark.py", GOOD)},
        format="multipart",
    )
    assert response.status_code == 201, response.content
    assert (response.json()["bot_id"], response.json()["number"]) == (bot.pk, 1)


BAD_UPLOADS = [
    ("shark.exe", b"MZ", "upload_type", "is no bot file the arena knows"),
    ("shark.py", b"\xff\xfe bad", "source_not_utf8", "is not UTF-8 text (byte 0, line 1)"),
    ("shark.zip", b"PK\x03\x04 broken", "archive_corrupt", "is not a readable .zip archive"),
    (
        "shark.zip",
        zip_bytes({"shark/main.py": GOOD}),
        "archive_missing_main",
        "zip the contents of the folder 'shark', not the folder itself",
    ),
    (
        "shark.zip",
        zip_bytes({"main.py": GOOD, "../evil.py": b""}),
        "archive_parent_path",
        "contains '..'",
    ),
    (
        "shark.zip",
        zip_bytes({"main.py": GOOD, "/etc/evil.py": b""}),
        "archive_absolute_path",
        "has an absolute path",
    ),
    (
        "shark.zip",
        zip_bytes({"main.py": GOOD, "data.bin": b"\0" * (4 * 1024 * 1024)}),
        "archive_bomb",
        "this looks like a zip bomb",
    ),
]


@pytest.mark.parametrize(
    ("filename", "content", "code", "message"), BAD_UPLOADS, ids=[row[2] for row in BAD_UPLOADS]
)
def test_a_bad_upload_answers_400_with_the_specific_message(
    alice: Any, filename: str, content: bytes, code: str, message: str
) -> None:
    response = upload(client_for(alice), "shark", filename, content)

    assert response.status_code == 400
    assert response.json()["code"] == code
    assert message in response.json()["detail"]
    # A refused first upload leaves no empty bot behind.
    assert not Bot.objects.exists()


def test_a_bad_upload_of_a_new_version_answers_400_and_stores_nothing(alice: Any) -> None:
    bot = BotFactory(owner=alice, name="shark")
    response = client_for(alice).post(
        f"/api/bots/{bot.pk}/versions/",
        {"file": SimpleUploadedFile("shark.txt", GOOD)},
        format="multipart",
    )
    assert response.status_code == 400
    assert response.json()["code"] == "upload_type"
    assert not BotVersion.objects.exists()


def test_empty_upload_missing_file_and_bad_name_are_explained(alice: Any) -> None:
    api = client_for(alice)
    # Django refuses an empty multipart file before the upload checks see it.
    empty = upload(api, "shark", "shark.py", b"")
    assert empty.status_code == 400 and "file" in empty.json()
    missing = api.post("/api/bots/", {"name": "shark"}, format="multipart")
    assert missing.status_code == 400 and missing.json()["file"] == ["No file was submitted."]
    bad_name = upload(api, "-shark!", "shark.py", GOOD)
    assert bad_name.status_code == 400
    assert bad_name.json()["code"] == "bot_name_invalid"
    assert "starting with a letter or digit" in bad_name.json()["detail"]


# --------------------------------------------------------------------------- who changes what


def test_only_the_owner_uploads_versions(alice: Any, bob: Any) -> None:
    public = BotFactory(owner=alice, name="shark")
    private = BotFactory(owner=alice, name="secret", visibility="private")

    def post(user: Any, bot: Bot) -> int:
        file = SimpleUploadedFile("x.py", GOOD)
        status: int = (
            client_for(user)
            .post(f"/api/bots/{bot.pk}/versions/", {"file": file}, format="multipart")
            .status_code
        )
        return status

    assert post(bob, public) == 403
    assert post(bob, private) == 404  # bob does not know it exists
    assert post(None, public) == 401
    assert post(alice, private) == 201
    assert not BotVersion.objects.filter(bot=public).exists()


def test_only_the_owner_changes_visibility_and_description(alice: Any, bob: Any) -> None:
    bot = BotFactory(owner=alice, name="shark")
    url = f"/api/bots/{bot.pk}/"

    assert client_for(bob).patch(url, {"description": "mine"}).status_code == 403
    assert client_for().patch(url, {"description": "mine"}).status_code == 401
    response = client_for(alice).patch(url, {"visibility": "private", "description": "Bites."})
    assert response.status_code == 200, response.content
    assert (response.json()["visibility"], response.json()["description"]) == (
        "private",
        "Bites.",
    )
    # Private now: hidden from Bob altogether.
    assert client_for(bob).patch(url, {"description": "mine"}).status_code == 404
    assert client_for(bob).get(url).status_code == 404
    assert client_for(alice).patch(url, {"visibility": "secret"}).status_code == 400
    bot.refresh_from_db()
    assert (bot.visibility, bot.description) == ("private", "Bites.")


def test_only_the_owner_retires_a_version(alice: Any, bob: Any) -> None:
    version = BotVersionFactory(bot=BotFactory(owner=alice, name="shark"))
    url = f"/api/bots/{version.bot_id}/versions/1/retire/"

    assert client_for(bob).post(url).status_code == 403
    assert client_for().post(url).status_code == 401
    response = client_for(alice).post(url)
    assert response.status_code == 200 and response.json()["status"] == "retired"
    again = client_for(alice).post(url)
    assert again.status_code == 400 and again.json()["code"] == "version_transition"
    assert client_for(alice).post(f"/api/bots/{version.bot_id}/versions/9/retire/").status_code == (
        404
    )


# --------------------------------------------------------------------------- who sees what


def test_the_validation_report_is_shown_to_the_owner_only(
    alice: Any, bob: Any, carol: Any, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        created = upload(client_for(alice), "shark", "shark.py", b"def act(:\n")
    url = f"/api/bots/{created.json()['bot_id']}/versions/1/"

    mine = client_for(alice).get(url).json()
    assert mine["status"] == "failed"
    assert mine["validation_report"]["passed"] is False
    assert mine["validation_report"]["errors"][0].startswith("main.py, line 1:")
    for other in (bob, None):
        theirs = client_for(other).get(url).json()
        assert theirs["status"] == "failed" and theirs["validation_report"] is None
    # Staff support authors whose uploads fail.
    assert client_for(carol).get(url).json()["validation_report"]["passed"] is False
    assert client_for(alice).get(url.replace("/1/", "/2/")).status_code == 404


def test_private_bots_and_their_versions_exist_for_their_owner_and_staff_only(
    alice: Any, bob: Any, carol: Any
) -> None:
    BotFactory(owner=alice, name="shark")
    secret = BotVersionFactory(bot=BotFactory(owner=alice, name="secret", visibility="private"))
    BotFactory(owner=bob, name="turtle")

    def names(user: Any, query: str = "") -> list[str]:
        return [b["name"] for b in client_for(user).get(f"/api/bots/{query}").json()["results"]]

    assert names(None) == ["shark", "turtle"]
    assert names(bob) == ["shark", "turtle"]
    assert names(alice) == ["secret", "shark", "turtle"]
    assert names(carol) == ["secret", "shark", "turtle"]
    assert names(alice, "?owner=alice") == ["secret", "shark"]
    assert names(bob, "?owner=alice") == ["shark"]
    for path in ("", "versions/", "versions/1/"):
        url = f"/api/bots/{secret.bot_id}/{path}"
        assert client_for(None).get(url).status_code == 404
        assert client_for(bob).get(url).status_code == 404
        assert client_for(alice).get(url).status_code == 200
        assert client_for(carol).get(url).status_code == 200


def test_bot_detail_lists_versions_newest_first(alice: Any) -> None:
    bot = BotFactory(owner=alice, name="shark", description="Bites.")
    BotVersionFactory(bot=bot, number=1, status="retired")
    BotVersionFactory(bot=bot, number=2)

    detail = client_for().get(f"/api/bots/{bot.pk}/").json()

    assert (detail["name"], detail["owner"], detail["description"]) == ("shark", "alice", "Bites.")
    assert [(v["number"], v["status"]) for v in detail["versions"]] == [
        (2, "active"),
        (1, "retired"),
    ]
    assert "validation_report" not in detail["versions"][0]
    assert client_for().get("/api/bots/999999/").status_code == 404
