"""Close a ladder's running season (docs/ladders.md, *Seasons*): its standings are
archived for good and the next season opens, its ratings carried over or reset.

    manage.py close_season classic-4 --next reset --by carol [--season 3] [--name "Winter"]
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from arena.errors import ArenaError
from arena.ladders.selectors import ladder_current_season, ladder_get
from arena.ladders.services import season_close
from arena.players.models import User


class Command(BaseCommand):
    help = "Close a ladder's season into its final table and open the next one."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("ladder", help="The ladder's slug.")
        parser.add_argument(
            "--next",
            dest="next_start",
            required=True,
            help='"carry" (ratings kept) or "reset" (every rating starts afresh).',
        )
        parser.add_argument("--by", required=True, help="Username of the staff member closing.")
        parser.add_argument(
            "--season",
            type=int,
            help="The number of the season to close (default: the running one's): "
            "refused if another season runs by then.",
        )
        parser.add_argument("--name", default="", help='The new season\'s name ("Season N").')

    def handle(self, *args: Any, **options: Any) -> None:
        ladder = ladder_get(slug=options["ladder"])
        if ladder is None:
            raise CommandError(f"no ladder {options['ladder']!r}.")
        by = User.objects.filter(username=options["by"]).first()
        if by is None:
            raise CommandError(f"no user {options['by']!r}.")
        number = options["season"] or ladder_current_season(ladder=ladder).number
        try:
            following = season_close(
                ladder=ladder,
                next_start=options["next_start"],
                by=by,
                season=number,
                name=options["name"],
            )
        except ArenaError as error:
            raise CommandError(error.message) from None
        self.stdout.write(
            f"{ladder.name}: season {number} closed and archived; {following.name} has begun."
        )
