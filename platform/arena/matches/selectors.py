"""Reads on matches."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from datetime import datetime
from typing import Any, cast

from django.contrib.auth.models import AnonymousUser
from django.core.files.storage import default_storage
from django.db import connection
from django.db.models import (
    Case,
    Count,
    Exists,
    F,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Value,
    When,
)

from arena.bots.models import Visibility
from arena.live.selectors import LiveEvents, live_read
from arena.players.models import User

from .models import UNPLAYED, Match, MatchStatus, Participant, match_feed, seed_in_play


def _with_participants(matches: QuerySet[Match]) -> QuerySet[Match]:
    """With their seats, and whether their seed is still in play (``Match.sealed``)."""
    seats = Participant.objects.select_related("bot_version__bot__owner").order_by("seat")
    return matches.prefetch_related(Prefetch("participants", queryset=seats)).annotate(
        seed_in_play=seed_in_play(OuterRef("seed"))
    )


def ladder_recent_matches(*, ladder_id: int) -> QuerySet[Match]:
    """Finished matches of a ladder, latest first (served by match_ladder_finished)."""
    return _with_participants(
        Match.objects.filter(ladder_id=ladder_id, status=MatchStatus.FINISHED).order_by(
            "-finished_at", "-id"
        )
    )


def ladder_queue(*, ladder_id: int) -> QuerySet[Match]:
    """A ladder's matches waiting or playing: running first, then queued, oldest first (the
    queue is short, ARENA_LADDER_QUEUE_TARGET, and served by the (status, created_at) index)."""
    return _with_participants(
        Match.objects.filter(
            ladder_id=ladder_id, status__in=(MatchStatus.RUNNING, MatchStatus.QUEUED)
        ).order_by(
            Case(When(status=MatchStatus.RUNNING, then=Value(0)), default=Value(1)),
            "created_at",
            "id",
        )
    )


# --------------------------------------------------------------------------- visibility


def _is_staff(user: User | AnonymousUser) -> bool:
    return bool(user.is_authenticated and user.is_staff)


def _hidden_match(match_id: OuterRef, *, user: User | AnonymousUser) -> Exists | None:
    """Whether the outer match seats another player's private bot; None for staff."""
    if _is_staff(user):
        return None
    private = Participant.objects.filter(
        match_id=match_id, bot_version__bot__visibility=Visibility.PRIVATE
    )
    if user.is_authenticated:
        private = private.exclude(bot_version__bot__owner_id=user.pk)
    return Exists(private)


def matches_visible(matches: QuerySet[Match], *, user: User | AnonymousUser) -> QuerySet[Match]:
    """Hide the matches of other players' private bots (a private bot plays test matches).

    A match is visible when every private bot in it belongs to ``user``;
    staff see every match.
    """
    hidden = _hidden_match(OuterRef("pk"), user=user)
    return matches if hidden is None else matches.exclude(hidden)


def match_get_visible(*, match_id: int, user: User | AnonymousUser) -> Match | None:
    queryset = Match.objects.select_related("ladder").filter(pk=match_id)
    return _with_participants(matches_visible(queryset, user=user)).first()


def match_list(
    *,
    user: User | AnonymousUser,
    ladder_id: int | None = None,
    ladder_slug: str | None = None,
    bot_id: int | None = None,
    status: str | None = None,
    created_after: datetime | None = None,
    created_before: datetime | None = None,
) -> QuerySet[Match]:
    """Matches ``user`` may see, newest first (ids grow with time), filtered."""
    matches = Match.objects.select_related("ladder")
    if ladder_id is not None:
        matches = matches.filter(ladder_id=ladder_id)
    if ladder_slug is not None:
        matches = matches.filter(ladder__slug=ladder_slug)
    if bot_id is not None:
        matches = matches.filter(
            pk__in=Participant.objects.filter(bot_version__bot_id=bot_id).values("match_id")
        )
    if status is not None:
        matches = matches.filter(status=status)
    if created_after is not None:
        matches = matches.filter(created_at__gte=created_after)
    if created_before is not None:
        matches = matches.filter(created_at__lt=created_before)
    return _with_participants(matches_visible(matches, user=user)).order_by("-id")


# --------------------------------------------------------------------------- logs


def seeds_in_play(seeds: set[int]) -> set[int]:
    """Those of ``seeds`` that deal a match still to play (``Match.sealed``)."""
    return set(
        Match.objects.filter(seed__in=seeds, status__in=UNPLAYED).values_list("seed", flat=True)
    )


# Chunk of matches fetched per query when streaming a ladder's logs.
LOG_STREAM_CHUNK = 100


def _owned_seats(match: Match, user: User | AnonymousUser) -> set[int]:
    """The seats of ``match`` played by ``user``'s bots (prefetched participants)."""
    if not user.is_authenticated:
        return set()
    return {p.seat for p in match.participants.all() if p.bot_version.bot.owner_id == user.pk}


def _blank_stderr(value: Any) -> Any:
    """``value`` with every ``*stderr*`` field emptied, at any depth."""
    if isinstance(value, list):
        return [_blank_stderr(item) for item in value]
    if not isinstance(value, dict):
        return value
    blanked: dict[str, Any] = {}
    for key, item in value.items():
        if "stderr" in key:
            blanked[key] = "" if isinstance(item, str) else None
        else:
            blanked[key] = _blank_stderr(item)
    return blanked


def log_redact_stderr(log: dict[str, Any], *, keep_seats: set[int]) -> dict[str, Any]:
    """The log with the stderr of every seat not in ``keep_seats`` emptied.

    A bot's stderr is its author's debugging output (it may reveal how the bot
    plays), so only the seat's owner reads it. Emptied strings keep the log
    valid against the referee-log schema.
    """
    referee = log.get("referee")
    if not isinstance(referee, dict) or not isinstance(referee.get("seats"), list):
        return log
    seats = [
        seat if isinstance(seat, dict) and seat.get("seat") in keep_seats else _blank_stderr(seat)
        for seat in referee["seats"]
    ]
    return {**log, "referee": {**referee, "seats": seats}}


def match_log_read(*, match: Match, user: User | AnonymousUser) -> dict[str, Any] | None:
    """The match's game log, decompressed, with other players' stderr removed; None
    without one, or while it is sealed (``Match.sealed``: a game of its deal is
    still to play).

    ``match`` must come with its participants prefetched (the selectors above).
    """
    if not match.log or match.sealed:
        return None
    with default_storage.open(str(match.log.name), "rb") as handle:
        log = json.loads(gzip.decompress(handle.read()))
    return log_redact_stderr(log, keep_seats=_owned_seats(match, user))


def match_live_read(*, match: Match, since: int = 0) -> LiveEvents | None:
    """The events of a running match so far (``since`` onwards), as its worker published
    them; None when there are none to show.

    The events are the log's, which the finished match shows to all; they stay
    hidden as the log is sealed (``Match.sealed``): while another game dealt by the
    same seed (a duplicate deal's) is still to play, for its dice are these.
    """
    if match.status != MatchStatus.RUNNING or match_deal_in_play(match=match):
        return None
    return live_read(feed=match_feed(match.pk), since=since)


def match_deal_in_play(*, match: Match) -> bool:
    """Whether another match dealt by the same seed (a duplicate deal's game) is still to
    play: until it is, this one's dice are theirs, and stay hidden."""
    return Match.objects.filter(seed=match.seed, status__in=UNPLAYED).exclude(pk=match.pk).exists()


def ladder_logs(
    *,
    ladder_id: int,
    user: User | AnonymousUser,
    finished_after: datetime | None = None,
    finished_before: datetime | None = None,
) -> Iterator[tuple[Match, dict[str, Any]]]:
    """Each finished match of the ladder that ``user`` may see, oldest first, with its
    log; a game of a duplicate deal comes once the whole deal is played.

    Matches are read ``LOG_STREAM_CHUNK`` at a time with their participants
    and one log is in memory at a time, so the process stays flat whatever the
    ladder's size. On PostgreSQL this is a server-side cursor; outside a
    transaction Django declares it WITH HOLD, so the server materialises the
    rows up front instead of holding a transaction open for the whole download.
    """
    matches = Match.objects.select_related("ladder").filter(
        ladder_id=ladder_id, status=MatchStatus.FINISHED
    )
    if finished_after is not None:
        matches = matches.filter(finished_at__gte=finished_after)
    if finished_before is not None:
        matches = matches.filter(finished_at__lt=finished_before)
    matches = _with_participants(matches_visible(matches, user=user))
    matches = matches.filter(~seed_in_play(OuterRef("seed"))).order_by("finished_at", "id")
    for match in matches.iterator(chunk_size=LOG_STREAM_CHUNK):
        log = match_log_read(match=match, user=user)
        if log is not None:
            yield match, log


# --------------------------------------------------------------------------- a bot's matches


def _seats_in_visible_matches(
    seats: QuerySet[Participant], *, user: User | AnonymousUser
) -> QuerySet[Participant]:
    """``seats`` of matches ``user`` may see: the seat-level twin of :func:`matches_visible`."""
    hidden = _hidden_match(OuterRef("match_id"), user=user)
    return seats if hidden is None else seats.exclude(hidden)


def _latest_seats(
    *, version_ids: list[int], user: User | AnonymousUser, limit: int
) -> list[tuple[int, int]]:
    """(seat id, match id) of these versions' latest finished matches ``user`` may see.

    Each version's seats are one range of participant_version_recent. On
    PostgreSQL each range is read newest first and the ranges merged (UNION
    ALL of LIMITs): given ``IN (...)`` the planner may instead walk every
    match backwards hunting for a rare bot's seats. SQLite (the embedded,
    single-machine mode) takes the plain query.
    """
    if not version_ids:
        return []

    def seats(ids: list[int]) -> QuerySet[Participant]:
        # A seat gets its rank when its match finishes: no join with the match.
        finished = Participant.objects.filter(bot_version_id__in=ids, rank__isnull=False)
        return _seats_in_visible_matches(finished, user=user).order_by("-match_id", "seat")

    if len(version_ids) == 1 or not connection.features.supports_slicing_ordering_in_compound:
        latest: QuerySet[Participant, Any] = seats(version_ids)
    else:
        ranges = [seats([pk]).values_list("id", "match_id")[:limit] for pk in version_ids]
        latest = ranges[0].union(*ranges[1:], all=True).order_by("-match_id", "id")
    return list(latest.values_list("id", "match_id")[:limit])


def bot_recent_seats(
    *, version_ids: list[int], user: User | AnonymousUser, limit: int
) -> list[Participant]:
    """The seats these versions (one bot's) took in their latest finished matches.

    Each comes with its match, ladder and version, and the match's seats
    (``match.participants.all()``) for the opponents: three queries.
    """
    seat_ids = [pk for pk, _ in _latest_seats(version_ids=version_ids, user=user, limit=limit)]
    everyone = Participant.objects.select_related("bot_version__bot__owner").order_by("seat")
    return list(
        Participant.objects.filter(pk__in=seat_ids)
        .select_related("match__ladder", "bot_version")
        .prefetch_related(Prefetch("match__participants", queryset=everyone))
        .order_by("-match_id", "seat")
    )


def bot_opponent_records(
    *, version_ids: list[int], user: User | AnonymousUser, matches: int, limit: int
) -> list[dict[str, Any]]:
    """Win/draw/loss counts of these versions (one bot's) against each other bot, most met first.

    Over the bot's last ``matches`` finished matches ``user`` may see, so a
    house bot with a hundred thousand matches costs what any bot does. One
    row per opponent bot: ``bot_id``, ``name``, ``owner``, ``games``,
    ``wins``, ``draws``, ``losses``, comparing ranks pair by pair as Elo does.
    """
    match_ids = {m for _, m in _latest_seats(version_ids=version_ids, user=user, limit=matches)}
    if not match_ids:
        return []
    mine = "match__participants__"  # the bot's own seat in the same match
    opponents = Participant.objects.filter(
        match_id__in=match_ids, match__participants__bot_version_id__in=version_ids
    ).exclude(bot_version_id__in=version_ids)
    rows = (
        opponents.values(
            bot_id=F("bot_version__bot_id"),
            name=F("bot_version__bot__name"),
            owner=F("bot_version__bot__owner__username"),
        )
        .annotate(
            games=Count("pk"),
            wins=Count("pk", filter=Q(**{f"{mine}rank__lt": F("rank")})),
            draws=Count("pk", filter=Q(**{f"{mine}rank": F("rank")})),
            losses=Count("pk", filter=Q(**{f"{mine}rank__gt": F("rank")})),
        )
        .order_by("-games", "name")[:limit]
    )
    return cast(list[dict[str, Any]], list(rows))  # values() rows: plain dicts
