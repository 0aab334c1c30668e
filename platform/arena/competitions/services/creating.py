"""Writes on a competition before its freeze: creating it, entering and withdrawing bots,
its invitation link."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from arena.bots.models import Bot, VersionStatus, Visibility
from arena.bots.selectors import may_manage_bot
from arena.ladders.models import Ladder
from arena.ladders.services import LadderConfigError, ladder_create
from arena.ladders.services.entries import entry_admit, entry_dismiss
from arena.leagues.models import LeagueFormat
from arena.leagues.selectors import bot_rule_systems
from arena.leagues.services.common import MIN_ROUND_INTERVAL
from arena.players.models import User
from arena.players.selectors import email_verified

from ..models import (
    Access,
    Competition,
    CompetitionEntry,
    CompetitionLadder,
    EntryStatus,
    Phase,
)
from .common import (
    OVER,
    RESERVED_SLUGS,
    CompetitionConfigError,
    CompetitionEntryError,
    CompetitionPermissionError,
    lock_competition,
)

MAX_LADDERS = 4


@dataclass(frozen=True)
class LadderSettings:
    """One rule system of a competition and its ladder's game and limits."""

    rules: str
    seats: int
    options: Mapping[str, object] = field(default_factory=dict)
    time_per_decision_ms: int = 1000
    time_bank_ms: int = 10_000
    memory_mb: int = 256
    duplicate_deals: bool | None = None


def create_refusal(user: User | AnonymousUser) -> str | None:
    """Why ``user`` may not create a competition (None: they may). Staff may; with
    ARENA_COMPETITIONS_OPEN_TO_USERS on, so may any player whose e-mail address is
    verified (someone reachable, not a throwaway account)."""
    if not user.is_authenticated or not user.is_active:
        return "sign in first."
    if user.is_staff:
        return None
    if not settings.ARENA_COMPETITIONS_OPEN_TO_USERS:
        return "only staff create competitions on this platform (ask an administrator)."
    if not email_verified(user):
        return (
            "verify your e-mail address first: set it on your notification settings page "
            "and follow the link e-mailed to it."
        )
    return None


def may_create(user: User | AnonymousUser) -> bool:
    return create_refusal(user) is None


def may_manage(user: User | AnonymousUser, competition: Competition) -> bool:
    return bool(user.is_authenticated and (user.is_staff or competition.organiser_id == user.pk))


def new_token() -> str:
    return secrets.token_urlsafe(18)


def _check_calendar(
    *,
    entry_opens_at: datetime,
    entry_closes_at: datetime,
    freeze_at: datetime,
    final_starts_at: datetime,
    round_interval: timedelta,
    now: datetime,
) -> None:
    if entry_closes_at <= now:
        raise CompetitionConfigError(
            f"entry would close at {entry_closes_at:%Y-%m-%d %H:%M} UTC, already past "
            f"(now {now:%Y-%m-%d %H:%M} UTC): choose a later close."
        )
    if not entry_opens_at < entry_closes_at:
        raise CompetitionConfigError("entry must open before it closes.")
    if not entry_closes_at <= freeze_at:
        raise CompetitionConfigError(
            "the submission freeze must come at or after the close of entry: entrants "
            "improve their bots until the freeze."
        )
    if not freeze_at < final_starts_at:
        raise CompetitionConfigError(
            "the final event must start after the submission freeze (it plays the frozen versions)."
        )
    if round_interval < MIN_ROUND_INTERVAL:
        raise CompetitionConfigError(
            f"the final event's rounds must be at least {MIN_ROUND_INTERVAL} apart, "
            f"got {round_interval}."
        )


def competition_create(
    *,
    organiser: User,
    slug: str,
    title: str,
    description: str = "",
    ladders: Sequence[LadderSettings],
    entry_opens_at: datetime,
    entry_closes_at: datetime,
    freeze_at: datetime,
    final_starts_at: datetime,
    final_format: str = LeagueFormat.ROUND_ROBIN,
    games_per_table: int | None = None,
    duplicate: bool | None = None,
    advance: int | None = None,
    rounds: int | None = None,
    round_interval: timedelta = timedelta(hours=1),
    access: str = Access.PUBLIC,
    now: datetime | None = None,
) -> Competition:
    """A competition and one restricted ladder per rule system, announced (draft) until
    entry opens.

    ``games_per_table`` defaults to the seats of its ladders' games (one full seat
    rotation); ``duplicate`` (duplicate deals at the final tables) to the ladder's
    ``duplicate_deals``, which its seats decide when left out (yes on two seats,
    where luck weighs most).
    """
    now = now or timezone.now()
    if (refusal := create_refusal(organiser)) is not None:
        raise CompetitionPermissionError(refusal)
    if slug.lower() in RESERVED_SLUGS:
        raise CompetitionConfigError(f"the slug {slug!r} is a page's address: choose another.")
    if not title.strip():
        raise CompetitionConfigError("give the competition a title.")
    if not 1 <= len(ladders) <= MAX_LADDERS:
        raise CompetitionConfigError(
            f"choose 1-{MAX_LADDERS} rule systems, got {len(ladders)}: each gets its own "
            "ladder and final event."
        )
    if len({x.rules for x in ladders}) != len(ladders):
        raise CompetitionConfigError("a rule system is listed twice: list each once.")
    if final_format not in LeagueFormat.values:
        raise CompetitionConfigError(
            f"unknown final format {final_format!r}: use one of {', '.join(LeagueFormat.values)}."
        )
    if final_format == LeagueFormat.KNOCKOUT and advance is None:
        raise CompetitionConfigError(
            "a knockout final needs `advance`: how many of each table go through."
        )
    if final_format != LeagueFormat.KNOCKOUT and advance is not None:
        raise CompetitionConfigError("`advance` is for knockout finals only.")
    if access not in Access.values:
        raise CompetitionConfigError(f"access is public or invitation, got {access!r}.")
    _check_calendar(
        entry_opens_at=entry_opens_at,
        entry_closes_at=entry_closes_at,
        freeze_at=freeze_at,
        final_starts_at=final_starts_at,
        round_interval=round_interval,
        now=now,
    )
    try:
        with transaction.atomic():
            competition = Competition.objects.create(
                slug=slug,
                title=title.strip(),
                description=description,
                organiser=organiser,
                access=access,
                invitation_token=new_token(),
                entry_opens_at=entry_opens_at,
                entry_closes_at=entry_closes_at,
                freeze_at=freeze_at,
                final_starts_at=final_starts_at,
                final_format=final_format,
                games_per_table=games_per_table or ladders[0].seats,
                duplicate=False,
                advance=advance,
                rounds=rounds,
                round_interval=round_interval,
                phase_changed_at=now,
            )
            made = [
                _ladder(competition, settings_, index) for index, settings_ in enumerate(ladders)
            ]
            competition.duplicate = (
                duplicate if duplicate is not None else any(x.duplicate_deals for x in made)
            )
            competition.save(update_fields=["duplicate"])
    except IntegrityError:
        raise CompetitionConfigError(
            f"a competition with the slug {slug!r} already exists: choose another."
        ) from None
    return competition


def _ladder(competition: Competition, wanted: LadderSettings, index: int) -> Ladder:
    slug = f"{competition.slug}-{wanted.rules}"[:64]
    try:
        with transaction.atomic():
            ladder = ladder_create(
                slug=slug,
                name=f"{competition.title} ({wanted.rules})"[:100],
                rules=wanted.rules,
                seats=wanted.seats,
                options=wanted.options,
                time_per_decision_ms=wanted.time_per_decision_ms,
                time_bank_ms=wanted.time_bank_ms,
                memory_mb=wanted.memory_mb,
                duplicate_deals=wanted.duplicate_deals,
                restricted=True,
            )
    except LadderConfigError as error:
        raise CompetitionConfigError(f"rule system {wanted.rules}: {error}") from None
    CompetitionLadder.objects.create(competition=competition, ladder=ladder)
    return ladder


def competition_invitation_renew(*, competition: Competition, by: User) -> Competition:
    """A new invitation token: the old link stops working."""
    if not may_manage(by, competition):
        raise CompetitionPermissionError(
            "only the organiser or staff can renew the invitation link."
        )
    with transaction.atomic():
        locked = lock_competition(competition)
        locked.invitation_token = new_token()
        locked.save(update_fields=["invitation_token"])
    return locked


def _check_token(competition: Competition, token: str | None) -> None:
    if competition.access != Access.INVITATION:
        return
    if not token or not secrets.compare_digest(token, competition.invitation_token):
        raise CompetitionEntryError(
            f"{competition} is by invitation only: enter through the invitation link "
            "its organiser gave you (ask them for a new one if it stopped working)."
        )


def _competition_ladder(competition: Competition, bot: Bot, rules: str | None) -> CompetitionLadder:
    """The competition's ladder ``bot`` enters: of ``rules`` when given, else the only one
    of the rule systems it is known to play (a bot not rated yet may play any)."""
    ladders = list(competition.ladders.select_related("ladder").order_by("pk"))
    offered = ", ".join(x.ladder.rules for x in ladders)
    systems = bot_rule_systems(bot=bot)
    if rules is not None:
        chosen = [x for x in ladders if x.ladder.rules == rules]
        if not chosen:
            raise CompetitionEntryError(
                f"{competition} is not played in {rules}: choose one of {offered}."
            )
        if systems and rules not in systems:
            raise CompetitionEntryError(
                f"{bot.name} plays {', '.join(sorted(systems))}, not {rules}: enter a bot "
                f"written for {rules}."
            )
        return chosen[0]
    fitting = [x for x in ladders if not systems or x.ladder.rules in systems]
    if not fitting:
        raise CompetitionEntryError(
            f"{bot.name} plays {', '.join(sorted(systems))}; {competition} is played in "
            f"{offered}: enter a bot written for it."
        )
    if len(fitting) > 1:
        raise CompetitionEntryError(
            f"{competition} is played in {offered}: choose the rule system {bot.name} enters in."
        )
    return fitting[0]


def competition_enter(
    *,
    competition: Competition,
    bot: Bot,
    by: User,
    token: str | None = None,
    rules: str | None = None,
    now: datetime | None = None,
) -> CompetitionEntry:
    """``by`` enters their ``bot`` while entry is open; with invitation-only access the
    invitation link's ``token`` is needed. The bot joins the competition's ladder of its
    rule system (``rules``, needed only when it could enter several; its pre-flights
    there are left pending: ``flows.competition_enter`` queues them)."""
    now = now or timezone.now()
    with transaction.atomic():
        locked = lock_competition(competition)
        if locked.phase != Phase.ENTRY:
            when = (
                f"entry opens {locked.entry_opens_at:%Y-%m-%d %H:%M} UTC"
                if locked.phase == Phase.DRAFT
                else f"entry closed {locked.entry_closes_at:%Y-%m-%d %H:%M} UTC"
            )
            raise CompetitionEntryError(f"{locked} takes no entries now: {when}.")
        _check_token(locked, token)
        if not may_manage_bot(by, bot, staff=False):
            raise CompetitionEntryError(
                f"{bot.name} is not your bot: only its owner (or its team) enters it."
            )
        if bot.workbench:
            raise CompetitionEntryError(
                f"{bot.name} holds the editor's test builds: submit the draft and enter its bot."
            )
        if locked.access == Access.PUBLIC and bot.visibility == Visibility.PRIVATE:
            raise CompetitionEntryError(
                f"{bot.name} is private: a public competition's games are public. Make the "
                "bot public first."
            )
        if not bot.versions.filter(status=VersionStatus.ACTIVE).exists():
            raise CompetitionEntryError(
                f"{bot.name} has no active version: upload one that passes its pre-flight, "
                "then enter it."
            )
        place = _competition_ladder(locked, bot, rules)
        entry = CompetitionEntry.objects.filter(competition=locked, bot=bot).first()
        if entry is not None and entry.status == EntryStatus.ENTERED:
            raise CompetitionEntryError(f"{bot.name} is already entered in {locked}.")
        if entry is None:
            entry = CompetitionEntry.objects.create(competition=locked, ladder=place, bot=bot)
        else:
            entry.status, entry.ladder, entry.note = EntryStatus.ENTERED, place, ""
            entry.save(update_fields=["status", "ladder", "note"])
        entry_admit(bot=bot, ladder=place.ladder)
    return entry


def competition_withdraw(
    *, competition: Competition, bot: Bot, by: User, now: datetime | None = None
) -> CompetitionEntry:
    """Take ``bot`` out before the freeze (its owner, the organiser or staff)."""
    now = now or timezone.now()
    with transaction.atomic():
        locked = lock_competition(competition)
        entry = (
            CompetitionEntry.objects.select_related("ladder__ladder")
            .filter(competition=locked, bot=bot, status=EntryStatus.ENTERED)
            .first()
        )
        if entry is None:
            raise CompetitionEntryError(f"{bot.name} is not entered in {locked}.")
        if not may_manage_bot(by, bot) and not may_manage(by, locked):
            raise CompetitionPermissionError(
                f"only {bot.name}'s owner (or its team), the organiser or staff can withdraw it."
            )
        if locked.phase in OVER or locked.phase in (Phase.FROZEN, Phase.FINAL):
            raise CompetitionEntryError(
                f"{locked} is past its submission freeze ({locked.freeze_at:%Y-%m-%d %H:%M} "
                "UTC): its entrants are fixed."
            )
        entry.status = EntryStatus.WITHDRAWN
        entry.note = f"withdrawn on {now:%Y-%m-%d %H:%M} UTC"
        entry.save(update_fields=["status", "note"])
        entry_dismiss(bot=bot, ladder=entry.ladder.ladder)
    return entry
