"""Uploading bot code: good uploads become versions; bad ones are refused, storing nothing."""

from __future__ import annotations

import io
import os
import stat
import zipfile
from typing import Any

import pytest
from django.core.files.storage import default_storage

from arena.bots import services as bot_services
from arena.bots import uploads
from arena.bots.models import Bot, BotVersion, CodeFormat, VersionStatus
from arena.bots.services import bot_upload, bot_version_upload
from arena.ladders.flows import bot_submit
from tests.platform.factories import BotFactory
from tests.platform.stored import stored_files

pytestmark = pytest.mark.django_db

# A real SDK bot: validation plays a pre-flight game with it.
GOOD_BOT = b"""\
from bots_sdk import Bot, run


class First(Bot):
    def act(self, observation):
        return observation["legal_actions"][0]


if __name__ == "__main__":
    run(First)
"""


def make_zip(members: dict[str, bytes], **kwargs: Any) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, **kwargs) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


# --------------------------------------------------------------------------- good uploads


def test_a_py_file_becomes_version_1_with_hash_and_size(alice: Any, each_storage: str) -> None:
    version = bot_upload(owner=alice, name="shark", filename="shark.py", content=GOOD_BOT)

    assert version.number == 1 and version.parent is None
    assert version.bot.owner == alice and version.bot.name == "shark"
    assert version.code_format == CodeFormat.FILE
    assert version.code_size == len(GOOD_BOT)
    assert len(version.code_sha256) == 64
    assert version.code.name == f"bots/code/{version.code_sha256[:2]}/{version.code_sha256}.py"
    with default_storage.open(version.code.name, "rb") as handle:
        assert handle.read() == GOOD_BOT
    assert stored_files() == [version.code.name]


def test_a_zip_with_main_py_becomes_a_version(alice: Any) -> None:
    content = make_zip({"main.py": GOOD_BOT, "lib/helpers.py": b"X = 1\n", "data/w.json": b"{}"})

    version = bot_upload(owner=alice, name="shark", filename="shark.zip", content=content)

    assert version.code_format == CodeFormat.ZIP
    assert version.code_size == len(content)
    assert version.code.name.endswith(".zip")
    assert version.validation_report["files"] == ["data/w.json", "lib/helpers.py", "main.py"]


def test_a_new_upload_is_the_next_version_of_the_same_bot(alice: Any) -> None:
    v1 = bot_upload(owner=alice, name="shark", filename="shark.py", content=GOOD_BOT)
    v2 = bot_upload(owner=alice, name="Shark", filename="shark.py", content=GOOD_BOT + b"# 2\n")

    assert v2.bot == v1.bot and Bot.objects.count() == 1
    assert (v2.number, v2.parent) == (2, v1)
    assert v2.code_sha256 != v1.code_sha256


def test_identical_uploads_share_one_stored_file(alice: Any, bob: Any, each_storage: str) -> None:
    a = bot_upload(owner=alice, name="shark", filename="shark.py", content=GOOD_BOT)
    b = bot_upload(owner=bob, name="copycat", filename="cat.py", content=GOOD_BOT)

    assert a.code.name == b.code.name
    assert len(stored_files()) == 1


def test_upload_queues_validation_which_activates_a_good_bot(
    alice: Any, django_capture_on_commit_callbacks: Any
) -> None:
    # A platform without ladders: the SDK's default pre-flight game gives the verdict.
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        version = bot_submit(owner=alice, name="shark", filename="shark.py", content=GOOD_BOT)
    assert len(callbacks) == 1
    version.refresh_from_db()
    assert version.status == VersionStatus.ACTIVE
    assert version.validation_report["passed"] is True


# --------------------------------------------------------------------------- bad uploads


def _symlink_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("main.py", GOOD_BOT)
        link = zipfile.ZipInfo("secrets.py")
        link.create_system = 3  # Unix: the mode bits are in external_attr
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(link, "/etc/passwd")
    return buffer.getvalue()


def _latin1_name_zip() -> bytes:
    # zipfile writes non-ASCII names as UTF-8; patch an ASCII placeholder into Latin-1 bytes.
    raw = make_zip({"main.py": GOOD_BOT, "cafX.py": b"X = 1\n"})
    return raw.replace(b"cafX.py", "caf\xe9.py".encode("latin-1"))


def _encrypted_zip() -> bytes:
    raw = bytearray(make_zip({"main.py": GOOD_BOT}))
    # Set the "encrypted" flag bit in the local and central headers.
    for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = raw.find(signature)
        raw[at + offset] |= 0x1
    return bytes(raw)


def _many_files_zip() -> bytes:
    return make_zip({"main.py": GOOD_BOT, **{f"m{i}.py": b"" for i in range(12)}})


def _bomb_zip() -> bytes:
    return make_zip({"main.py": GOOD_BOT, "zeros.bin": b"\0" * (2 * 1024 * 1024)})


def _too_large_zip() -> bytes:
    # Random hex text compresses about 2:1: large, but no bomb.
    return make_zip({"main.py": GOOD_BOT, "table.txt": os.urandom(60_000).hex().encode()})


def _corrupt_member_zip() -> bytes:
    raw = bytearray(make_zip({"main.py": GOOD_BOT * 50}))
    start = raw.find(b"PK\x03\x04") + 30 + len("main.py")
    raw[start + 10 : start + 20] = b"\xff" * 10
    return bytes(raw)


BAD_UPLOADS = [
    # (case, filename, content, error class, words the message must contain)
    ("wrong type", "shark.exe", b"MZ", uploads.UploadTypeError, [".py", ".zip"]),
    ("empty", "shark.py", b"", uploads.UploadEmptyError, ["empty"]),
    ("too large", "shark.py", b"#" * 5000, uploads.UploadTooLargeError, ["upload limit"]),
    (
        "not utf-8",
        "shark.py",
        b"x = '\xe9t\xe9'\n",
        uploads.SourceEncodingError,
        ["UTF-8", "line 1"],
    ),
    ("not a zip", "shark.zip", b"PK not really", uploads.ArchiveCorruptError, ["not a readable"]),
    (
        "corrupt member",
        "shark.zip",
        _corrupt_member_zip(),
        uploads.ArchiveCorruptError,
        ["main.py"],
    ),
    ("encrypted", "shark.zip", _encrypted_zip(), uploads.ArchiveEncryptedError, ["password"]),
    (
        "absolute path",
        "shark.zip",
        make_zip({"main.py": GOOD_BOT, "/etc/cron.d/x.py": b""}),
        uploads.ArchiveAbsolutePathError,
        ["absolute path", "/etc/cron.d/x.py"],
    ),
    (
        "windows drive",
        "shark.zip",
        make_zip({"main.py": GOOD_BOT, "C:/x.py": b""}),
        uploads.ArchiveAbsolutePathError,
        ["absolute path"],
    ),
    (
        "parent dir",
        "shark.zip",
        make_zip({"main.py": GOOD_BOT, "lib/../../evil.py": b""}),
        uploads.ArchiveParentPathError,
        ["'..'", "lib/../../evil.py"],
    ),
    ("symlink", "shark.zip", _symlink_zip(), uploads.ArchiveSymlinkError, ["symbolic link"]),
    (
        "non-utf-8 name",
        "shark.zip",
        _latin1_name_zip(),
        uploads.ArchiveNameEncodingError,
        ["not UTF-8", "rename"],
    ),
    (
        "duplicate",
        "shark.zip",
        make_zip({"main.py": GOOD_BOT, "./main.py": GOOD_BOT}),
        uploads.ArchiveDuplicateError,
        ["twice"],
    ),
    ("too many files", "shark.zip", _many_files_zip(), uploads.ArchiveTooManyFilesError, ["10"]),
    ("zip bomb", "shark.zip", _bomb_zip(), uploads.ArchiveBombError, ["zip bomb", "zeros.bin"]),
    ("expands too much", "shark.zip", _too_large_zip(), uploads.ArchiveTooLargeError, ["expands"]),
    (
        "no main.py",
        "shark.zip",
        make_zip({"bot.py": GOOD_BOT}),
        uploads.ArchiveMissingMainError,
        ["no main file (main.py, main.js, main.c", "at its top level"],
    ),
    (
        "main.py in a folder",
        "shark.zip",
        make_zip({"shark/main.py": GOOD_BOT}),
        uploads.ArchiveMissingMainError,
        ["'shark/main.py'", "contents of the folder 'shark'"],
    ),
    (
        "source not utf-8 in zip",
        "shark.zip",
        make_zip({"main.py": b"s = '\xff'\n"}),
        uploads.SourceEncodingError,
        ["main.py", "UTF-8"],
    ),
]


@pytest.fixture
def small_limits(settings: Any) -> None:
    settings.ARENA_UPLOAD_MAX_BYTES = 256 * 1024
    settings.ARENA_UPLOAD_MAX_UNCOMPRESSED_BYTES = 100_000
    settings.ARENA_UPLOAD_MAX_FILES = 10
    settings.ARENA_UPLOAD_MAX_RATIO = 100


@pytest.mark.parametrize(
    ("filename", "content", "error", "words"),
    [case[1:] for case in BAD_UPLOADS],
    ids=[case[0] for case in BAD_UPLOADS],
)
def test_bad_upload_is_refused_with_its_own_message_and_nothing_is_stored(
    small_limits: None,
    settings: Any,
    alice: Any,
    each_storage: str,
    filename: str,
    content: bytes,
    error: type[uploads.UploadError],
    words: list[str],
) -> None:
    if error is uploads.UploadTooLargeError:
        settings.ARENA_UPLOAD_MAX_BYTES = 4096

    with pytest.raises(error) as raised:
        bot_upload(owner=alice, name="shark", filename=filename, content=content)

    assert type(raised.value) is error
    for word in words:
        assert word in raised.value.message
    assert not Bot.objects.exists(), "a refused first upload must not leave an empty bot"
    assert not BotVersion.objects.exists()
    assert stored_files() == []


def test_a_failure_after_the_file_was_written_removes_it(
    alice: Any, each_storage: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot = BotFactory(owner=alice, name="shark")

    def broken_create(**kwargs: Any) -> None:
        raise RuntimeError("database went away")

    monkeypatch.setattr(bot_services.BotVersion.objects, "create", broken_create)
    with pytest.raises(RuntimeError, match="went away"):
        bot_version_upload(bot=bot, filename="shark.py", content=GOOD_BOT)

    assert not BotVersion.objects.exists()
    assert stored_files() == []


def test_a_failure_keeps_a_file_that_another_version_shares(
    alice: Any, each_storage: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = bot_upload(owner=alice, name="shark", filename="shark.py", content=GOOD_BOT)

    def broken_create(**kwargs: Any) -> None:
        raise RuntimeError("database went away")

    monkeypatch.setattr(bot_services.BotVersion.objects, "create", broken_create)
    with pytest.raises(RuntimeError):
        # Another bot of the same code (the same bot refuses identical code before storing).
        bot_upload(owner=alice, name="tuna", filename="shark.py", content=GOOD_BOT)

    assert stored_files() == [first.code.name]


def test_bot_names_are_checked(alice: Any) -> None:
    with pytest.raises(bot_services.BotNameError, match="letters, digits"):
        bot_upload(owner=alice, name="../shark", filename="shark.py", content=GOOD_BOT)
    bot_services.bot_create(owner=alice, name="shark")
    with pytest.raises(bot_services.BotNameTakenError, match="already have a bot"):
        bot_services.bot_create(owner=alice, name="SHARK")
