"""The load_house_bots command: house account, default ladders, house bots as active versions."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from arena.bots.models import Bot, BotVersion, VersionStatus
from arena.ladders.models import Ladder
from arena.players.models import User

pytestmark = pytest.mark.django_db

# Real SDK bots: validation plays a pre-flight game with each (house bots run bare).
RANDOM_BOT = b"""\
import random

from bots_sdk import Bot, run


class Random(Bot):
    def act(self, observation):
        return random.choice(observation["legal_actions"])


run(Random)
"""
GREEDY_BOT = b"""\
from bots_sdk import Bot, run


class Greedy(Bot):
    def act(self, observation):
        return max(observation["legal_actions"])


run(Greedy)
"""


def run(folder: Path) -> str:
    out = StringIO()
    call_command("load_house_bots", "--dir", str(folder), stdout=out)
    return out.getvalue()


@pytest.fixture
def house_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "house"
    folder.mkdir()
    (folder / "random.py").write_bytes(RANDOM_BOT)
    (folder / "greedy_bot.py").write_bytes(GREEDY_BOT)
    (folder / "__init__.py").write_bytes(b"")
    return folder


def test_creates_the_house_the_ladders_and_active_house_bots(house_dir: Path) -> None:
    output = run(house_dir)

    house = User.objects.get(username="house")
    assert house.profile.is_house and not house.has_usable_password()
    assert set(Ladder.objects.values_list("slug", "rules", "seats")) == {
        ("classic-4", "classic", 4),
        ("boulevard-4", "boulevard", 4),
        ("classic-2", "classic", 2),
    }
    assert sorted(Bot.objects.filter(owner=house).values_list("name", flat=True)) == [
        "greedy",
        "random",
    ]
    assert set(BotVersion.objects.values_list("status", flat=True)) == {VersionStatus.ACTIVE}
    assert "house bot random: v1 active" in output


def test_running_again_changes_nothing_until_the_code_changes(house_dir: Path) -> None:
    run(house_dir)
    output = run(house_dir)
    assert "house bot greedy: v1 unchanged" in output
    assert BotVersion.objects.count() == 2

    (house_dir / "greedy_bot.py").write_bytes(GREEDY_BOT + b"# smarter\n")
    run(house_dir)
    greedy = Bot.objects.get(name="greedy")
    statuses = list(greedy.versions.order_by("number").values_list("number", "status"))
    assert statuses == [(1, VersionStatus.RETIRED), (2, VersionStatus.ACTIVE)]


def test_without_house_bot_files_it_skips_them_with_a_message(tmp_path: Path) -> None:
    output = run(tmp_path / "missing")
    assert "no house bot files" in output and "skipped" in output
    assert Ladder.objects.count() == 3
    assert not Bot.objects.exists()


def test_a_broken_house_bot_stops_the_command(house_dir: Path) -> None:
    (house_dir / "broken.py").write_bytes(b"def act(:\n")
    with pytest.raises(CommandError, match="broken v1 failed validation"):
        run(house_dir)


def test_default_folder_is_the_bots_sdk_house_package() -> None:
    from arena.bots.management.commands.load_house_bots import default_house_dir

    folder = default_house_dir()
    assert folder is not None and folder.parts[-2:] == ("bots_sdk", "house")


def test_the_bots_sdk_house_bots_load() -> None:
    out = StringIO()
    call_command("load_house_bots", stdout=out)
    # Whatever the SDK ships (random_bot.py, ...) loads and validates.
    assert "ladder classic-4: created" in out.getvalue()
    names = set(Bot.objects.values_list("name", flat=True))
    assert names <= {"random", "greedy", "montecarlo"}
    assert set(BotVersion.objects.values_list("status", flat=True)) <= {VersionStatus.ACTIVE}
