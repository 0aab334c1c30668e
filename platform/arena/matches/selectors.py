"""Reads on matches."""

from __future__ import annotations

from django.db.models import Prefetch, QuerySet

from arena.bots.models import BotVersion
from arena.ladders.models import Ladder

from .models import Match, MatchStatus, Participant


def _with_participants(matches: QuerySet[Match]) -> QuerySet[Match]:
    seats = Participant.objects.select_related("bot_version__bot").order_by("seat")
    return matches.prefetch_related(Prefetch("participants", queryset=seats))


def match_get(*, match_id: int) -> Match | None:
    return _with_participants(Match.objects.select_related("ladder").filter(pk=match_id)).first()


def ladder_recent_matches(*, ladder: Ladder) -> QuerySet[Match]:
    """Finished matches of a ladder, latest first (served by match_ladder_finished)."""
    return _with_participants(
        Match.objects.filter(ladder=ladder, status=MatchStatus.FINISHED).order_by(
            "-finished_at", "-id"
        )
    )


def version_matches(*, version: BotVersion) -> QuerySet[Match]:
    """Matches a version played, newest first (served by participant_version_recent)."""
    ids = Participant.objects.filter(bot_version=version).values("match_id")
    return _with_participants(Match.objects.filter(pk__in=ids).order_by("-id"))
