"""Reads of the site's own pages that gather several apps: the home page.

The home page is the busiest page and shows the same to everyone (what an
anonymous visitor may see), so it is read in a bounded number of queries,
each served by an index and cut by a LIMIT (never a count over every rating
or match), and kept in Django's cache for HOME_CACHE_SECONDS.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import AnonymousUser
from django.core.cache import cache
from django.db.models import Prefetch
from django.urls import reverse

from arena.bots.models import Bot
from arena.bots.selectors import bot_credit
from arena.competitions.models import Competition
from arena.competitions.selectors import RUNNING as COMPETITIONS_RUNNING
from arena.competitions.selectors import next_step
from arena.ladders.models import Ladder, Rating
from arena.ladders.selectors import ladder_leaderboard, ladder_list
from arena.matches.models import Match, MatchStatus
from arena.matches.selectors import matches_visible_each, seats_shown

#: Seconds the home page's content is reused: short, as it shows matches in play.
HOME_CACHE_SECONDS = 15
HOME_CACHE_KEY = "arena:home:v3"  # v3: leaders with their deviations
HOME_COUNTS_KEY = f"{HOME_CACHE_KEY}:counts"
#: Every key the home page keeps (the bench expires them all).
HOME_CACHE_KEYS = (HOME_CACHE_KEY, HOME_COUNTS_KEY)
#: Seconds each ladder's count of bots is reused (it moves slowly).
HOME_COUNTS_SECONDS = 300
#: Matches in play and latest results shown.
HOME_LIVE_MATCHES = 8
HOME_LATEST_RESULTS = 8
#: Competitions under way shown.
HOME_COMPETITIONS = 5
#: Leaders shown per ladder.
HOME_LEADERS = 3
#: A ladder's bots are counted up to this many ("1000+" above): a bounded count.
HOME_BOT_COUNT_CAP = 1000


@dataclass(frozen=True)
class BotOwner:
    """A bot as the home page names it: with whom it is credited to, its team or else its
    owner (``web/_bot_owner.html``; bots.selectors.bot_credit, as every page), in plain
    values that the cache keeps."""

    bot_id: int
    name: str
    #: The team's name, or the owner's username.
    credit: str
    #: The team's page, or the owner's.
    credit_url: str
    #: One of the house's bots.
    house: bool = False


@dataclass(frozen=True)
class HomeSeat:
    bot: BotOwner
    seat: int
    rank: int | None
    money: int | None


@dataclass(frozen=True)
class HomeMatch:
    match_id: int
    ladder_name: str
    status: str
    #: When it started (in play) or finished (a result).
    at: datetime | None
    seats: tuple[HomeSeat, ...]


@dataclass(frozen=True)
class HomeLeader:
    position: int
    bot: BotOwner
    rating: float
    deviation: float


@dataclass(frozen=True)
class HomeLadder:
    ladder: Ladder
    #: Public bots on its leaderboard, counted up to HOME_BOT_COUNT_CAP + 1.
    bot_count: int
    leaders: tuple[HomeLeader, ...]

    @property
    def bot_count_shown(self) -> str:
        if self.bot_count > HOME_BOT_COUNT_CAP:
            return f"{HOME_BOT_COUNT_CAP:,}+"
        return f"{self.bot_count:,}"


@dataclass(frozen=True)
class RunningCompetition:
    """A competition under way, as the home page's slot shows it with a countdown."""

    title: str
    url: str
    #: What the countdown counts down to ("entry closes", ...), or the phase when
    #: nothing is on its calendar any more (the final event runs).
    phase: str
    next_at: datetime | None


@dataclass(frozen=True)
class HomePage:
    live: tuple[HomeMatch, ...]
    latest: tuple[HomeMatch, ...]
    ladders: tuple[HomeLadder, ...]
    competitions: tuple[RunningCompetition, ...] = ()


def competitions_running() -> list[RunningCompetition]:
    """The competitions under way (entry open, season, frozen, final event), the one
    whose final event starts first first; the home page shows nothing when there is none.
    The countdown is written when the page is (``timeuntil``), so it is right even from
    the cache."""
    running = Competition.objects.filter(phase__in=COMPETITIONS_RUNNING).order_by(
        "final_starts_at", "pk"
    )[:HOME_COMPETITIONS]
    shown = []
    for competition in running:
        step = next_step(competition=competition)
        shown.append(
            RunningCompetition(
                title=competition.title,
                url=reverse("web:competition", args=[competition.slug]),
                phase=step.what if step else competition.get_phase_display().lower(),
                next_at=step.at if step else None,
            )
        )
    return shown


def _bot(bot: Bot) -> BotOwner:
    """``bot`` named with its credit: its owner and team came with it (seats_shown,
    ladder_leaderboard), so no query."""
    credit = bot_credit(bot)
    url = (
        reverse("web:team", args=[credit.team_id])
        if credit.team_id is not None
        else reverse("web:player", args=[credit.username])
    )
    return BotOwner(
        bot_id=bot.pk, name=bot.name, credit=credit.name, credit_url=url, house=credit.house
    )


def _home_matches(matches: Sequence[Match], *, started: bool) -> tuple[HomeMatch, ...]:
    return tuple(
        HomeMatch(
            match_id=match.pk,
            ladder_name=match.ladder.name if match.ladder_id else "",
            status=match.status,
            at=match.started_at if started else match.finished_at,
            seats=tuple(
                HomeSeat(
                    bot=_bot(seat.bot_version.bot),
                    seat=seat.seat,
                    rank=seat.rank,
                    money=seat.money,
                )
                for seat in match.participants.all()
            ),
        )
        for match in matches
    )


def _matches() -> tuple[list[Match], list[Match]]:
    """The newest matches in play and the latest results anyone may see, with their seats:
    newest first (ids grow with time), backward walks of match_status_created and of the
    primary key that stop at their LIMIT."""
    running, finished = matches_visible_each(
        Match.objects.filter(status=MatchStatus.RUNNING).order_by("-created_at", "-id"),
        Match.objects.filter(status=MatchStatus.FINISHED).order_by("-id"),
        user=AnonymousUser(),
    )
    seats = Prefetch("participants", queryset=seats_shown())
    return (
        list(running.select_related("ladder").prefetch_related(seats)[:HOME_LIVE_MATCHES]),
        list(finished.select_related("ladder").prefetch_related(seats)[:HOME_LATEST_RESULTS]),
    )


def _bot_counts(ladders: Sequence[Ladder]) -> dict[int, int]:
    """Each ladder's public bots, counted up to HOME_BOT_COUNT_CAP + 1 (a COUNT over a
    LIMIT subquery, never one over every rating), read at most every HOME_COUNTS_SECONDS:
    the number moves slowly, the page's other parts quickly."""
    key = HOME_COUNTS_KEY
    with contextlib.suppress(Exception):  # the cache backend's own errors: count instead
        counts = cache.get(key)
        if isinstance(counts, dict) and all(ladder.pk in counts for ladder in ladders):
            return counts
    counts = {
        ladder.pk: ladder_leaderboard(ladder=ladder).order_by()[: HOME_BOT_COUNT_CAP + 1].count()
        for ladder in ladders
    }
    with contextlib.suppress(Exception):  # uncached, they are counted again next time
        cache.set(key, counts, HOME_COUNTS_SECONDS)
    return counts


def _ladder(ladder: Ladder, bot_count: int) -> HomeLadder:
    settled = ladder_leaderboard(ladder=ladder, provisional=False)
    leaders: list[Rating] = list(settled[:HOME_LEADERS])
    return HomeLadder(
        ladder=ladder,
        bot_count=bot_count,
        leaders=tuple(
            HomeLeader(
                position=position,
                bot=_bot(rating.bot),
                rating=rating.rating,
                deviation=rating.deviation,
            )
            for position, rating in enumerate(leaders, start=1)
        ),
    )


def home_page_read() -> HomePage:
    """The home page's content, read now: the private versions left out, the matches in
    play and the results with their seats (5 queries), the ladders, each one's leaders,
    the competitions under way and, at most every HOME_COUNTS_SECONDS, each ladder's bots
    counted (2 + 2 per ladder)."""
    running, finished = _matches()
    # A competition's ladder is shown on its competition's page (and listed below while it
    # runs): the platform's own ladders here, not every past competition's.
    ladders = list(ladder_list().filter(restricted=False))
    counts = _bot_counts(ladders)
    return HomePage(
        live=_home_matches(running, started=True),
        latest=_home_matches(finished, started=False),
        ladders=tuple(_ladder(ladder, counts[ladder.pk]) for ladder in ladders),
        competitions=tuple(competitions_running()),
    )


def home_page() -> HomePage:
    """The home page's content, read at most every HOME_CACHE_SECONDS (in Django's cache;
    read each time when the cache cannot be reached)."""
    try:
        page = cache.get(HOME_CACHE_KEY)
    except Exception:  # the cache backend's own errors (redis, ...): read instead
        page = None
    if not isinstance(page, HomePage):
        page = home_page_read()
        with contextlib.suppress(Exception):  # uncached, it is read again next time
            cache.set(HOME_CACHE_KEY, page, HOME_CACHE_SECONDS)
    return page
