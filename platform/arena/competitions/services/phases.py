"""A competition's life on the clock, advanced by beat's sweep (:func:`competitions_advance_due`).

Entry opens and closes, the submission freeze fixes each entrant's version and
schedules the final event (a league per ladder on those versions), and when every
final event is over the standings are archived for good.
"""

from __future__ import annotations

import logging
from datetime import datetime

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from arena.bots.models import BotVersion, VersionStatus
from arena.bots.selectors import team_name
from arena.ladders.models import QualificationStatus
from arena.ladders.services import ladder_close
from arena.leagues.models import League, LeagueStatus, LeagueVisibility
from arena.leagues.selectors import league_standings
from arena.leagues.services import (
    LeagueConfigError,
    LeagueEntryError,
    league_cancel,
    league_create_frozen,
)
from arena.players.models import User

from ..models import (
    Access,
    Competition,
    CompetitionEntry,
    CompetitionLadder,
    CompetitionPlacing,
    EntryStatus,
    Phase,
)
from .common import CompetitionPermissionError, lock_competition, move
from .creating import may_manage

log = logging.getLogger(__name__)

LEAGUE_OVER = (LeagueStatus.FINISHED, LeagueStatus.CANCELLED)


def competitions_advance_due(*, now: datetime | None = None) -> int:
    """Advance every competition with a phase due at ``now`` (beat's static sweep).

    Returns how many changed phase.
    """
    now = now or timezone.now()
    due = Competition.objects.filter(
        Q(phase=Phase.DRAFT, entry_opens_at__lte=now)
        | Q(phase=Phase.ENTRY, entry_closes_at__lte=now)
        | Q(phase=Phase.SEASON, freeze_at__lte=now)
        | Q(phase=Phase.FROZEN, final_starts_at__lte=now)
        | Q(phase=Phase.FINAL)
    ).order_by("pk")
    changed = 0
    for competition in due.only("pk"):
        before = competition.phase
        after = competition_advance(competition=competition, now=now)
        changed += after.phase != before
    return changed


def competition_advance(*, competition: Competition, now: datetime | None = None) -> Competition:
    """Every phase due at ``now``, in order (a late sweep catches up at once)."""
    now = now or timezone.now()
    with transaction.atomic():
        locked = lock_competition(competition)
        if locked.phase == Phase.DRAFT and now >= locked.entry_opens_at:
            move(locked, Phase.ENTRY, now=now)
        if locked.phase == Phase.ENTRY and now >= locked.entry_closes_at:
            move(locked, Phase.SEASON, now=now)
        if locked.phase == Phase.SEASON and now >= locked.freeze_at:
            _freeze(locked, now)
        if locked.phase == Phase.FROZEN and now >= locked.final_starts_at:
            move(locked, Phase.FINAL, now=now)
        if locked.phase == Phase.FINAL and _finals_over(locked):
            _archive(locked, now)
    return locked


def frozen_version(*, entry: CompetitionEntry, at: datetime) -> BotVersion | None:
    """The version of ``entry``'s bot active at ``at``: the active version if it was
    uploaded by then, else the newest uploaded by then that passed a pre-flight and was
    retired since by a newer one (a version withdrawn before validating never counts)."""
    versions = BotVersion.objects.filter(bot_id=entry.bot_id, created_at__lte=at)
    active = versions.filter(status=VersionStatus.ACTIVE).first()
    if active is not None:
        return active
    return (
        versions.filter(
            status=VersionStatus.RETIRED, qualifications__status=QualificationStatus.PASSED
        )
        .order_by("-number")
        .first()
    )


def _freeze(locked: Competition, now: datetime) -> None:
    """Fix each entrant's version as of the freeze and schedule each ladder's final event."""
    move(locked, Phase.FROZEN, now=now)
    formed = 0
    places = list(locked.ladders.select_related("ladder").order_by("pk"))
    for place in places:
        entries = list(
            CompetitionEntry.objects.filter(ladder=place, status=EntryStatus.ENTERED).order_by(
                "created_at", "pk"
            )
        )
        versions = []
        for entry in entries:
            entry.frozen_version = frozen_version(entry=entry, at=locked.freeze_at)
            if entry.frozen_version is None:
                entry.note = "no validated version at the freeze: it plays no final event"
            else:
                versions.append(entry.frozen_version)
        CompetitionEntry.objects.bulk_update(entries, ["frozen_version", "note"])
        formed += _schedule_final(locked, place, versions, len(places))
    if not formed:
        _cancel(locked, "no final event could be formed: " + _notes(places), now)


def _notes(places: list[CompetitionLadder]) -> str:
    return "; ".join(f"{place.ladder.rules}: {place.note}" for place in places if place.note)


def _schedule_final(
    locked: Competition, place: CompetitionLadder, versions: list[BotVersion], ladders: int
) -> int:
    suffix = "final" if ladders == 1 else f"final-{place.ladder.rules}"
    try:
        with transaction.atomic():
            league = league_create_frozen(
                organiser=locked.organiser,
                ladder=place.ladder,
                name=f"{locked.title}: final"
                + ("" if ladders == 1 else f" ({place.ladder.rules})"),
                slug=f"{locked.slug}-{suffix}"[:64],
                format=locked.final_format,
                start_at=locked.final_starts_at,
                round_interval=locked.round_interval,
                versions=versions,
                visibility=(
                    LeagueVisibility.PUBLIC
                    if locked.access == Access.PUBLIC
                    else LeagueVisibility.PRIVATE
                ),
                games_per_table=locked.games_per_table,
                duplicate=locked.duplicate,
                advance=locked.advance,
                rounds=locked.rounds,
                # Checked against the freeze, when it is formed, even by a late sweep.
                now=locked.freeze_at,
            )
    except (LeagueConfigError, LeagueEntryError) as error:
        place.note = str(error)
        place.save(update_fields=["note"])
        log.warning("competition %s: no final on %s: %s", locked.pk, place.ladder, error)
        return 0
    place.league = league
    place.save(update_fields=["league"])
    return 1


def _finals_over(locked: Competition) -> bool:
    statuses = League.objects.filter(competition_ladder__competition=locked).values_list(
        "status", flat=True
    )
    return all(status in LEAGUE_OVER for status in statuses)


def _archive(locked: Competition, now: datetime) -> None:
    """Copy each final event's table into placings, once and for good; close the ladders."""
    if not CompetitionPlacing.objects.filter(competition=locked).exists():
        placings = []
        for place in locked.ladders.select_related("league").order_by("pk"):
            if place.league is None:
                continue
            for line in league_standings(league=place.league):
                bot = line.entry.bot
                version = line.entry.bot_version
                placings.append(
                    CompetitionPlacing(
                        competition=locked,
                        ladder=place,
                        rank=line.position,
                        bot=bot,
                        bot_name=bot.name,
                        owner_username=bot.owner.username,
                        team_name=team_name(bot),
                        version_number=version.number if version else None,
                        points=line.points,
                        money=line.money,
                        games=line.games,
                        wins=line.wins,
                    )
                )
        CompetitionPlacing.objects.bulk_create(placings)
    for place in locked.ladders.select_related("ladder"):
        ladder_close(ladder=place.ladder)
    move(locked, Phase.ARCHIVED, now=now)
    locked.archived_at = now
    locked.save(update_fields=["archived_at"])


def _cancel(locked: Competition, reason: str, now: datetime) -> None:
    # The reason first: the move tells people (notices) and says why.
    locked.note = reason
    locked.save(update_fields=["note"])
    move(locked, Phase.CANCELLED, now=now)
    for place in locked.ladders.select_related("league", "ladder"):
        if place.league is not None and place.league.status not in LEAGUE_OVER:
            league_cancel(league=place.league, reason=f"{locked} was cancelled: {reason}", now=now)
        ladder_close(ladder=place.ladder)


def competition_cancel(
    *, competition: Competition, by: User, reason: str = "", now: datetime | None = None
) -> Competition:
    """Stop for good (organiser or staff): its final events are cancelled, ladders closed;
    results so far are kept."""
    now = now or timezone.now()
    if not may_manage(by, competition):
        raise CompetitionPermissionError("only the organiser or staff can cancel a competition.")
    with transaction.atomic():
        locked = lock_competition(competition)
        _cancel(locked, reason or f"cancelled by {by.username}", now)
    return locked
