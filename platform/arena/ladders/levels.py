"""Reads on the levels: the house bots of ``bots_sdk.levels`` as they play here.

A level is a house bot (``bots_sdk.levels.LEVELS`` says which, weakest
first). This module finds each level's bot and live ratings, the level a
house bot is, and which levels a bot has *beaten*: the one rule of it is
:func:`has_beaten`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from django.contrib.auth.models import AnonymousUser

from arena.bots.models import Bot, VersionStatus
from arena.matches.models import Match, MatchStatus, Participant
from arena.matches.selectors import matches_visible
from arena.players.models import User
from arena.players.selectors import HOUSE_USERNAME
from bots_sdk.launcher import HOUSE_DIR
from bots_sdk.levels import LEVELS, Level

from .models import Ladder, Rating

#: Games on a ladder with both at the table before a level can count as beaten.
BEATEN_MIN_GAMES = 20
#: The latest matches with a level a bot page links to, per ladder.
BEATEN_MATCHES_SHOWN = 5


def has_beaten(*, games: int, ahead: int, behind: int) -> bool:
    """The rule: a bot has beaten a level on a ladder when, in at least
    :data:`BEATEN_MIN_GAMES` finished games of that ladder (rated or challenges)
    where both sat at the table, it finished ahead of the level more often than
    behind it (equal ranks count neither way)."""
    return games >= BEATEN_MIN_GAMES and ahead > behind


def level_bots() -> dict[int, Level]:
    """The house bot of each level, by bot id (the levels this platform has loaded)."""
    by_name = {level.bot: level for level in LEVELS}
    rows = Bot.objects.filter(owner__username=HOUSE_USERNAME, name__in=list(by_name))
    return {bot_id: by_name[name] for bot_id, name in rows.values_list("pk", "name")}


@dataclass(frozen=True)
class LevelRow:
    """A level on the Levels page: its bot here (None until loaded) and its ratings."""

    level: Level
    bot: Bot | None
    #: Each open ladder with the rating of the bot's playing version there (None: none yet).
    ratings: list[tuple[Ladder, Rating | None]] = field(default_factory=list)


def levels_list() -> list[LevelRow]:
    """Every level, weakest first, with its live rating on each open ladder."""
    ladders = list(Ladder.objects.filter(is_open=True).order_by("rules", "seats", "slug"))
    bots = level_bots()
    ratings: dict[tuple[int, int], Rating] = {
        (rating.bot_id, rating.ladder_id): rating
        for rating in Rating.objects.filter(
            bot_id__in=list(bots), bot_version__status=VersionStatus.ACTIVE
        )
    }
    bot_rows = {
        bot.pk: bot
        for bot in Bot.objects.select_related("owner__profile", "team").filter(pk__in=list(bots))
    }
    of_level = {level.number: bot_id for bot_id, level in bots.items()}
    rows = []
    for level in LEVELS:
        bot_id = of_level.get(level.number)
        rows.append(
            LevelRow(
                level=level,
                bot=bot_rows.get(bot_id) if bot_id is not None else None,
                ratings=[
                    (ladder, ratings.get((bot_id, ladder.pk)) if bot_id is not None else None)
                    for ladder in ladders
                ],
            )
        )
    return rows


def level_get(*, number: int) -> Level | None:
    return next((level for level in LEVELS if level.number == number), None)


def level_code(*, level: Level) -> str:
    """The level's house bot, as the SDK ships it (the house bots are public)."""
    return (Path(HOUSE_DIR) / level.filename).read_text()


@dataclass
class _Tally:
    games: int = 0
    ahead: int = 0
    behind: int = 0
    latest: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class LevelRecord:
    """A bot against one level on one ladder: the games where both sat, and the verdict."""

    level: Level
    level_bot_id: int
    ladder: Ladder
    games: int
    ahead: int
    behind: int
    #: The latest of those matches, newest first (at most BEATEN_MATCHES_SHOWN).
    latest: list[int]

    @property
    def same(self) -> int:
        return self.games - self.ahead - self.behind

    @property
    def beaten(self) -> bool:
        return has_beaten(games=self.games, ahead=self.ahead, behind=self.behind)


def levels_met(
    *, bot: Bot, user: User | AnonymousUser, levels: Mapping[int, Level] | None = None
) -> list[LevelRecord]:
    """How ``bot`` (all its versions) did against each level it met, ladder by ladder.

    Over the finished matches ``user`` may see (a private bot's are its owner's).
    Sorted by ladder, then level. None for a level itself: the levels meet each
    other in most of their (hundreds of thousands of) matches, and the Levels page
    and ``bench/levels.py`` measure them. ``levels``: :func:`level_bots`, when read already.
    """
    levels = level_bots() if levels is None else levels
    if not levels or bot.pk in levels:
        return []
    mine = Participant.objects.filter(
        bot_version__bot=bot, match__status=MatchStatus.FINISHED, match__ladder__isnull=False
    )
    theirs = Participant.objects.filter(
        match_id__in=mine.values("match_id"), bot_version__bot_id__in=list(levels)
    ).values_list("match_id", "bot_version__bot_id", "rank")
    level_seats: dict[int, list[tuple[int, int | None]]] = defaultdict(list)
    for match_id, level_bot_id, rank in theirs:
        level_seats[match_id].append((level_bot_id, rank))
    if not level_seats:
        return []
    visible = matches_visible(Match.objects.filter(pk__in=list(level_seats)), user=user)
    shown = dict(visible.values_list("pk", "ladder_id"))
    my_rank = dict(mine.filter(match_id__in=list(shown)).values_list("match_id", "rank"))
    tally: dict[tuple[int, int], _Tally] = defaultdict(_Tally)
    for match_id in sorted(shown, reverse=True):
        own = my_rank.get(match_id)
        for level_bot_id, rank in level_seats[match_id]:
            counts = tally[shown[match_id], level_bot_id]
            counts.games += 1
            if own is not None and rank is not None:
                counts.ahead += own < rank
                counts.behind += own > rank
            if len(counts.latest) < BEATEN_MATCHES_SHOWN:
                counts.latest.append(match_id)
    ladders = Ladder.objects.in_bulk({ladder_id for ladder_id, _ in tally})
    records = [
        LevelRecord(
            level=levels[level_bot_id],
            level_bot_id=level_bot_id,
            ladder=ladders[ladder_id],
            games=counts.games,
            ahead=counts.ahead,
            behind=counts.behind,
            latest=counts.latest,
        )
        for (ladder_id, level_bot_id), counts in tally.items()
    ]
    return sorted(records, key=lambda r: (r.ladder.name, r.ladder.pk, r.level.number))
