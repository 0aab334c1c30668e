"""Reads on matches."""

from __future__ import annotations

import enum
import gzip
import json
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.db.models import (
    Case,
    Exists,
    Min,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Value,
    When,
)

from arena.blobs.storage_check import archive, default
from arena.bots.models import Bot, BotVersion, TestGame, VersionStatus, Visibility
from arena.bots.selectors import managed_bots_q, may_read_internals, team_name
from arena.live.selectors import LiveEvents, live_read
from arena.pagination import IdWindow
from arena.players.models import User
from vegas_engine import log as game_logs

from .models import (
    UNPLAYED,
    Match,
    MatchAttempt,
    MatchStatus,
    Participant,
    WorkerPresence,
    match_feed,
    seed_in_play,
)

#: A seat's own columns (its match's and version's ids, its result).
SEAT_OWN = (
    *("match_id", "seat", "bot_version_id", "money", "rank", "forfeit"),
    *("rating_before", "rating_after"),
)
#: What pages and the API show of a seat's version, bot and owner: never the version's
#: report and code or the owner's password hash, read (and parsed) for nothing per seat.
SEAT_SHOWN = (
    *SEAT_OWN,
    *("bot_version__bot_id", "bot_version__number", "bot_version__status"),
    *("bot_version__bot__name", "bot_version__bot__owner_id", "bot_version__bot__visibility"),
    # A test build (``Bot.workbench``: no bot page) is named as such (bot_shown_name); the
    # team is read by the access rule (bots.selectors.may_manage_bot) per seat.
    *("bot_version__bot__owner__username", "bot_version__bot__workbench"),
    # The team's name credits a team's bot (bots.selectors.bot_credit), read with the seat
    # rather than once per team bot.
    *("bot_version__bot__team_id", "bot_version__bot__team__name"),
)
SEAT_ON_MATCH_PAGE = SEAT_SHOWN


def seats_shown(fields: Sequence[str] = SEAT_SHOWN) -> QuerySet[Participant]:
    """Seats in order, with what is shown of their versions, bots and owners."""
    return (
        Participant.objects.select_related("bot_version__bot__owner", "bot_version__bot__team")
        .only(*fields)
        .order_by("seat")
    )


def with_participants(
    matches: QuerySet[Match], *, fields: Sequence[str] = SEAT_SHOWN
) -> QuerySet[Match]:
    """With their seats (``fields`` of them), and whether their seed is still in play
    (``Match.sealed``): what a list of matches shows, in two queries whatever its length."""
    seats = Prefetch("participants", queryset=seats_shown(fields))
    return matches.prefetch_related(seats).annotate(seed_in_play=seed_in_play(OuterRef("seed")))


def ladder_recent_matches(*, ladder_id: int) -> QuerySet[Match]:
    """Finished matches of a ladder, latest first (served by match_ladder_finished)."""
    return with_participants(
        Match.objects.filter(ladder_id=ladder_id, status=MatchStatus.FINISHED).order_by(
            "-finished_at", "-id"
        )
    )


def _queue_order(*, ladder_id: int) -> QuerySet[Match]:
    return Match.objects.filter(
        ladder_id=ladder_id, status__in=(MatchStatus.RUNNING, MatchStatus.QUEUED)
    ).order_by(
        Case(When(status=MatchStatus.RUNNING, then=Value(0)), default=Value(1)),
        "created_at",
        "id",
    )


def match_worker_slots(*, queue: str, now: datetime, stale_after: timedelta) -> int:
    """The processes of the workers up (seen within ``stale_after``) that consume ``queue``."""
    live = WorkerPresence.objects.filter(seen_at__gte=now - stale_after)
    return sum(w.concurrency for w in live.only("queues", "concurrency") if queue in w.queues)


def queued_since(*, ladder_ids: Sequence[int]) -> dict[int, datetime]:
    """Each ladder's oldest queued match's time in the queue (its message's due time)."""
    rows = (
        Match.objects.filter(ladder_id__in=ladder_ids, status=MatchStatus.QUEUED)
        .values("ladder_id")
        .annotate(oldest=Min("queued_at"))
    )
    return {row["ladder_id"]: row["oldest"] for row in rows}


def ladder_queue(*, ladder_id: int) -> QuerySet[Match]:
    """A ladder's matches waiting or playing: running first, then queued, oldest first
    (served by the (status, created_at) index). Slice it: the scheduler keeps it short
    (ARENA_LADDER_QUEUE_TARGET), but a league queues a whole round on its ladder at once."""
    return with_participants(_queue_order(ladder_id=ladder_id))


@dataclass(frozen=True)
class LadderLive:
    """What a ladder page shows of its matches in play and just played."""

    latest: list[Match]  # the latest finished, newest first
    queue: list[Match]  # the first of the queue (ladder_queue's order)
    running: int  # matches running, and queued, in all
    queued: int


def ladder_matches_live(
    *, ladder_id: int, user: User | AnonymousUser, latest: int, queued: int
) -> LadderLive:
    """The ``latest`` finished matches and the first ``queued`` of the queue that ``user``
    may see, with the queue's counts: six queries, however long the queue.

    The queue's visible ids and statuses are read once, in order, and counted
    here: counting and listing it apart checked every match's seats against the
    hidden versions twice (a league's round queues hundreds at once).
    """
    hidden = _hidden_versions(user)
    waiting = list(_visible(_queue_order(ladder_id=ladder_id), hidden).values_list("pk", "status"))
    first = [pk for pk, _ in waiting[:queued]]
    shown = {match.pk: match for match in with_participants(Match.objects.filter(pk__in=first))}
    running = sum(1 for _, status in waiting if status == MatchStatus.RUNNING)
    return LadderLive(
        latest=list(_visible(ladder_recent_matches(ladder_id=ladder_id), hidden)[:latest]),
        queue=[shown[pk] for pk in first if pk in shown],
        running=running,
        queued=len(waiting) - running,
    )


# --------------------------------------------------------------------------- visibility


def _is_staff(user: User | AnonymousUser) -> bool:
    return bool(user.is_authenticated and user.is_staff)


def _hidden_versions(user: User | AnonymousUser) -> list[int] | None:
    """The versions whose matches ``user`` may not see: other players' private bots'.

    Read first, in one query: few bots are private (they play test matches), and
    checking each candidate match's seats against this list is an index probe,
    where joining each seat to its version and bot was three. None for staff,
    who see every match. Workbench bots (the editor's test builds, one version
    per test build) are not among them: their matches are test games, which
    :func:`_test_game` keeps out of every list, so this list does not grow with
    each test build.
    """
    if _is_staff(user):
        return None
    private = BotVersion.objects.filter(bot__visibility=Visibility.PRIVATE, bot__workbench=False)
    if user.is_authenticated:
        private = private.exclude(managed_bots_q(user, prefix="bot__"))
    return list(private.values_list("pk", flat=True))


def _hidden_match(match_id: OuterRef, *, hidden: list[int] | None) -> Exists | None:
    """Whether the outer match seats one of the ``hidden`` versions; None when none is."""
    if not hidden:
        return None
    return Exists(Participant.objects.filter(match_id=match_id, bot_version_id__any_of=hidden))


def _test_game(match_id: OuterRef) -> Exists:
    """Whether the outer match is a test game of the browser editor (an index probe of
    ``TestGame.match``). A test game is no ladder match: no list, count or export of
    matches holds it, for anyone; its author and staff open it by its own page
    (:func:`match_get_visible`) and from the editor."""
    return Exists(TestGame.objects.filter(match_id=match_id))


def matches_visible(matches: QuerySet[Match], *, user: User | AnonymousUser) -> QuerySet[Match]:
    """The matches a list shows ``user``: no test game, and none of other players' private
    bots (a private bot plays test matches).

    A match is listed when every private bot in it belongs to ``user``; staff
    see every match but the test games.
    """
    return _visible(matches, _hidden_versions(user))


def matches_visible_each(
    *lists: QuerySet[Match], user: User | AnonymousUser
) -> list[QuerySet[Match]]:
    """:func:`matches_visible` of several lists of matches, the hidden versions read once."""
    hidden = _hidden_versions(user)
    return [_visible(matches, hidden) for matches in lists]


def _visible(matches: QuerySet[Match], hidden: list[int] | None) -> QuerySet[Match]:
    """``matches`` that are no test game and seat none of the ``hidden`` versions
    (:func:`_hidden_versions`): the one rule of every list of matches."""
    listed = matches.exclude(_test_game(OuterRef("pk")))
    hidden_match = _hidden_match(OuterRef("pk"), hidden=hidden)
    return listed if hidden_match is None else listed.exclude(hidden_match)


def match_get_visible(*, match_id: int, user: User | AnonymousUser) -> Match | None:
    """One match, when ``user`` may see it: as in lists (:func:`matches_visible`), and a
    test game to its author and staff only."""
    queryset = Match.objects.select_related("ladder").filter(pk=match_id)
    hidden_match = _hidden_match(OuterRef("pk"), hidden=_hidden_versions(user))
    if hidden_match is not None:
        queryset = queryset.exclude(hidden_match)
    if not _is_staff(user):
        others = TestGame.objects.filter(match_id=OuterRef("pk"))
        if user.is_authenticated:
            others = others.exclude(owner_id=user.pk)
        queryset = queryset.exclude(Exists(others))
    return with_participants(queryset, fields=SEAT_ON_MATCH_PAGE).first()


def match_attempts_read(*, match: Match, user: User | AnonymousUser) -> list[MatchAttempt] | None:
    """Every attempt at playing ``match``, in order, with why each failed: staff only (None
    for others: workers' names and errors are the operators' business)."""
    if not _is_staff(user):
        return None
    return list(MatchAttempt.objects.filter(match_id=match.pk).order_by("number"))


def match_list(
    *,
    user: User | AnonymousUser,
    ladder_id: int | None = None,
    ladder_slug: str | None = None,
    bot_id: int | None = None,
    status: str | None = None,
    created_after: datetime | None = None,
    created_before: datetime | None = None,
    window: IdWindow | None = None,
) -> QuerySet[Match]:
    """Matches ``user`` may see, newest first (ids grow with time), filtered.

    ``window``: the cursor page asked for (newest first), which a bot's matches
    need on PostgreSQL (:func:`_bot_match_ids`); without it they are found by a
    plain subquery.
    """
    conditions = Q()
    if ladder_id is not None:
        conditions &= Q(ladder_id=ladder_id)
    if ladder_slug is not None:
        conditions &= Q(ladder__slug=ladder_slug)
    if status is not None:
        conditions &= Q(status=status)
    if created_after is not None:
        conditions &= Q(created_at__gte=created_after)
    if created_before is not None:
        conditions &= Q(created_at__lt=created_before)
    matches = Match.objects.select_related("ladder").filter(conditions)
    hidden = _hidden_versions(user)
    if bot_id is not None:
        if window is not None and connection.features.supports_slicing_ordering_in_compound:
            ids = _bot_match_ids(bot_id=bot_id, conditions=conditions, hidden=hidden, window=window)
            matches = matches.filter(pk__in=ids)
        else:
            seats = Participant.objects.filter(bot_version__bot_id=bot_id)
            matches = matches.filter(pk__in=seats.values("match_id"))
    return with_participants(_visible(matches, hidden)).order_by("-id")


def _on_seat(conditions: Q) -> Q:
    """``conditions`` on a match, as conditions on one of its seats (``match__...``)."""
    children: list[Any] = []
    for child in conditions.children:
        if isinstance(child, Q):
            children.append(_on_seat(child))
        else:
            lookup, value = cast(tuple[str, Any], child)
            children.append((f"match__{lookup}", value))
    return Q(*children, _connector=conditions.connector, _negated=conditions.negated)


def _bot_match_ids(
    *, bot_id: int, conditions: Q, hidden: list[int] | None, window: IdWindow
) -> list[int]:
    """The ids of the bot's matches meeting ``conditions`` that seat none of the ``hidden``
    versions (:func:`_hidden_versions`) and the cursor page ``window`` can hold.

    Each of the bot's versions is one range of participant_version_recent, read in
    the page's direction from the cursor's position and cut at the page's size,
    and the ranges merged (UNION ALL of LIMITs): a house bot has a hundred
    thousand seats, and filtering matches by a subquery of all of them would
    check every one of them (visibility included) before sorting.
    """
    versions = list(BotVersion.objects.filter(bot_id=bot_id).values_list("pk", flat=True))
    if not versions:
        return []
    newest_first = not window.reverse
    on_seat = _on_seat(conditions)
    if window.position is not None:
        bound = "lt" if newest_first else "gt"
        on_seat &= Q(**{f"match_id__{bound}": window.position})
    ranges = [
        _seats_in_visible_matches(
            Participant.objects.filter(on_seat, bot_version_id=version), hidden=hidden
        )
        .order_by("-match_id" if newest_first else "match_id")
        .values_list("match_id", flat=True)[: window.limit]
        for version in versions
    ]
    found = ranges[0] if len(ranges) == 1 else ranges[0].union(*ranges[1:], all=True)
    return list(found)


# --------------------------------------------------------------------------- logs


def seeds_in_play(seeds: set[int]) -> set[int]:
    """Those of ``seeds`` that deal a match still to play (``Match.sealed``)."""
    return set(
        Match.objects.filter(seed__in=seeds, status__in=UNPLAYED).values_list("seed", flat=True)
    )


# Chunk of matches fetched per query when streaming a ladder's logs.
LOG_STREAM_CHUNK = 100


def _readable_seats(match: Match, user: User | AnonymousUser) -> set[int]:
    """The seats of ``match`` whose bots' internals ``user`` may read: their owner's, and
    every seat for staff (prefetched participants)."""
    return {p.seat for p in match.participants.all() if may_read_internals(user, p.bot_version.bot)}


#: What the referee keeps of a seat for its owner alone, besides stderr: the notes and
#: stderr of every decision, and the seed of the bot's own randomness.
PRIVATE_SEAT_FIELDS = ("trace", "bot_seed")


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


def _without_private(seat: Any) -> Any:
    """A seat's referee record with its stderr emptied and its private fields removed;
    its fault keeps its kind and message, not the reply it quotes (which may hold a note)."""
    if not isinstance(seat, dict):
        return seat
    public = {k: v for k, v in seat.items() if k not in PRIVATE_SEAT_FIELDS}
    fault = public.get("fault")
    if isinstance(fault, dict) and fault.get("sent") is not None:
        public["fault"] = {**fault, "sent": None}
    return _blank_stderr(public)


def log_redact_private(log: dict[str, Any], *, keep_seats: set[int]) -> dict[str, Any]:
    """The log without what is private to the seats not in ``keep_seats``: the one home
    of this rule, for every way a log leaves the platform.

    A bot's stderr, its notes and its trace are its author's debugging output (they
    may reveal how the bot plays), and its bot seed would let others predict its
    random choices: only the seat's owner (and staff) read them. Stderr strings are
    emptied and ``trace`` and ``bot_seed`` removed, which keeps the log valid against
    the referee-log schema.
    """
    referee = log.get("referee")
    if not isinstance(referee, dict) or not isinstance(referee.get("seats"), list):
        return log
    seats = [
        seat if isinstance(seat, dict) and seat.get("seat") in keep_seats
        else _without_private(seat)
        for seat in referee["seats"]
    ]  # fmt: skip
    return {**log, "referee": {**referee, "seats": seats}}


def match_log_stored(match: Match) -> bytes:
    """The stored (compressed) log, from the archive storage once moved there; the other
    storage too, should an archiving run have stopped half-way through this log."""
    first, second = (archive(), default()) if match.log_archived else (default(), archive())
    try:
        with first.open(str(match.log.name), "rb") as handle:
            return bytes(handle.read())
    except FileNotFoundError:
        with second.open(str(match.log.name), "rb") as handle:
            return bytes(handle.read())


def match_log_read(
    *, match: Match, user: User | AnonymousUser, moves: bool = False
) -> dict[str, Any] | None:
    """The match's game log, decompressed, with what is private to the seats of other
    players' bots removed (:func:`log_redact_private`; staff read it all); None
    without one, or while it is sealed (``Match.sealed``: a game of its deal is
    still to play).

    The events form (docs/game-log.md), made from the stored moves; with
    ``moves`` the log as stored (the moves form; older matches stored events).
    ``match`` must come with its participants prefetched (the selectors above).
    """
    if not match.log or match.sealed:
        return None
    log = json.loads(gzip.decompress(match_log_stored(match)))
    if not moves:
        log = game_logs.expand(log)
    seats = match.participants.all()
    owners = {p.seat: p.bot_version.bot.owner.username for p in seats}
    teams = {p.seat: team_name(p.bot_version.bot) for p in seats}
    return log_redact_private(
        log_with_owners(log, owners, teams), keep_seats=_readable_seats(match, user)
    )


def log_with_owners(
    log: dict[str, Any], owners: dict[int, str], teams: dict[int, str | None]
) -> dict[str, Any]:
    """The log with each referee seat record naming its bot's owner (``owner``, a
    username) and team (``team``, its name or null): the referee names a seat's bot only
    ("my-first-bot v3"), which two owners' bots may share. Added as the log is read, so
    logs stored before it carry them too."""
    referee = log.get("referee")
    if not isinstance(referee, dict) or not isinstance(referee.get("seats"), list):
        return log
    seats = [
        {**seat, "owner": owners[seat["seat"]], "team": teams.get(seat["seat"])}
        if isinstance(seat, dict) and seat.get("seat") in owners
        else seat
        for seat in referee["seats"]
    ]
    return {**log, "referee": {**referee, "seats": seats}}


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
    matches = with_participants(matches_visible(matches, user=user))
    matches = matches.filter(~seed_in_play(OuterRef("seed"))).order_by("finished_at", "id")
    for match in matches.iterator(chunk_size=LOG_STREAM_CHUNK):
        log = match_log_read(match=match, user=user)
        if log is not None:
            yield match, log
        _release(match)


def _release(match: Match) -> None:
    """Break the reference cycles a loaded match sits in, so that it is freed as soon as
    it is written rather than by the cyclic collector, long after its chunk (memory
    would grow with the ladder): its prefetched participants and its log's FieldFile
    point back at it. Both are read again from the database if wanted."""
    vars(match).pop("_prefetched_objects_cache", None)
    vars(match).pop("log", None)


# --------------------------------------------------------------------------- a bot's matches


def _seats_in_visible_matches(
    seats: QuerySet[Participant], *, hidden: list[int] | None
) -> QuerySet[Participant]:
    """``seats`` of matches that are no test game and seat none of the ``hidden`` versions
    (:func:`_hidden_versions`): the seat-level twin of :func:`matches_visible`."""
    listed = seats.exclude(_test_game(OuterRef("match_id")))
    hidden_match = _hidden_match(OuterRef("match_id"), hidden=hidden)
    return listed if hidden_match is None else listed.exclude(hidden_match)


#: Seats of a bot read per window while its matches are checked for hidden versions.
LATEST_SEATS_WINDOW = 100
#: Match ids per candidate match at most for the hidden versions' seats to be read by
#: their range of ids (one index range per hidden version): a busy bot's latest matches
#: are close together. A rarer bot's are far apart: its matches are probed one by one.
HIDDEN_RANGE_SPREAD = 50


def bot_latest_seats(
    *, version_ids: list[int], user: User | AnonymousUser, limit: int
) -> list[tuple[int, int]]:
    """(seat id, match id) of these versions' (one bot's) latest finished matches ``user``
    may see (no test game, :func:`_test_game`), newest first: what :func:`bot_recent_seats`
    and :func:`bot_opponent_records` show, read once for both.

    Each version's seats are one range of participant_version_recent. On
    PostgreSQL each range is read newest first and the ranges merged (UNION
    ALL of LIMITs): given ``IN (...)`` the planner may instead walk every
    match backwards hunting for a rare bot's seats. SQLite (the embedded,
    single-machine mode) takes the plain query.

    With versions hidden from ``user``, the seats are read a window at a time
    and the window's matches checked for them at once (:func:`_hidden_among`),
    not match by match in the seats' query: 1,000 probes of a busy bot's
    matches, each reading its seats.
    """
    if not version_ids:
        return []

    hidden = _hidden_versions(user)

    def seats(ids: list[int], upto: int | None) -> QuerySet[Participant]:
        # A seat gets its rank when its match finishes: no join with the match.
        finished = Participant.objects.filter(bot_version_id__in=ids, rank__isnull=False).exclude(
            _test_game(OuterRef("match_id"))
        )
        if upto is not None:
            finished = finished.filter(match_id__lte=upto)
        return finished.order_by("-match_id", "seat")

    def latest(upto: int | None, count: int) -> list[tuple[int, int]]:
        if len(version_ids) == 1 or not connection.features.supports_slicing_ordering_in_compound:
            return list(seats(version_ids, upto).values_list("id", "match_id")[:count])
        ranges = [seats([pk], upto).values_list("id", "match_id")[:count] for pk in version_ids]
        merged = ranges[0].union(*ranges[1:], all=True).order_by("-match_id", "id")
        return list(merged[:count])

    if not hidden:
        return latest(None, limit)
    # A little more than asked: the window's last match and the hidden ones are left out.
    window = max(limit + limit // 8, LATEST_SEATS_WINDOW)
    found: list[tuple[int, int]] = []
    upto = None
    while len(found) < limit:
        rows = latest(upto, window)
        full = len(rows) == window
        if full:
            # The window may end inside a match (two versions of the bot at one table):
            # that match is read again, whole, with the next window.
            upto = rows[-1][1]
            rows = [row for row in rows if row[1] != upto]
        out = _hidden_among({match_id for _, match_id in rows}, hidden)
        found += [row for row in rows if row[1] not in out]
        if not full:
            break
    return found[:limit]


def _hidden_among(match_ids: set[int], hidden: list[int]) -> set[int]:
    """Those of ``match_ids`` that seat one of the ``hidden`` versions."""
    if not match_ids:
        return set()
    low, high = min(match_ids), max(match_ids)
    seats = Participant.objects.filter(bot_version_id__any_of=hidden)
    if high - low <= HIDDEN_RANGE_SPREAD * len(match_ids):
        seats = seats.filter(match_id__gte=low, match_id__lte=high)
    else:
        seats = seats.filter(match_id__any_of=sorted(match_ids))
    return match_ids & set(seats.values_list("match_id", flat=True))


def bot_recent_seats(*, seats: Sequence[tuple[int, int]]) -> list[Participant]:
    """The seats of :func:`bot_latest_seats` (cut to how many are shown), newest first.

    Each comes with its match, ladder and version, and the match's seats
    (``match.participants.all()``) for the opponents: three queries.
    """
    return list(
        Participant.objects.filter(pk__in=[pk for pk, _ in seats])
        .select_related("match__ladder", "bot_version")
        # Not the match's options and runner, the ladder's limits and the version's report:
        # JSON parsed three times a row for nothing (a third of the page's seats' CPU).
        .only(*SEAT_OWN, "match__ladder__slug", "match__ladder__name", "bot_version__number")
        .prefetch_related(Prefetch("match__participants", queryset=seats_shown()))
        .order_by("-match_id", "seat")
    )


def bot_opponent_records(
    *, version_ids: list[int], seats: Sequence[tuple[int, int]], limit: int
) -> list[dict[str, Any]]:
    """Win/draw/loss counts of these versions (one bot's) against each other bot, most met first.

    Over the matches of ``seats`` (:func:`bot_latest_seats`: the bot's last
    ones ``user`` may see), so a house bot with a hundred thousand matches
    costs what any bot does. One row per opponent bot: ``bot_id``, ``name``,
    ``owner``, ``team`` (its name or None), ``games``, ``wins``, ``draws``,
    ``losses``, comparing ranks pair by pair as Elo does.
    """
    match_ids = {match_id for _, match_id in seats}
    if not match_ids:
        return []
    # Every seat of those matches (a few thousand small rows), paired up here: joining the
    # seats to each other in SQL cost ten times more. The bot of each version comes apart
    # and the names and owners of the opponents shown last: joined to each of the
    # thousands of seats they took more time than the seats themselves.
    tables: dict[int, list[tuple[int, int | None]]] = defaultdict(list)
    for match_id, version_id, rank in Participant.objects.filter(
        match_id__any_of=match_ids
    ).values_list("match_id", "bot_version_id", "rank"):
        tables[match_id].append((version_id, rank))
    versions = {version_id for table in tables.values() for version_id, _ in table}
    bot_of = dict(BotVersion.objects.filter(pk__any_of=versions).values_list("pk", "bot_id"))
    mine = set(version_ids)
    # Per opponent bot: games, wins, draws, losses.
    tally: dict[int, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for table in tables.values():
        own = [rank for version_id, rank in table if version_id in mine]
        for version_id, rank in table:
            if version_id in mine:
                continue
            counts = tally[bot_of[version_id]]
            for my_rank in own:
                counts[0] += 1
                if my_rank is not None and rank is not None:
                    counts[1 if my_rank < rank else 2 if my_rank == rank else 3] += 1
    # The most met first, then by name: the names of every bot with as many games as
    # the last one shown, so ties are broken as before.
    most = sorted(tally, key=lambda bot_id: -tally[bot_id][0])[:limit]
    least = tally[most[-1]][0] if most else 0
    close = [bot_id for bot_id in tally if tally[bot_id][0] >= least]
    bots = {
        bot_id: (name, owner, team)
        for bot_id, name, owner, team in Bot.objects.filter(pk__any_of=close).values_list(
            "pk", "name", "owner__username", "team__name"
        )
    }
    ranked = sorted(close, key=lambda bot_id: (-tally[bot_id][0], bots[bot_id][0], bot_id))
    return [
        {
            "bot_id": bot_id,
            "name": bots[bot_id][0],
            "owner": bots[bot_id][1],
            "team": bots[bot_id][2],
        }
        | dict(zip(("games", "wins", "draws", "losses"), tally[bot_id], strict=True))
        for bot_id in ranked[:limit]
    ]


# --------------------------------------------------------------------------- test games


class TestGameStage(enum.Enum):
    """Where a test game is, as the editor shows it."""

    __test__ = False  # not a pytest test class

    BUILDING = "building"
    """Its test build waits for a worker or is being built."""
    BUILD_FAILED = "build failed"
    """The build step refused the code: the build report says why. Final."""
    QUEUED = "queued"
    """Built; its match waits for a worker."""
    PLAYING = "playing"
    """A worker plays its match."""
    FINISHED = "finished"
    """Played to the end: its replay is there. Final."""
    FAILED = "failed"
    """The platform could not play it (or it was cancelled). Final."""

    @property
    def done(self) -> bool:
        return self in (TestGameStage.BUILD_FAILED, TestGameStage.FINISHED, TestGameStage.FAILED)


def stage_of_test_game(test_game: TestGame) -> TestGameStage:
    if test_game.build.status == VersionStatus.FAILED:
        return TestGameStage.BUILD_FAILED
    match = test_game.match
    if match is None:
        return TestGameStage.BUILDING
    return {
        MatchStatus.QUEUED: TestGameStage.QUEUED,
        MatchStatus.RUNNING: TestGameStage.PLAYING,
        MatchStatus.FINISHED: TestGameStage.FINISHED,
    }.get(MatchStatus(match.status), TestGameStage.FAILED)
