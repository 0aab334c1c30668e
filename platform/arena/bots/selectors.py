"""Reads on bots."""

from __future__ import annotations

from django.db.models import QuerySet

from arena.players.models import User

from .models import Bot, BotVersion, VersionStatus, Visibility


def bot_list_public() -> QuerySet[Bot]:
    return Bot.objects.filter(visibility=Visibility.PUBLIC).select_related("owner").order_by("name")


def bot_get_visible(*, bot_id: int, user: User | None) -> Bot | None:
    """The bot if ``user`` may see it: public bots, or the owner's own, or staff."""
    bot = Bot.objects.select_related("owner").filter(pk=bot_id).first()
    if bot is None:
        return None
    if bot.visibility == Visibility.PUBLIC:
        return bot
    if user is not None and user.is_authenticated and (user.is_staff or user.pk == bot.owner_id):
        return bot
    return None


def bot_versions(*, bot: Bot) -> QuerySet[BotVersion]:
    return bot.versions.order_by("-number")


def bot_active_version(*, bot: Bot) -> BotVersion | None:
    return bot.versions.filter(status=VersionStatus.ACTIVE).first()
