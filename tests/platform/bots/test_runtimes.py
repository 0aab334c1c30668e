"""Bots in every runtime through the platform: upload, sandboxed build, pre-flight, matches.

Each starter kit (``bots_sdk/kits``) is uploaded over the API as one source
file, the way its README says; a real Celery worker builds it in the
sandbox, keeps the program in the storage, passes its pre-flight and plays
rated matches with it. The other tests here need no worker: the runtime
found from the upload, the explicit runtime, the build's report.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import Any

import pytest
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

from arena.bots.models import BotVersion, CodeFormat, Runtime, VersionStatus
from arena.bots.services import bot_upload, bot_version_validate
from arena.ladders.models import RatingChange
from arena.matches.models import Match, MatchStatus
from arena.matches.services import match_create
from bots_sdk.kits import KITS
from bots_sdk.runtimes import RUNTIMES
from tests.platform.api_support import api_upload, client_for
from tests.platform.ladders.test_match_pipeline import classic_2, house_bot, replay
from tests.platform.scenes import enter, on_ladder, publish_match
from tests.platform.worker import needs_redis, needs_shared_database, redis_worker, wait_for

KITS_DIR = Path(__file__).resolve().parents[3] / "bots_sdk" / "kits"

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


def kit_file(lang: str) -> tuple[str, bytes]:
    main = RUNTIMES[lang].main
    return main, (KITS_DIR / lang / main).read_bytes()


def test_the_model_s_runtimes_are_the_sdk_s() -> None:
    assert [value for value, _ in Runtime.choices] == list(RUNTIMES)
    assert set(KITS) == set(RUNTIMES)


@pytest.mark.parametrize(
    ("filename", "runtime"),
    [("shark.c", "c"), ("Shark.java", "java"), ("shark.rs", "rust"), ("shark.cc", "cpp")],
)
def test_a_single_file_s_runtime_comes_from_its_suffix(
    alice: Any, filename: str, runtime: str
) -> None:
    _, code = kit_file(runtime)
    version = bot_upload(owner=alice, name="shark", filename=filename, content=code)
    assert (version.runtime, version.code_format) == (runtime, CodeFormat.FILE)
    assert version.validation_report["files"] == [RUNTIMES[runtime].main]
    assert version.code.name.endswith("." + RUNTIMES[runtime].main.rpartition(".")[2])


def test_a_zip_s_runtime_comes_from_its_main_file_or_is_named(alice: Any) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("main.go", kit_file("go")[1])
        archive.writestr("notes.txt", "hello")
    version = bot_upload(
        owner=alice, name="gopher", filename="gopher.zip", content=buffer.getvalue()
    )
    assert (version.runtime, version.code_format) == ("go", CodeFormat.ZIP)

    # A file whose name tells nothing: the uploader names the runtime (over the API).
    named = api_upload(alice, "plain", "bot.txt", kit_file("c")[1], runtime="c")
    assert (named.runtime, named.validation_report["files"]) == ("c", ["main.c"])
    refused = client_for(alice).post(
        "/api/bots/",
        {"name": "perl", "file": SimpleUploadedFile("bot.pl", b"print 1;\n"), "runtime": "perl"},
        format="multipart",
    )
    assert refused.status_code == 400
    assert refused.json()["runtime"] == ['"perl" is not a valid choice.']


def test_a_compile_error_fails_the_version_with_the_compiler_s_words(alice: Any) -> None:
    broken = b"int main(void) { return 0 }\n"
    version = bot_upload(owner=alice, name="broken", filename="broken.c", content=broken)
    version = bot_version_validate(version=version)

    assert version.status == VersionStatus.FAILED
    build = version.validation_report["build"]
    assert (build["runtime"], build["ok"]) == ("c", False)
    assert build["output"].startswith("the build failed: gcc exited with status 1:\n")
    assert "/bot/main.c:1:26: error: expected ';' before '}' token" in build["output"]
    assert version.validation_report["games"] == {}
    assert version.build == ""

    browser = Client()
    browser.force_login(alice)
    page = browser.get(f"/bots/{version.bot_id}/").content.decode()
    assert "The build failed" in page and "expected &#x27;;&#x27; before" in page


@needs_shared_database
@needs_redis
@pytest.mark.django_db(transaction=True)
def test_every_kit_builds_qualifies_and_plays_rated_matches_on_a_real_worker(
    alice: Any, house: Any, media_root: Path, tmp_path: Path, settings: Any
) -> None:
    settings.ARENA_BUILDS_IN_FLIGHT_MAX = len(RUNTIMES)  # alice uploads every kit at once
    ladder = classic_2()
    greedy = house_bot(house, "greedy")
    enter(greedy, ladder)
    with redis_worker(tmp_path, media_root):
        versions = {
            lang: api_upload(alice, f"kit-{lang}", *kit_file(lang), ladders=ladder.slug)
            for lang in RUNTIMES
        }

        def validated() -> bool:
            states = BotVersion.objects.filter(pk__in=[v.pk for v in versions.values()])
            return all(v.status in (VersionStatus.ACTIVE, VersionStatus.FAILED) for v in states)

        wait_for(validated, timeout=240, what="the worker to build and validate every kit")
        for lang, version in versions.items():
            version.refresh_from_db()
            assert version.status == VersionStatus.ACTIVE, (lang, version.validation_report)
            assert version.validation_report["build"]["ok"] is True
            assert version.validation_report["games"]["classic-2"]["passed"] is True
            if RUNTIMES[lang].builds_program:
                # Kept by content: the match below runs this program, never a new build.
                assert version.build.startswith("bots/builds/"), lang
                assert default_storage.exists(version.build)
            else:
                assert version.build == ""

        matches = [
            publish_match(match_create(**on_ladder(ladder), versions=[versions[lang], greedy]))
            for lang in RUNTIMES
        ]

        def rated() -> bool:
            done = Match.objects.filter(pk__in=[m.pk for m in matches])
            return all(m.status == MatchStatus.FINISHED and m.rated_at for m in done)

        wait_for(rated, timeout=240, what="the worker to play and rate a match of every kit")
    for lang, match in zip(RUNTIMES, matches, strict=True):
        seat = match.participants.get(seat=0)
        assert seat.forfeit == "", (lang, seat.forfeit)
        assert RatingChange.objects.filter(match=match).count() == 2
        downloaded = APIClient().get(f"/api/matches/{match.pk}/log/")
        assert "replay ok" in replay(downloaded.content, tmp_path)
