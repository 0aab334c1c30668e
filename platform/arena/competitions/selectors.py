"""Reads of competitions: lists, a competition's entrants, ladders and placings, a bot's
placings, what comes next on its calendar."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import AnonymousUser
from django.db.models import Count, Q, QuerySet

from arena.bots.models import Bot
from arena.bots.selectors import managed_bots_q
from arena.players.models import User

from .models import (
    Competition,
    CompetitionEntry,
    CompetitionLadder,
    CompetitionPlacing,
    EntryStatus,
    Phase,
)

RUNNING = (Phase.ENTRY, Phase.SEASON, Phase.FROZEN, Phase.FINAL)
PAST = (Phase.ARCHIVED, Phase.CANCELLED)


def competitions_list() -> QuerySet[Competition]:
    """Every competition with its number of entrants: running first, then upcoming (by
    their next date), then past ones, newest first."""
    return (
        Competition.objects.select_related("organiser")
        .annotate(entrants=Count("entries", filter=Q(entries__status=EntryStatus.ENTERED)))
        .order_by("-created_at")
    )


def competitions_grouped() -> dict[str, list[Competition]]:
    """``running``, ``upcoming`` and ``past`` competitions, each in the order shown."""
    groups: dict[str, list[Competition]] = {"running": [], "upcoming": [], "past": []}
    for competition in competitions_list():
        if competition.phase in RUNNING:
            groups["running"].append(competition)
        elif competition.phase == Phase.DRAFT:
            groups["upcoming"].append(competition)
        else:
            groups["past"].append(competition)
    groups["running"].sort(key=lambda c: c.final_starts_at)
    groups["upcoming"].sort(key=lambda c: c.entry_opens_at)
    groups["past"].sort(
        key=lambda c: c.archived_at or c.phase_changed_at or c.created_at, reverse=True
    )
    return groups


def competition_get(*, slug: str) -> Competition | None:
    return Competition.objects.select_related("organiser").filter(slug=slug).first()


def competition_ladders(*, competition: Competition) -> list[CompetitionLadder]:
    return list(competition.ladders.select_related("ladder", "league").order_by("pk"))


def competition_entries(
    *, competition: Competition, with_withdrawn: bool = False
) -> QuerySet[CompetitionEntry]:
    entries = competition.entries.select_related(
        "bot__owner", "bot__team", "ladder__ladder", "frozen_version"
    ).order_by("created_at", "pk")
    if not with_withdrawn:
        entries = entries.filter(status=EntryStatus.ENTERED)
    return entries


def competition_placings(*, competition: Competition) -> QuerySet[CompetitionPlacing]:
    return competition.placings.select_related("ladder__ladder").order_by("ladder_id", "rank")


def bot_placings(*, bot: Bot) -> QuerySet[CompetitionPlacing]:
    """A bot's archived placings, newest first."""
    return (
        CompetitionPlacing.objects.filter(bot=bot)
        .select_related("competition", "ladder__ladder")
        .order_by("-competition__archived_at", "ladder_id")
    )


def enterable_bots(*, competition: Competition, user: User | AnonymousUser) -> list[Bot]:
    """``user``'s bots that could enter now (not entered yet); the service checks the rest."""
    if not user.is_authenticated:
        return []
    entered = competition.entries.filter(status=EntryStatus.ENTERED).values_list(
        "bot_id", flat=True
    )
    return list(
        Bot.objects.filter(managed_bots_q(user), workbench=False)
        .exclude(pk__in=entered)
        .order_by("name")
    )


@dataclass(frozen=True)
class NextStep:
    what: str
    at: datetime


def next_step(*, competition: Competition) -> NextStep | None:
    """What the calendar brings next, for the countdown; None once the final event runs."""
    steps = {
        Phase.DRAFT: ("entry opens", competition.entry_opens_at),
        Phase.ENTRY: ("entry closes", competition.entry_closes_at),
        Phase.SEASON: ("submission freeze", competition.freeze_at),
        Phase.FROZEN: ("final event starts", competition.final_starts_at),
    }
    step = steps.get(Phase(competition.phase))
    return NextStep(*step) if step else None
