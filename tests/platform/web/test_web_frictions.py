"""Frictions a new user met (issue 17): identical uploads, empty zips, the uploaded file's
name and line in a build report, a failed bot on "My bots", the log download."""

from __future__ import annotations

import io
import zipfile
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from arena.bots.models import Bot, BotVersion, VersionStatus
from arena.bots.selectors import version_source_lines
from arena.bots.services import UploadIdenticalError, bot_upload, bot_version_upload
from arena.bots.uploads import UploadEmptyError
from arena.web import presenters
from tests.platform.api_support import client_for as api_client_for
from tests.platform.factories import BotFactory, BotVersionFactory, LadderFactory
from tests.platform.scenes import play_match
from tests.platform.web.test_web import client_for, text_of

pytestmark = pytest.mark.django_db

GOOD = b"""from bots_sdk import Bot, run


class B(Bot):
    def act(self, o):
        return o["legal_actions"][0]


run(B)
"""
BROKEN = b"import sys\n\n\ndef f(:\n    pass\n"


def _file(name: str, content: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, content, content_type="application/octet-stream")


def _zip(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


# --------------------------------------------------------------------------- identical uploads


def test_uploading_the_latest_versions_code_again_is_refused(alice: Any) -> None:
    first = bot_upload(owner=alice, name="shark", filename="shark.py", content=GOOD)
    with pytest.raises(UploadIdenticalError, match="identical to version 1 of shark"):
        bot_version_upload(bot=first.bot, filename="renamed.py", content=GOOD)
    with pytest.raises(UploadIdenticalError):
        bot_upload(owner=alice, name="SHARK", filename="shark.py", content=GOOD)
    assert BotVersion.objects.count() == 1
    # Changed code is a new version; going back to version 1's code is allowed again.
    second = bot_version_upload(bot=first.bot, filename="shark.py", content=GOOD + b"\n")
    third = bot_version_upload(bot=first.bot, filename="shark.py", content=GOOD)
    assert (second.number, third.number) == (2, 3)


def test_the_api_refuses_identical_code_with_400(alice: Any) -> None:
    api = api_client_for(alice)
    fields = {"name": "shark", "visibility": "public"}
    assert api.post("/api/bots/", {**fields, "file": _file("s.py", GOOD)}).status_code == 201
    again = api.post("/api/bots/", {**fields, "file": _file("s.py", GOOD)})
    assert again.status_code == 400
    assert again.json()["code"] == "upload_identical"
    assert "identical to version 1" in again.json()["detail"]


def test_the_upload_form_says_the_file_is_identical(alice: Any) -> None:
    client = client_for(alice)
    fields = {"name": "shark", "visibility": "public"}
    client.post("/upload/", {**fields, "file": _file("shark.py", GOOD)})
    response = client.post("/upload/", {**fields, "file": _file("shark.py", GOOD)})
    assert response.status_code == 200
    assert "this file is identical to version 1 of shark" in text_of(response)
    assert Bot.objects.get(name="shark").versions.count() == 1


# --------------------------------------------------------------------------- empty zip


@pytest.mark.parametrize("files", [{}, {"src/": b""}])
def test_an_empty_zip_is_reported_as_empty_not_as_missing_main(alice: Any, files: Any) -> None:
    with pytest.raises(UploadEmptyError, match="holds no file"):
        bot_upload(owner=alice, name="empty", filename="bot.zip", content=_zip(files))
    response = client_for(alice).post(
        "/upload/", {"name": "empty", "visibility": "public", "file": _file("bot.zip", _zip({}))}
    )
    assert "holds no file" in text_of(response) and "no main" not in text_of(response)


# --------------------------------------------------------------------------- file name and line


def test_the_uploaded_file_name_is_kept_and_shown(alice: Any) -> None:
    version = bot_upload(owner=alice, name="shark", filename="C:\\bots\\my_shark.py", content=GOOD)
    assert version.filename == "my_shark.py"
    page = client_for(alice).get(f"/bots/{version.bot_id}/")
    assert "my_shark.py" in text_of(page)


def test_build_locations_of_each_compiler() -> None:
    assert presenters.build_location("main.py, line 4: invalid syntax") == ("main.py", 4)
    assert presenters.build_location(
        "/bot/main.c: In function 'main':\n/bot/main.c:7:5: error: expected ';'"
    ) == ("main.c", 7)
    assert presenters.build_location("/bot/Main.java:3: error: ';' expected") == ("Main.java", 3)
    assert presenters.build_location("error: x\n --> /bot/main.rs:12:9\n") == ("main.rs", 12)
    assert presenters.build_location("pkg/util.py, line 2: bad") == ("pkg/util.py", 2)
    assert presenters.build_location("the compiler gave up") is None


def test_source_lines_of_a_single_file_and_of_a_zip_member(alice: Any) -> None:
    single = bot_upload(owner=alice, name="one", filename="one.py", content=BROKEN)
    assert version_source_lines(version=single, path="main.py", line=4, context=1) == [
        (3, ""),
        (4, "def f(:"),
        (5, "    pass"),
    ]
    zipped = bot_upload(
        owner=alice,
        name="two",
        filename="two.zip",
        content=_zip({"main.py": GOOD, "pkg/util.py": b"x = 1\ny = (\n"}),
    )
    assert version_source_lines(version=zipped, path="/bot/pkg/util.py", line=2, context=0) == [
        (2, "y = (")
    ]
    assert version_source_lines(version=zipped, path="pkg/none.py", line=1) == []
    assert version_source_lines(version=zipped, path="main.py", line=999) == []


def _failed_build(version: BotVersion, output: str) -> None:
    report = {
        "files": ["main.py"],
        "build": {"ok": False, "output": output},
        "errors": [output],
    }
    BotVersion.objects.filter(pk=version.pk).update(
        status=VersionStatus.FAILED, validation_report=report
    )


def test_a_failed_build_shows_the_uploaded_file_and_the_offending_line(
    alice: Any, bob: Any
) -> None:
    version = bot_upload(owner=alice, name="broken", filename="my_bot.py", content=BROKEN)
    _failed_build(version, "main.py, line 4: invalid syntax")
    page = client_for(alice).get(f"/bots/{version.bot_id}/")
    text = text_of(page)
    assert "main.py, line 4: invalid syntax" in text
    assert "In my_bot.py (run as main.py), line 4:" in text
    html = page.content.decode()
    assert '<span class="source-line offending"><span class="line-number">4</span>def f(:' in html
    # Others read neither the report nor the code.
    assert "def f(:" not in client_for(bob).get(f"/bots/{version.bot_id}/").content.decode()


def test_a_zip_build_failure_quotes_the_member(alice: Any) -> None:
    content = _zip({"main.py": GOOD, "helpers.py": b"a = 1\nb = ]\n"})
    version = bot_upload(owner=alice, name="zipped", filename="bot.zip", content=content)
    _failed_build(version, "helpers.py, line 2: unmatched ']'")
    text = text_of(client_for(alice).get(f"/bots/{version.bot_id}/"))
    assert "In helpers.py, line 2:" in text and "b = ]" in text


# --------------------------------------------------------------------------- My bots


def test_my_bots_shows_a_failed_latest_version(alice: Any) -> None:
    failed = BotVersionFactory(bot=BotFactory(owner=alice, name="crashy"))
    BotVersion.objects.filter(pk=failed.pk).update(status=VersionStatus.FAILED)
    playing = BotVersionFactory(bot=BotFactory(owner=alice, name="steady"))
    BotVersion.objects.filter(pk=playing.pk).update(status=VersionStatus.ACTIVE)
    html = client_for(alice).get("/players/alice/").content.decode()
    crashy = html[html.index(">crashy<") :]
    crashy = crashy[: crashy.index("</tr>")]
    assert "badge status-failed" in crashy and ">failed<" in crashy
    steady = html[html.index(">steady<") :]
    steady = steady[: steady.index("</tr>")]
    assert "status-failed" not in steady and "v1" in steady


# --------------------------------------------------------------------------- log download


def test_the_log_downloads_as_a_file(alice: Any, bob: Any) -> None:
    ladder = LadderFactory()
    match, _ = play_match(
        ladder,
        [
            BotVersionFactory(bot=BotFactory(owner=alice)),
            BotVersionFactory(bot=BotFactory(owner=bob)),
        ],
        3,
    )
    page = client_for().get(f"/matches/{match.pk}/").content.decode()
    href = f"/api/matches/{match.pk}/log/?format=json&amp;download=1"
    assert f'href="{href}"' in page and f'download="match-{match.pk}.json"' in page
    response = client_for().get(f"/api/matches/{match.pk}/log/?format=json&download=1")
    assert response.status_code == 200
    assert response["Content-Disposition"] == f'attachment; filename="match-{match.pk}.json"'
    plain = client_for().get(f"/api/matches/{match.pk}/log/")
    assert "Content-Disposition" not in plain
