"""Create the house account, the default ladders, and the house bots as active versions.

Idempotent: run it after every deploy. A house bot whose code did not change
keeps its version; changed code becomes a new version (validated here, then
active, retiring the previous one).
"""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from arena.bots.models import Bot, BotVersion, VersionStatus
from arena.bots.services import bot_create, bot_version_upload, bot_version_validate
from arena.errors import ArenaError
from arena.ladders.models import Ladder
from arena.ladders.services import ladder_create
from arena.players.models import User
from arena.players.selectors import HOUSE_USERNAME, house_user_get
from arena.players.services import player_create

# (slug, name, rule system, seats)
DEFAULT_LADDERS: tuple[tuple[str, str, str, int], ...] = (
    ("classic-4", "Classic, 4 seats", "classic", 4),
    ("boulevard-4", "Boulevard, 4 seats", "boulevard", 4),
    ("classic-2", "Classic, 2 seats", "classic", 2),
)


def default_house_dir() -> Path | None:
    """``bots_sdk/house`` of the installed bots SDK, if it is importable."""
    spec = importlib.util.find_spec("bots_sdk")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "house"


class Command(BaseCommand):
    help = "Create the house account, the default ladders and the house bots (idempotent)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--dir",
            type=Path,
            default=None,
            help="Folder of house bot .py files (default: bots_sdk/house).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        house = house_user_get() or player_create(
            username=HOUSE_USERNAME, display_name="House", is_house=True
        )
        self._ladders()
        folder: Path | None = options["dir"] or default_house_dir()
        files = sorted(folder.glob("*.py")) if folder and folder.is_dir() else []
        files = [f for f in files if not f.name.startswith("_")]
        if not files:
            self.stdout.write(
                self.style.WARNING(
                    f"no house bot files in {folder}: skipped the house bots "
                    "(the bots SDK provides them as bots_sdk/house/*.py)."
                )
            )
            return
        for path in files:
            self._house_bot(house, path)

    def _ladders(self) -> None:
        for slug, name, rules, seats in DEFAULT_LADDERS:
            if Ladder.objects.filter(slug=slug).exists():
                self.stdout.write(f"ladder {slug}: exists")
                continue
            try:
                ladder_create(slug=slug, name=name, rules=rules, seats=seats)
            except ArenaError as error:
                raise CommandError(f"ladder {slug}: {error.message}") from None
            self.stdout.write(self.style.SUCCESS(f"ladder {slug}: created"))

    def _house_bot(self, house: User, path: Path) -> None:
        # bots_sdk/house/greedy_bot.py is the house bot "greedy".
        name = path.stem.removesuffix("_bot")
        content = path.read_bytes()
        bot = Bot.objects.filter(owner=house, name__iexact=name).first()
        if bot is None:
            bot = bot_create(owner=house, name=name)
        latest: BotVersion | None = bot.versions.order_by("-number").first()
        unchanged = (
            latest is not None
            and latest.status == VersionStatus.ACTIVE
            and latest.code_sha256 == hashlib.sha256(content).hexdigest()
        )
        if unchanged:
            assert latest is not None
            self.stdout.write(f"house bot {name}: v{latest.number} unchanged")
            return
        try:
            version = bot_version_upload(
                bot=bot, filename=path.name, content=content, queue_validation=False
            )
        except ArenaError as error:
            raise CommandError(f"house bot {name}: {error.message}") from None
        version = bot_version_validate(version=version)
        if version.status != VersionStatus.ACTIVE:
            errors = "; ".join(version.validation_report.get("errors", []))
            raise CommandError(f"house bot {name} v{version.number} failed validation: {errors}")
        self.stdout.write(self.style.SUCCESS(f"house bot {name}: v{version.number} active"))
