"""Reads on ladders and ratings."""

from __future__ import annotations

from django.db.models import QuerySet

from arena.bots.models import VersionStatus, Visibility
from arena.matches.models import Match, MatchStatus

from .models import Ladder, Rating, RatingChange


def ladder_list() -> QuerySet[Ladder]:
    return Ladder.objects.order_by("name")


def ladder_get(*, slug: str) -> Ladder | None:
    return Ladder.objects.filter(slug=slug).first()


def ladder_leaderboard(*, ladder: Ladder) -> QuerySet[Rating]:
    """The playing version of each public bot, best first."""
    return (
        Rating.objects.filter(
            ladder=ladder,
            bot_version__status=VersionStatus.ACTIVE,
            bot__visibility=Visibility.PUBLIC,
        )
        .select_related("bot", "bot__owner", "bot_version")
        .order_by("-rating", "id")
    )


def rating_history(*, rating: Rating) -> QuerySet[RatingChange]:
    return rating.changes.order_by("-id")


def unrated_finished_matches(limit: int = 500) -> list[Match]:
    """The latest-finished unrated match of each ladder (rating it rates the earlier ones)."""
    latest: dict[int, Match] = {}
    rows = Match.objects.filter(status=MatchStatus.FINISHED, rated_at__isnull=True).order_by(
        "finished_at", "id"
    )[:limit]
    for match in rows:
        latest[match.ladder_id] = match
    return list(latest.values())
