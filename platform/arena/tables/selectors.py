"""Reads on tables: a person's tables, what they see at one, the bots to play against."""

from __future__ import annotations

import gzip
import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.core.files.storage import default_storage
from django.db.models import Exists, OuterRef, Prefetch, QuerySet

from arena.bots.models import Bot, BotVersion, VersionStatus
from arena.bots.selectors import bot_list_visible, may_read_internals, team_name
from arena.ladders.models import Qualification, QualificationStatus
from arena.live.selectors import LiveEvents, live_read
from arena.matches.selectors import log_redact_private, log_with_owners
from arena.players.models import Profile, User
from vegas_engine import log as game_logs

from .models import Table, TableSeat, TableStatus, table_feed


def table_answer_get(*, table_id: int, request_id: int) -> str | None:
    """The person's answer to decision ``request_id``, once posted."""
    answer: str | None = (
        Table.objects.filter(pk=table_id, request_id=request_id)
        .exclude(answer="")
        .values_list("answer", flat=True)
        .first()
    )
    return answer


def tables_of(*, player_id: int) -> QuerySet[Table]:
    """A person's tables, newest first."""
    return Table.objects.filter(player_id=player_id).order_by("-created_at", "-id")


def table_get(*, table_id: int, user: User | AnonymousUser) -> Table | None:
    """The table, for its player (and staff); None for anybody else."""
    if not user.is_authenticated:
        return None
    tables = Table.objects.select_related("player").prefetch_related(
        Prefetch(
            "table_seats",
            queryset=TableSeat.objects.select_related(
                "bot_version__bot__owner", "bot_version__bot__team"
            ).order_by("seat"),
        )
    )
    if not user.is_staff:
        tables = tables.filter(player_id=user.pk)
    return tables.filter(pk=table_id).first()


# --------------------------------------------------------------------------- what the person sees

#: A card of another seat's hand, as the person's board shows it.
HIDDEN_CARD = "?"


def events_seen_by(events: Sequence[dict[str, Any]], seat: int) -> list[dict[str, Any]]:
    """The events as ``seat`` may know them while the game is played (its observation's
    secrets, docs/observation.md): other seats' decisions are left out (a Lucky Punch
    hide, a Black Box split, the card game's choices are secret until they act), and
    the card game's hands and discards of other seats show their sizes only.

    What every seat sees in the game (rolls, placements, plays, payouts) is kept.
    """
    seen = []
    for event in events:
        owner = event.get("seat")
        if owner == seat or owner is None:
            seen.append(event)
        elif event["type"] == "decision":
            continue
        elif event["type"] in ("draw", "discard"):
            seen.append({**event, "cards": [HIDDEN_CARD] * len(event["cards"])})
        else:
            seen.append(event)
    return seen


@dataclass(frozen=True)
class Decision:
    """The decision the person is asked now."""

    request_id: int
    decision: str
    legal_actions: list[str]
    deadline_at: datetime
    observation: dict[str, Any]


@dataclass(frozen=True)
class Answered:
    """The person's answer to the decision asked, posted and not yet passed on (the
    game has not asked the next one)."""

    request_id: int
    action: str


@dataclass(frozen=True)
class TableState:
    """What the person's page shows while the game is played: the board so far (the
    events from ``since`` on, as the person may know them) and the decision asked, or
    the answer to it the person gave."""

    table: Table
    events: LiveEvents | None
    decision: Decision | None
    answered: Answered | None = None


def table_state(*, table: Table, since: int = 0) -> TableState:
    live = None
    if table.status == TableStatus.PLAYING:
        found = live_read(feed=table_feed(table.pk), since=since)
        if found is not None:
            live = replace(found, events=events_seen_by(found.events, table.seat))
    decision = answered = None
    observation = table.observation
    if (
        table.status == TableStatus.PLAYING
        and table.request_id is not None
        and observation is not None
        and table.deadline_at is not None
    ):
        if table.answer:
            answered = Answered(request_id=table.request_id, action=table.answer)
        else:
            decision = Decision(
                request_id=table.request_id,
                decision=str(observation.get("decision", "")),
                legal_actions=[str(a) for a in observation.get("legal_actions") or []],
                deadline_at=table.deadline_at,
                observation=observation,
            )
    return TableState(table=table, events=live, decision=decision, answered=answered)


def table_log_read(*, table: Table, user: User | AnonymousUser) -> dict[str, Any] | None:
    """The finished table's game log, as ``user`` may read it: what is private to a bot's
    seat (stderr, notes, trace, bot seed) only for its owner and staff, the person's own
    seat for the table's player (:func:`~arena.matches.selectors.log_redact_private`).

    ``table`` must come with its seats and their bots (:func:`table_get`)."""
    if table.status != TableStatus.FINISHED or not table.log:
        return None
    with default_storage.open(str(table.log.name), "rb") as handle:
        log = json.loads(gzip.decompress(handle.read()))
    readable = {
        row.seat
        for row in table.table_seats.all()
        if (
            may_read_internals(user, row.bot_version.bot)
            if row.bot_version is not None
            else user.is_authenticated and (user.is_staff or user.pk == table.player_id)
        )
    }
    owners = {
        row.seat: row.bot_version.bot.owner.username
        if row.bot_version is not None
        else table.player.username
        for row in table.table_seats.all()
    }
    teams = {
        row.seat: team_name(row.bot_version.bot) if row.bot_version is not None else None
        for row in table.table_seats.all()
    }
    log = log_with_owners(game_logs.expand(log), owners, teams)
    return log_redact_private(log, keep_seats=readable)


# --------------------------------------------------------------------------- opponents


def table_opponents(*, user: User | AnonymousUser) -> QuerySet[Bot]:
    """Bots ``user`` may seat at a table: the house's, public ones and their own, with an
    active version; each with ``house`` and ``rules_played`` (house bots play all)."""
    active = BotVersion.objects.filter(bot=OuterRef("pk"), status=VersionStatus.ACTIVE)
    return (
        bot_list_visible(user=user)
        .filter(Exists(active))
        .annotate(house=Exists(Profile.objects.filter(user=OuterRef("owner"), is_house=True)))
        .order_by("-house", "name", "id")
    )


def bot_rules_played(*, bots: Sequence[Bot]) -> dict[int, set[str]]:
    """The rule systems each bot's active version passed a pre-flight of."""
    played: dict[int, set[str]] = {bot.pk: set() for bot in bots}
    rows = Qualification.objects.filter(
        bot_version__bot__in=bots,
        bot_version__status=VersionStatus.ACTIVE,
        status=QualificationStatus.PASSED,
    ).values_list("bot_version__bot_id", "ladder__rules")
    for bot_id, rules in rows:
        played[bot_id].add(rules)
    return played
