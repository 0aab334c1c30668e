"""Reads on bots."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser
from django.db.models import Count, Max, Q, QuerySet

from arena.players.models import User

from .models import Bot, BotVersion, VersionStatus, Visibility


def may_read_internals(user: User | AnonymousUser | None, bot: Bot) -> bool:
    """The one access rule for a bot's internals (reports, stderr, faults, private bots):
    its owner and staff read them, nobody else."""
    return bool(
        user is not None and user.is_authenticated and (user.is_staff or user.pk == bot.owner_id)
    )


def bot_get_visible(*, bot_id: int, user: User | AnonymousUser | None) -> Bot | None:
    """The bot if ``user`` may see it: public bots, or the owner's own, or staff."""
    bot = Bot.objects.select_related("owner").filter(pk=bot_id).first()
    if bot is None:
        return None
    if bot.visibility == Visibility.PUBLIC or may_read_internals(user, bot):
        return bot
    return None


def bot_versions(*, bot: Bot) -> QuerySet[BotVersion]:
    return bot.versions.order_by("-number")


def bot_active_version(*, bot: Bot) -> BotVersion | None:
    return bot.versions.filter(status=VersionStatus.ACTIVE).first()


def bot_list_visible(*, user: User | AnonymousUser, owner: str | None = None) -> QuerySet[Bot]:
    """The bots ``user`` may see (public ones, their own, every bot for staff), by name."""
    bots = Bot.objects.select_related("owner").order_by("name", "id")
    if not user.is_staff:
        mine = Q(owner_id=user.pk) if user.is_authenticated else Q(pk__in=[])
        bots = bots.filter(Q(visibility=Visibility.PUBLIC) | mine)
    if owner is not None:
        bots = bots.filter(owner__username=owner)
    return bots


def bot_version_get(*, bot: Bot, number: int) -> BotVersion | None:
    return bot.versions.filter(number=number).first()


def player_bots(*, owner: User, viewer: User | AnonymousUser) -> QuerySet[Bot]:
    """The owner's bots that ``viewer`` may see, each with ``version_count``,
    ``latest_number`` and ``active_number`` (None without an active version)."""
    return (
        bot_list_visible(user=viewer)
        .filter(owner=owner)
        .annotate(
            version_count=Count("versions"),
            latest_number=Max("versions__number"),
            active_number=Max("versions__number", filter=Q(versions__status=VersionStatus.ACTIVE)),
        )
    )
