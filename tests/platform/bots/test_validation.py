"""Validation of a version: compile checks, then the SDK's pre-flight games in the sandbox.

The bots here run for real (bubblewrap, cgroups), in this process: the
worker path is covered by test_match_pipeline.
"""

from __future__ import annotations

import io
import os
import pwd
import stat
import zipfile
from pathlib import Path
from typing import Any

import pytest

from arena.bots import sandboxing
from arena.bots.models import BotVersion, VersionStatus
from arena.bots.sandboxing import IsolationUnavailableError, materialised
from arena.bots.services import bot_upload, bot_version_upload, bot_version_validate
from arena.ladders.flows import entries_set
from arena.ladders.models import Qualification, QualificationStatus, Rating
from arena.ladders.tasks import version_qualify as qualify_task
from bots_sdk import sandbox
from bots_sdk.games import GameSetup
from tests.platform.factories import BotFactory, LadderFactory, RatingFactory
from tests.platform.worker import GOOD_BOT, protocol_bot

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

# Answers its second request with an action no game allows, after a word on stderr.
CHEAT_BOT = protocol_bot(
    before='if count == 2: print("about to cheat", file=sys.stderr, flush=True)',
    decide='"place 9" if count == 2 else legal[0]',
)
# Dies before the handshake, as a bot with a missing dependency does.
CRASH_BOT = b"import numpyy\n"


def upload(owner: Any, content: bytes, name: str = "shark", filename: str = "") -> BotVersion:
    return bot_upload(owner=owner, name=name, filename=filename or f"{name}.py", content=content)


def test_a_good_bot_plays_the_preflight_in_the_sandbox_and_becomes_active(alice: Any) -> None:
    version = bot_version_validate(version=upload(alice, GOOD_BOT))

    assert version.status == VersionStatus.ACTIVE
    report = version.validation_report
    assert report["passed"] is True and report["errors"] == []
    assert report["validator"] == "preflight-4" and report["sandboxed"] is True
    preflight = report["games"]["default"]
    assert preflight["passed"] is True and preflight["fault"] is None
    assert (preflight["game"]["rules"], preflight["game"]["seats"]) == ("classic", 4)
    # A seat drawn at random, against house bots drawn at random (no ladder to draw from).
    assert preflight["seat"] in range(4) and preflight["game_id"] == 1
    assert len(preflight["opponents"]) == 3
    assert preflight["decisions"] > 0 and preflight["forfeited"] is False
    # A pids peak is only measured in the sandbox's cgroup.
    assert preflight["resources"]["pids_peak"] is not None


def test_each_game_is_checked_with_its_own_setup_on_a_fresh_seed(alice: Any) -> None:
    games = {
        "cards": GameSetup("cardgame", 3),
        "royale": GameSetup("royale", 2, {"tiles": 2}),
    }
    version = bot_version_validate(version=upload(alice, GOOD_BOT), games=games)

    played = version.validation_report["games"]
    assert set(played) == {"cards", "royale"}
    assert played["cards"]["game"]["rules"] == "cardgame"
    assert played["cards"]["game"]["seats"] == 3 and len(played["cards"]["result"]) == 3
    assert played["royale"]["game"]["options"] == {"tiles": 2}
    assert played["cards"]["seed"] != played["royale"]["seed"]
    again = bot_version_validate(version=upload(alice, GOOD_BOT + b"# 2\n"), games=games)
    assert again.validation_report["games"]["cards"]["seed"] != played["cards"]["seed"]


def test_an_illegal_action_fails_the_version_with_request_reply_stderr_and_cause(
    alice: Any,
) -> None:
    version = bot_version_validate(version=upload(alice, CHEAT_BOT))

    assert version.status == VersionStatus.FAILED
    report = version.validation_report
    fault = report["games"]["default"]["fault"]
    legal = fault["request"]["observation"]["legal_actions"]
    message = f"'place 9' is not legal; legal: {', '.join(legal)}"
    assert report["errors"] == [f"default: illegal_action: {message}"]
    assert {k: fault["request"][k] for k in ("type", "id", "game_id")} == {
        "type": "request",
        "id": 2,
        "game_id": 1,
    }
    assert {k: v for k, v in fault.items() if k not in ("request", "elapsed_ms")} == {
        "cause": "illegal_action",
        "message": message,
        "reply": '{"type": "action", "id": 2, "action": "place 9"}',
        "stderr_tail": "about to cheat\n",
        "exit_code": None,
        "signal": 9,  # killed by the referee after the fault
    }
    assert report["games"]["default"]["forfeited"] is True


def test_a_crash_before_the_handshake_reports_the_exit_and_the_traceback(alice: Any) -> None:
    version = bot_version_validate(version=upload(alice, CRASH_BOT))

    assert version.status == VersionStatus.FAILED
    fault = version.validation_report["games"]["default"]["fault"]
    assert (fault["cause"], fault["exit_code"], fault["signal"]) == ("crashed", 1, None)
    assert fault["message"] == "the process exited with status 1"
    assert (fault["request"], fault["reply"]) == (None, None)
    assert fault["stderr_tail"].endswith("ModuleNotFoundError: No module named 'numpyy'\n")
    assert version.validation_report["errors"] == [
        "default: crashed: the process exited with status 1"
    ]


def test_a_syntax_error_fails_before_any_game(alice: Any) -> None:
    version = bot_version_validate(version=upload(alice, b"def act(:\n"))

    assert version.status == VersionStatus.FAILED
    assert version.validation_report["errors"] == ["main.py, line 1: invalid syntax"]
    assert version.validation_report["games"] == {}


def test_a_zip_bot_with_packages_is_written_out_and_validated(alice: Any) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("main.py", protocol_bot(prelude="from brain.pick import pick").decode())
        archive.writestr("brain/__init__.py", "")
        archive.writestr("brain/pick.py", "def pick(legal):\n    return legal[-1]\n")
    version = upload(alice, buffer.getvalue(), filename="shark.zip")

    assert bot_version_validate(version=version).status == VersionStatus.ACTIVE


def test_code_is_written_to_a_private_folder_removed_afterwards(alice: Any) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("main.py", GOOD_BOT.decode())
        archive.writestr("lib/helpers.py", "X = 1\n")
    version = upload(alice, buffer.getvalue(), filename="shark.zip")
    bot_gid = pwd.getpwnam("vegasbot").pw_gid

    with materialised(version) as files:
        folder = files.bot_dir
        assert files.program_dir is None  # Python builds no program
        assert folder.name != str(version.pk) and "shark" not in str(folder)
        assert (folder / "main.py").read_bytes() == GOOD_BOT
        for path, mode in ((folder, 0o750), (folder / "lib", 0o750), (folder / "main.py", 0o640)):
            info = os.stat(path)
            # The worker and the bot user's group only: no other user reads it.
            assert (stat.S_IMODE(info.st_mode), info.st_gid) == (mode, bot_gid), path
    assert not folder.exists()


def test_a_house_bot_is_validated_bare(house: Any) -> None:
    bot = BotFactory(owner=house, name="greedy")
    code = (Path(sandbox.__file__).parents[1] / "house" / "greedy_bot.py").read_bytes()
    version = bot_version_upload(bot=bot, filename="greedy_bot.py", content=code)
    version = bot_version_validate(version=version)

    assert version.status == VersionStatus.ACTIVE
    assert version.validation_report["sandboxed"] is False


def test_the_newest_version_replaces_the_previous_which_keeps_its_history(alice: Any) -> None:
    v1 = bot_version_validate(version=upload(alice, GOOD_BOT))
    RatingFactory(ladder=LadderFactory(), bot_version=v1, rating=1620.0, rated_matches=40)
    v2 = bot_version_validate(version=upload(alice, GOOD_BOT + b"# v2\n"))

    v1.refresh_from_db()
    assert (v1.status, v2.status) == (VersionStatus.RETIRED, VersionStatus.ACTIVE)
    assert Rating.objects.get(bot_version=v1).rating == 1620.0


def test_an_older_version_validated_last_does_not_replace_a_newer_one(alice: Any) -> None:
    bot = BotFactory(owner=alice, name="shark")
    v1, v2 = (
        bot_version_upload(bot=bot, filename="s.py", content=code)
        for code in (GOOD_BOT, GOOD_BOT + b"# v2\n")
    )
    bot_version_validate(version=v2)
    v1 = bot_version_validate(version=v1)

    assert v1.status == VersionStatus.RETIRED and v1.validation_report["passed"] is True
    assert BotVersion.objects.get(pk=v2.pk).status == VersionStatus.ACTIVE


@pytest.fixture
def no_sandbox(monkeypatch: pytest.MonkeyPatch) -> str:
    """This process as a worker whose sandbox self-test failed."""
    missing = sandbox.SandboxUnavailableError(["bubblewrap not installed ('bwrap' not found)"])

    def failing_self_test(config: Any = None) -> Any:
        raise missing

    monkeypatch.setattr(sandboxing, "_self_tested", False)
    monkeypatch.setattr(sandboxing, "_self_test_problem", None)
    monkeypatch.setattr(sandbox, "self_test", failing_self_test)
    problem = sandboxing.worker_self_test()
    assert problem == str(missing)
    return problem


def test_a_worker_without_the_sandbox_refuses_untrusted_bots_naming_what_is_missing(
    alice: Any, no_sandbox: str
) -> None:
    version = upload(alice, GOOD_BOT)
    ladder = LadderFactory()
    entries_set(bot=version.bot, ladders=[ladder])
    with pytest.raises(IsolationUnavailableError) as refused:
        bot_version_validate(version=version)

    assert "this worker cannot isolate untrusted bots" in str(refused.value)
    assert "bubblewrap not installed" in str(refused.value)
    # Not the bot's fault: it waits for a worker that can isolate it.
    version.refresh_from_db()
    assert version.status == VersionStatus.PENDING
    assert "bubblewrap not installed" in version.validation_report["infra_error"]
    qualify_task(version.pk)  # the task logs it and lets the sweep retry later
    version.refresh_from_db()
    assert version.status == VersionStatus.PENDING
    assert Qualification.objects.get(bot_version=version).status == QualificationStatus.PENDING


def test_a_worker_without_the_sandbox_still_validates_house_bots(
    house: Any, no_sandbox: str
) -> None:
    bot = BotFactory(owner=house, name="raw")
    version = bot_version_upload(bot=bot, filename="raw.py", content=GOOD_BOT)
    assert bot_version_validate(version=version).status == VersionStatus.ACTIVE
