"""Reads on bots."""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass
from pathlib import PurePosixPath

from django.contrib.auth.models import AnonymousUser
from django.core.files.storage import default_storage
from django.db.models import Count, Max, OuterRef, Q, QuerySet, Subquery
from django.urls import reverse

from arena.players.models import TeamMembership, User
from arena.players.selectors import HOUSE_USERNAME, user_team_ids

from .models import (
    WORKBENCH_SUFFIX,
    Bot,
    BotVersion,
    CodeFormat,
    Draft,
    TestGame,
    VersionStatus,
    Visibility,
)


def may_manage_bot(user: User | AnonymousUser | None, bot: Bot, *, staff: bool = True) -> bool:
    """The one access rule for acting on a bot and reading its internals (uploading
    versions, changing it, entering ladders and leagues, challenging with it; reports,
    stderr, faults, private bots): staff, its owner, and the members of its team. A
    team's bot is the team's: its creator (``owner``) manages it while a member, as the
    others do, and no longer once they left the team.

    ``staff=False`` leaves staff out: the bot's own people, who answer for it (an
    invitation to a league) and see it as theirs ("yours" on pages)."""
    if user is None or not user.is_authenticated:
        return False
    if staff and user.is_staff:
        return True
    if bot.team_id is not None:
        return bot.team_id in user_team_ids(user)
    return bool(user.pk == bot.owner_id)


def may_read_internals(user: User | AnonymousUser | None, bot: Bot) -> bool:
    """Who reads a bot's internals: :func:`may_manage_bot`'s people (one rule for both)."""
    return may_manage_bot(user, bot)


def managed_bots_q(user: User | AnonymousUser | None, *, prefix: str = "") -> Q:
    """:func:`may_manage_bot` as a filter on bots (``prefix``: the path to the bot, e.g.
    ``"bot__"``), staff left out: the bots ``user`` owns or shares through a team."""
    if user is None or not user.is_authenticated:
        return Q(pk__in=[])
    teams = TeamMembership.objects.filter(user_id=user.pk).values("team_id")
    own = Q(**{f"{prefix}owner_id": user.pk, f"{prefix}team__isnull": True})
    return own | Q(**{f"{prefix}team_id__in": teams})


def bot_owner_label(bot: Bot) -> tuple[str, str]:
    """Who a bot is shown as belonging to, and where that links: its team (the team's
    page) when it has one, else its owner (their player page): :func:`bot_credit`'s."""
    credit = bot_credit(bot)
    if credit.team_id is not None:
        return credit.name, reverse("web:team", args=[credit.team_id])
    return credit.name, reverse("web:player", args=[credit.username])


def bot_get_visible(*, bot_id: int, user: User | AnonymousUser | None) -> Bot | None:
    """The bot if ``user`` may see it: public bots, or the owner's own, or staff.

    Never a workbench (the editor's test builds, ``Bot.workbench``): no page,
    no API, nothing to upload to, enter or challenge with; its test games are
    reached from the editor.
    """
    bots = Bot.objects.select_related("owner", "team").filter(pk=bot_id, workbench=False)
    bot = bots.first()
    if bot is None:
        return None
    if bot.visibility == Visibility.PUBLIC or may_read_internals(user, bot):
        return bot
    return None


def bot_versions(*, bot: Bot) -> QuerySet[BotVersion]:
    return bot.versions.order_by("-number")


def bot_active_version(*, bot: Bot) -> BotVersion | None:
    return bot.versions.filter(status=VersionStatus.ACTIVE).first()


def bot_list_visible(
    *, user: User | AnonymousUser, owner: str | None = None, team: int | None = None
) -> QuerySet[Bot]:
    """The bots ``user`` may see (public ones, their own and their teams', every bot for
    staff), by name; ``owner`` (a username) and ``team`` (an id) narrow them."""
    # Workbenches (the editor's test builds) are the editor's own, listed nowhere.
    bots = (
        Bot.objects.select_related("owner", "team").filter(workbench=False).order_by("name", "id")
    )
    if not user.is_staff:
        bots = bots.filter(Q(visibility=Visibility.PUBLIC) | managed_bots_q(user))
    if owner is not None:
        bots = bots.filter(owner__username=owner)
    if team is not None:
        bots = bots.filter(team_id=team)
    return bots


def bot_version_get(*, bot: Bot, number: int) -> BotVersion | None:
    return bot.versions.filter(number=number).first()


def player_bots(*, owner: User, viewer: User | AnonymousUser) -> QuerySet[Bot]:
    """The owner's bots that ``viewer`` may see, each with ``version_count``,
    ``latest_number``, ``latest_status`` (its version's status: a failed upload shows)
    and ``active_number`` (None without an active version)."""
    latest = BotVersion.objects.filter(bot=OuterRef("pk")).order_by("-number")
    return (
        bot_list_visible(user=viewer)
        .filter(owner=owner)
        .annotate(
            version_count=Count("versions"),
            latest_number=Max("versions__number"),
            active_number=Max("versions__number", filter=Q(versions__status=VersionStatus.ACTIVE)),
            latest_status=Subquery(latest.values("status")[:1]),
        )
    )


#: The most bytes of stored code read to quote a line of it.
SOURCE_READ_LIMIT = 2 * 1024 * 1024


def version_source_lines(
    *, version: BotVersion, path: str, line: int, context: int = 2
) -> list[tuple[int, str]]:
    """Lines ``line - context`` to ``line + context`` of the file ``path`` (as the
    sandbox names it: ``main.py``, ``pkg/util.py``; a leading ``/bot/`` or ``./`` is
    dropped) of the version's stored code, numbered from 1; empty when the file or the
    line is not there."""
    path = path.removeprefix("/bot/").removeprefix("./")
    try:
        with default_storage.open(str(version.code.name), "rb") as handle:
            stored = handle.read(SOURCE_READ_LIMIT + 1)
    except (OSError, ValueError):
        return []
    if len(stored) > SOURCE_READ_LIMIT:
        return []
    data: bytes | None = None
    if version.code_format == CodeFormat.ZIP:
        try:
            with zipfile.ZipFile(io.BytesIO(stored)) as archive:
                info = archive.getinfo(path)
                if info.file_size <= SOURCE_READ_LIMIT:
                    data = archive.read(info)
        except (KeyError, zipfile.BadZipFile, ValueError, OSError):
            return []
    elif path == PurePosixPath(path).name:  # a single file: stored as the main file
        data = stored
    if data is None:
        return []
    lines = data.decode("utf-8", errors="replace").splitlines()
    if not 1 <= line <= len(lines):
        return []
    first, last = max(1, line - context), min(len(lines), line + context)
    return [(number, lines[number - 1]) for number in range(first, last + 1)]


# --------------------------------------------------------------------------- the editor


def draft_get(*, user: User | AnonymousUser, draft_id: int) -> Draft | None:
    """The draft if it is ``user``'s: a draft is its author's alone (staff included)."""
    if not user.is_authenticated:
        return None
    return Draft.objects.filter(pk=draft_id, owner_id=user.pk).first()


def user_drafts(*, user: User) -> QuerySet[Draft]:
    """The author's drafts, latest edited first."""
    return Draft.objects.filter(owner=user).order_by("-updated_at", "-id")


def user_versions_to_edit(*, user: User) -> QuerySet[BotVersion]:
    """The versions of the author's bots (test builds left out), by bot, newest first."""
    return (
        BotVersion.objects.filter(bot__owner=user, bot__workbench=False)
        .select_related("bot")
        .order_by("bot__name", "-number")
    )


def opponent_bots_of(test_game: TestGame) -> list[int]:
    """The ids of the bots a test game was played against, each once."""
    bots = BotVersion.objects.filter(pk__in=test_game.opponents).values_list("bot_id", flat=True)
    return sorted(set(bots))


def bot_shown_name(bot: Bot) -> str:
    """A bot's name as a match's page shows it: a workbench's (which has no page) as
    its draft's bot's, marked as a test build."""
    if bot.workbench:
        return f"{bot.name.removesuffix(WORKBENCH_SUFFIX)} (test build)"
    return bot.name


@dataclass(frozen=True)
class BotCredit:
    """Whom a bot is shown with wherever it appears, so that two owners' same-named bots
    are told apart: its team when it has one, else its owner."""

    #: As pages and exports name it: the team's name, or the owner's username.
    name: str
    #: Whose player page to link to (the owner's; a team's bot links to the team's page).
    username: str
    #: One of the platform's own bots (the house account's).
    house: bool
    #: The team credited (its page is linked instead of the owner's); None: the owner.
    team_id: int | None = None


def bot_credit(bot: Bot) -> BotCredit:
    """The team or owner a bot is credited to. Reads no row when the owner came with the
    bot; the house flag comes from the owner's profile when it was loaded too, from the
    house account's reserved username otherwise (no query per bot either way). A team's
    bot reads its team unless it came with the bot (select_related); a bot read without
    its ``team_id`` (``only()`` leaving it out) is credited to its owner rather than
    loaded again, one query per bot."""
    team_id = bot.__dict__.get("team_id")
    if team_id is not None:
        return BotCredit(
            name=bot.team.name if bot.team else "", username="", house=False, team_id=team_id
        )
    owner = bot.owner
    if User.profile.is_cached(owner):
        try:
            house = owner.profile.is_house
        except User.profile.RelatedObjectDoesNotExist:
            house = False
    else:
        house = owner.username == HOUSE_USERNAME
    return BotCredit(name=owner.username, username=owner.username, house=house)


def team_name(bot: Bot) -> str | None:
    """The name of the team owning ``bot``, or None (its owner's alone); the team must come
    with the bot (``select_related("team")``) or it is read here."""
    return None if bot.team_id is None or bot.team is None else bot.team.name


def draft_of_test_game(*, match_id: int, user: User | AnonymousUser) -> int | None:
    """The id of the draft whose test game ``match_id`` is, when it is ``user``'s own and
    kept: where its test build's seat links to (the editor)."""
    if not user.is_authenticated:
        return None
    drafts = TestGame.objects.filter(match_id=match_id, owner_id=user.pk, draft__isnull=False)
    return drafts.values_list("draft_id", flat=True).first()


def draft_test_games(*, draft: Draft, limit: int) -> list[TestGame]:
    """The draft's latest test games, newest first, with their builds, ladders and matches."""
    return list(
        draft.test_games.select_related("build__bot", "ladder", "match").order_by("-id")[:limit]
    )


def house_bots() -> QuerySet[Bot]:
    """The platform's own bots (the house account's), by name: new ones appear as loaded."""
    return Bot.objects.filter(owner__profile__is_house=True, workbench=False).order_by("name")
