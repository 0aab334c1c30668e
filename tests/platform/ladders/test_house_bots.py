"""The load_house_bots command: house account, default ladders, house bots entered everywhere.

The command queues the house bots' pre-flights for the workers; here they run
when the command's transactions commit (captured on-commit callbacks).
"""

from __future__ import annotations

from collections.abc import Callable
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from arena.bots.models import Bot, BotVersion, VersionStatus
from arena.ladders.management.commands.load_house_bots import DEFAULT_LADDERS
from arena.ladders.models import Entry, Ladder, Qualification, QualificationStatus
from arena.players.models import User
from tests.platform.factories import MatchFactory

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

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


Run = Callable[[Path], str]


@pytest.fixture
def run(django_capture_on_commit_callbacks: Any) -> Run:
    """The command; the pre-flights it queues on commit run then, as a worker runs them."""

    def command(folder: Path) -> str:
        out = StringIO()
        with django_capture_on_commit_callbacks(execute=True):
            call_command("load_house_bots", "--dir", str(folder), stdout=out)
        return out.getvalue()

    return command


@pytest.fixture
def house_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "house"
    folder.mkdir()
    (folder / "random.py").write_bytes(RANDOM_BOT)
    (folder / "greedy_bot.py").write_bytes(GREEDY_BOT)
    (folder / "__init__.py").write_bytes(b"")
    return folder


def test_creates_the_house_the_ladders_and_active_house_bots(house_dir: Path, run: Run) -> None:
    output = run(house_dir)

    house = User.objects.get(username="house")
    assert house.profile.is_house and not house.has_usable_password()
    assert set(Ladder.objects.values_list("slug", "rules", "seats")) == {
        ("classic-2", "classic", 2),
        ("classic-4", "classic", 4),
        ("boulevard-4", "boulevard", 4),
        ("cardgame-4", "cardgame", 4),
        ("royale-4", "royale", 4),
        ("sixdice-4", "sixdice", 4),
    }
    assert Ladder.objects.get(slug="royale-4").options["tiles"] == 3
    # The 2-seat ladder plays duplicate deals (ladder_create's default there), the others not.
    assert set(Ladder.objects.filter(duplicate_deals=True).values_list("slug", flat=True)) == {
        "classic-2"
    }
    assert "ladder classic-2: created, duplicate deals" in output
    assert "ladder classic-4: created, single games" in output
    assert all(Ladder.objects.get(slug="boulevard-4").options.values())  # every module
    assert sorted(Bot.objects.filter(owner=house).values_list("name", flat=True)) == [
        "greedy",
        "random",
    ]
    assert "house bot random: v1 new" in output
    # Each house bot entered every ladder and passed each one's own pre-flight game.
    assert Entry.objects.count() == 2 * len(DEFAULT_LADDERS)
    assert set(BotVersion.objects.values_list("status", flat=True)) == {VersionStatus.ACTIVE}
    games = {
        (q.ladder.rules, q.report["game"]["rules"], q.status) for q in Qualification.objects.all()
    }
    assert games == {(d.rules, d.rules, QualificationStatus.PASSED) for d in DEFAULT_LADDERS}


def test_running_again_changes_nothing_until_the_code_changes(house_dir: Path, run: Run) -> None:
    run(house_dir)
    output = run(house_dir)
    assert "house bot greedy: v1 unchanged" in output
    assert BotVersion.objects.count() == 2

    (house_dir / "greedy_bot.py").write_bytes(GREEDY_BOT + b"# smarter\n")
    run(house_dir)
    greedy = Bot.objects.get(name="greedy")
    statuses = list(greedy.versions.order_by("number").values_list("number", "status"))
    assert statuses == [(1, VersionStatus.RETIRED), (2, VersionStatus.ACTIVE)]


def test_an_existing_ladder_keeps_what_it_plays(house_dir: Path, run: Run) -> None:
    # A database from before the default changed: its classic-2 played single games.
    from arena.ladders.flows import ladder_create

    old = ladder_create(
        slug="classic-2", name="Classic, 2 seats", rules="classic", seats=2, duplicate_deals=False
    )
    MatchFactory(ladder=old)

    output = run(house_dir)

    assert "ladder classic-2: exists" in output
    assert Ladder.objects.get(slug="classic-2").duplicate_deals is False


def test_without_house_bot_files_it_skips_them_with_a_message(tmp_path: Path, run: Run) -> None:
    output = run(tmp_path / "missing")
    assert "no house bot files" in output and "skipped" in output
    assert Ladder.objects.count() == len(DEFAULT_LADDERS)
    assert not Bot.objects.exists()


def test_a_broken_house_bot_fails_its_preflights_and_plays_nowhere(
    house_dir: Path, run: Run
) -> None:
    (house_dir / "broken.py").write_bytes(b"def act(:\n")
    run(house_dir)
    broken = BotVersion.objects.get(bot__name="broken")
    assert broken.status == VersionStatus.FAILED
    assert broken.validation_report["errors"] == ["main.py, line 1: invalid syntax"]
    assert set(
        Qualification.objects.filter(bot_version=broken).values_list("status", flat=True)
    ) == {QualificationStatus.FAILED}
    assert BotVersion.objects.get(bot__name="greedy").status == VersionStatus.ACTIVE


def test_a_new_ladder_is_entered_by_every_house_bot(
    house_dir: Path, run: Run, django_capture_on_commit_callbacks: Any
) -> None:
    from arena.ladders.flows import ladder_create

    run(house_dir)
    with django_capture_on_commit_callbacks(execute=True):
        ladder = ladder_create(slug="sixdice-6", name="Six dice, 6", rules="sixdice", seats=6)
    assert set(ladder.entries.values_list("bot__name", flat=True)) == {"greedy", "random"}
    assert set(ladder.qualifications.values_list("status", flat=True)) == {
        QualificationStatus.PASSED
    }


def test_default_folder_is_the_bots_sdk_house_package() -> None:
    from arena.ladders.management.commands.load_house_bots import default_house_dir

    folder = default_house_dir()
    assert folder is not None and folder.parts[-2:] == ("bots_sdk", "house")


def test_the_bots_sdk_house_bots_load(django_capture_on_commit_callbacks: Any) -> None:
    out = StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("load_house_bots", stdout=out)
    # Whatever the SDK ships (random_bot.py, ...) loads and validates.
    assert "ladder classic-4: created" in out.getvalue()
    names = set(Bot.objects.values_list("name", flat=True))
    assert names == {"random", "greedy", "gambler", "montecarlo", "ismcts"}
    assert set(BotVersion.objects.values_list("status", flat=True)) == {VersionStatus.ACTIVE}
    # Enough of them that every default ladder, four seats included, can seat a match.
    for ladder in Ladder.objects.all():
        passed = ladder.qualifications.filter(status=QualificationStatus.PASSED).count()
        assert passed >= ladder.seats, ladder
