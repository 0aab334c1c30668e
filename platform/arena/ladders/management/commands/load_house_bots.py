"""Create the house account, the default ladders, and the house bots, entered everywhere.

Idempotent: run it after every deploy. A house bot whose code did not change
keeps its version; changed code becomes a new version. Every house bot
enters every open ladder; its pre-flights there are queued for the workers
(``ladders.tasks.version_qualify``), so ladders play as soon as they pass.
"""

from __future__ import annotations

import hashlib
import importlib.util
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from arena.bots.models import Bot, BotVersion, VersionStatus
from arena.bots.services import bot_create
from arena.errors import ArenaError
from arena.ladders.flows import house_bot_enter_everywhere, ladder_create, version_submit
from arena.ladders.models import Ladder
from arena.players.models import User
from arena.players.selectors import HOUSE_USERNAME, house_user_get
from arena.players.services import player_create


@dataclass(frozen=True)
class DefaultLadder:
    slug: str
    name: str
    rules: str
    seats: int
    options: dict[str, bool | int] = field(default_factory=dict)
    #: Royale's tiles and Boulevard's modules mean more decisions: a larger bank.
    time_bank_ms: int = 10_000


#: One ladder per rule system (two for classic), each with its own limits. Each plays
#: what ``ladder_create`` chooses by its seats: duplicate deals on classic-2.
DEFAULT_LADDERS: tuple[DefaultLadder, ...] = (
    DefaultLadder("classic-2", "Classic, 2 seats", "classic", 2),
    DefaultLadder("classic-4", "Classic, 4 seats", "classic", 4),
    DefaultLadder(
        "boulevard-4", "Boulevard, 4 seats, all modules", "boulevard", 4, time_bank_ms=15_000
    ),
    DefaultLadder("cardgame-4", "Card game, 4 seats", "cardgame", 4),
    DefaultLadder(
        "royale-4", "Royale, 4 seats, action tiles", "royale", 4, {"tiles": 3}, time_bank_ms=15_000
    ),
    DefaultLadder("sixdice-4", "Six dice, 4 seats", "sixdice", 4),
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
        for ladder in DEFAULT_LADDERS:
            if Ladder.objects.filter(slug=ladder.slug).exists():
                self.stdout.write(f"ladder {ladder.slug}: exists")
                continue
            try:
                created = ladder_create(
                    slug=ladder.slug,
                    name=ladder.name,
                    rules=ladder.rules,
                    seats=ladder.seats,
                    options=ladder.options,
                    time_bank_ms=ladder.time_bank_ms,
                )
            except ArenaError as error:
                raise CommandError(f"ladder {ladder.slug}: {error.message}") from None
            plays = "duplicate deals" if created.duplicate_deals else "single games"
            self.stdout.write(self.style.SUCCESS(f"ladder {ladder.slug}: created, {plays}"))

    def _house_bot(self, house: User, path: Path) -> None:
        # bots_sdk/house/greedy_bot.py is the house bot "greedy".
        name = path.stem.removesuffix("_bot")
        content = path.read_bytes()
        try:
            with transaction.atomic():
                bot = Bot.objects.filter(owner=house, name__iexact=name).first()
                if bot is None:
                    bot = bot_create(owner=house, name=name)
                latest: BotVersion | None = bot.versions.order_by("-number").first()
                unchanged = (
                    latest is not None
                    and latest.status in (VersionStatus.ACTIVE, VersionStatus.PENDING)
                    and latest.code_sha256 == hashlib.sha256(content).hexdigest()
                )
                if not unchanged:
                    latest = version_submit(bot=bot, filename=path.name, content=content)
                house_bot_enter_everywhere(bot=bot)
        except ArenaError as error:
            raise CommandError(f"house bot {name}: {error.message}") from None
        assert latest is not None
        latest.refresh_from_db()
        state = "unchanged" if unchanged else "new"
        self.stdout.write(
            self.style.SUCCESS(
                f"house bot {name}: v{latest.number} {state}, {latest.status}; "
                f"entered on {bot.entries.count()} ladders"
            )
        )
