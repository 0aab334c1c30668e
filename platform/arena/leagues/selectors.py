"""Reads on leagues: lists, visibility, fixtures, standings, scored units and the log bundle."""

from __future__ import annotations

import itertools
import json
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.db.models import (
    BooleanField,
    Case,
    Count,
    Exists,
    F,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    When,
)
from django.db.models.functions import Coalesce

from arena.bots.models import Bot, BotVersion, VersionStatus, Visibility
from arena.bots.selectors import managed_bots_q, may_manage_bot, team_name
from arena.ladders.models import Entry, Ladder, Rating
from arena.matches.models import Match, MatchStatus, Participant, seed_in_play
from arena.matches.selectors import match_log_read, seeds_in_play
from arena.players.models import User

from . import scoring
from .models import (
    EntryStatus,
    GameStatus,
    League,
    LeagueEntry,
    LeagueFixture,
    LeagueGame,
    LeagueGameSeat,
    LeagueRound,
    LeagueStanding,
    LeagueVisibility,
)

SCORED = (GameStatus.FINISHED, GameStatus.WALKOVER)
# Matches read per query while streaming a bundle.
BUNDLE_CHUNK = 100


def bot_rule_systems(*, bot: Bot) -> set[str]:
    """The rule systems a bot is known to play: those of the ladders it is rated on.

    Empty for a bot that has not played yet (it may enter anything).
    """
    return set(Rating.objects.filter(bot=bot).values_list("ladder__rules", flat=True).distinct())


# --------------------------------------------------------------------------- visibility


def _visible(leagues: QuerySet[League], user: User | AnonymousUser) -> QuerySet[League]:
    if user.is_authenticated and user.is_staff:
        return leagues
    public = Q(visibility=LeagueVisibility.PUBLIC)
    if not user.is_authenticated:
        return leagues.filter(public)
    # Private leagues: their organiser and the owners of entered bots.
    mine = Q(organiser_id=user.pk) | Q(
        pk__in=LeagueEntry.objects.filter(managed_bots_q(user, prefix="bot__")).values("league_id")
    )
    return leagues.filter(public | mine)


def league_list(*, user: User | AnonymousUser, status: str | None = None) -> QuerySet[League]:
    """Leagues ``user`` may see, next to start first."""
    leagues = League.objects.select_related(
        "ladder", "organiser", "winner__bot__owner", "winner__bot__team"
    )
    if status is not None:
        leagues = leagues.filter(status=status)
    return _visible(leagues, user).order_by("-start_at", "-id")


def league_get_visible(*, slug: str, user: User | AnonymousUser) -> League | None:
    leagues = League.objects.select_related(
        "ladder", "organiser", "winner__bot__owner", "winner__bot__team"
    ).filter(slug=slug)
    return _visible(leagues, user).first()


def league_can_manage(*, league: League, user: User | AnonymousUser) -> bool:
    """The organiser and staff pause, resume, cancel and change entrants."""
    return bool(user.is_authenticated and (user.is_staff or league.organiser_id == user.pk))


def league_entry_can_withdraw(*, entry: LeagueEntry, user: User | AnonymousUser) -> bool:
    """The bot's owner takes it out of a league, as do the organiser and staff."""
    if not user.is_authenticated:
        return False
    return may_manage_bot(user, entry.bot, staff=False) or league_can_manage(
        league=entry.league, user=user
    )


def league_entry_can_respond(*, entry: LeagueEntry, user: User | AnonymousUser) -> bool:
    """Only the bot's owner or team answers its invitation (not the organiser, not staff)."""
    return may_manage_bot(user, entry.bot, staff=False)


def league_entry_is_invitation(*, bot: Bot, organiser: User) -> bool:
    """Entering another player's bot invites it; staff enter any public bot at once
    (as the ladders schedule them), a player's own bots and the house bots (the
    platform's, which nobody answers for) enter at once."""
    if may_manage_bot(organiser, bot):
        return False
    # Accounts made by createsuperuser may have no profile (RelatedObjectDoesNotExist).
    profile = getattr(bot.owner, "profile", None)
    return not (profile is not None and profile.is_house)


# --------------------------------------------------------------------------- entering bots


@dataclass(frozen=True)
class EntryCandidate:
    """A bot a player may enter in a league."""

    bot: Bot
    # The rule systems it is known to play (bot_rule_systems); empty: any, it has not played.
    rule_systems: frozenset[str]
    # Another player's bot: it plays only if its owner accepts before the start.
    invited: bool

    def plays(self, rules: str) -> bool:
        return not self.rule_systems or rules in self.rule_systems


def league_ladders() -> QuerySet[Ladder]:
    """The ladders a new league may play: the open ones (league_validate refuses the others),
    each with ``entrant_count``, the bots entered on it."""
    # A count per ladder on the entries' ladder index, not a join of every entry; COUNT(*),
    # not of their ids, reads the index alone (the rows' ids are not in it).
    entered = (
        Entry.objects.filter(ladder_id=OuterRef("pk"))
        .order_by()
        .values("ladder_id")
        .annotate(n=Count("*"))
        .values("n")
    )
    return (
        # A competition's ladder (restricted) plays only its own final event.
        Ladder.objects.filter(is_open=True, restricted=False)
        .annotate(entrant_count=Coalesce(Subquery(entered), 0))
        .order_by("name")
    )


def league_default_ladder(
    *, ladders: Sequence[Ladder], candidates: Sequence[EntryCandidate]
) -> Ladder | None:
    """The ladder a new league's form proposes: the one with the most entrants among those
    whose game the player's own candidates play, else the most entrants of all (a ladder
    no bot entered makes an empty league)."""
    own = [c for c in candidates if not c.invited]
    playable = [ladder for ladder in ladders if any(c.plays(ladder.rules) for c in own)]
    pool = playable or list(ladders)
    if not pool:
        return None
    return max(pool, key=lambda ladder: getattr(ladder, "entrant_count", 0))


#: Other players' bots offered to enter a league (a page of checkboxes, not ten thousand).
CANDIDATES_OF_OTHERS = 500


def league_entry_candidates(
    *,
    user: User,
    rules: str | None = None,
    league: League | None = None,
    others: int = CANDIDATES_OF_OTHERS,
) -> list[EntryCandidate]:
    """The bots ``user`` may enter in a league: all their own, then the first ``others``
    of other players' public bots by owner and name, each with an active version.

    ``rules``: only bots that may play that rule system. ``league``: only bots
    not entered in it (a withdrawn bot may enter again). The leagues services
    still check every entrant (a public league takes no private bot).
    """
    active = BotVersion.objects.filter(bot=OuterRef("pk"), status=VersionStatus.ACTIVE)
    bots = (
        Bot.objects.filter(Exists(active), workbench=False)
        .select_related("owner__profile", "team")
        .only(
            *("name", "owner_id", "team_id", "visibility", "owner__username"),
            *("owner__profile__is_house", "team__name"),
        )
        .order_by("owner__username", "name", "id")
    )
    if rules is not None:
        # Known to play it, or not known to play anything yet (bot_rule_systems).
        rated = Rating.objects.filter(bot=OuterRef("pk"))
        bots = bots.filter(~Exists(rated) | Exists(rated.filter(ladder__rules=rules)))
    if league is not None:
        entered = league.entries.exclude(status=EntryStatus.WITHDRAWN).values("bot_id")
        bots = bots.exclude(pk__in=entered)
    mine = managed_bots_q(user)
    theirs = bots.filter(visibility=Visibility.PUBLIC).exclude(mine)
    found = [*bots.filter(mine), *theirs[:others]]
    systems: dict[int, set[str]] = {}
    ratings = Rating.objects.filter(bot__in=[bot.pk for bot in found])
    for bot_id, system in ratings.values_list("bot_id", "ladder__rules").distinct():
        systems.setdefault(bot_id, set()).add(system)
    return [
        EntryCandidate(
            bot=bot,
            rule_systems=frozenset(systems.get(bot.pk, ())),
            invited=league_entry_is_invitation(bot=bot, organiser=user),
        )
        for bot in found
    ]


# --------------------------------------------------------------------------- pages


#: What pages, the API and the bundle show of an entry's bot, owner and frozen version
#: (a big Swiss has 512: not their versions' reports, nor the owners' password hashes).
ENTRY_SHOWN = (
    *("league_id", "bot_id", "bot_version_id", "status", "seed", "reason"),
    *("last_round", "last_place", "created_at"),
    *("bot__name", "bot__owner_id", "bot__visibility", "bot__owner__username"),
    "bot__team_id",  # the access rule (bots.selectors.may_manage_bot) reads it
    "bot__team__name",  # a team's bot is credited to its team (bots.selectors.bot_credit)
    *("bot_version__bot_id", "bot_version__number", "bot_version__code_sha256"),
    "bot_version__status",
)


def league_entries(*, league: League) -> QuerySet[LeagueEntry]:
    return (
        league.entries.select_related("bot__owner", "bot__team", "bot_version")
        .only(*ENTRY_SHOWN)
        .order_by("seed")
    )


def league_entry_get(*, league: League, bot_id: int) -> LeagueEntry | None:
    return league.entries.select_related("bot", "league").filter(bot_id=bot_id).first()


def league_rounds(*, league: League) -> QuerySet[LeagueRound]:
    return league.rounds.order_by("number")


def seats_with_results(seats: QuerySet[LeagueGameSeat]) -> QuerySet[LeagueGameSeat]:
    """Seats with their results, read where they are kept: ``result_money``,
    ``result_rank``, ``result_forfeit``.

    A played game's results stay in its finished match (never copied); a
    walkover stores its own on the seat.
    """
    played = Participant.objects.filter(
        match_id=OuterRef("game__match_id"),
        seat=OuterRef("seat"),
        match__status=MatchStatus.FINISHED,
    )
    return seats.annotate(
        result_money=Coalesce("money", Subquery(played.values("money")[:1])),
        result_rank=Coalesce("rank", Subquery(played.values("rank")[:1])),
        result_forfeit=Case(
            When(game__match__isnull=True, then=F("forfeit")),
            default=Exists(played.exclude(forfeit="")),
            output_field=BooleanField(),
        ),
    )


def league_fixtures(*, league: League, round_number: int | None = None) -> QuerySet[LeagueFixture]:
    """Tables with their games, seats and matches, in calendar order."""
    fixtures = LeagueFixture.objects.filter(round__league=league).select_related("round")
    if round_number is not None:
        fixtures = fixtures.filter(round__number=round_number)
    seats = seats_with_results(
        LeagueGameSeat.objects.select_related("entry__bot__owner", "entry__bot__team").only(
            *("game_id", "seat", "entry_id", "money", "rank", "forfeit"),
            *("entry__bot_id", "entry__bot__name", "entry__bot__workbench"),
            *("entry__bot__owner_id", "entry__bot__owner__username", "entry__bot__team_id"),
            "entry__bot__team__name",
        )
    ).order_by("seat")
    games = (
        LeagueGame.objects.select_related("match")
        .only(*("fixture_id", "number", "deal", "seed", "status", "match_id", "match__status"))
        .prefetch_related(Prefetch("seats", queryset=seats))
        .order_by("number")
    )
    return fixtures.prefetch_related(Prefetch("games", queryset=games)).order_by(
        "round__number", "table"
    )


def league_standings(*, league: League) -> QuerySet[LeagueStanding]:
    shown = [field.name for field in LeagueStanding._meta.concrete_fields]
    return (
        league.standings.select_related(
            "entry__bot__owner", "entry__bot__team", "entry__bot_version"
        )
        .only(*shown, *(f"entry__{field}" for field in ENTRY_SHOWN))
        .order_by("position")
    )


# --------------------------------------------------------------------------- scoring


def league_units(*, league: League, round_number: int | None = None) -> list[scoring.Unit]:
    """The league's scored units in playing order: each game, or each complete duplicate deal.

    A deal counts once all its games ended and none was void (a void game
    would leave the rotation unbalanced); walkovers count but are not played.
    """
    rows = LeagueGameSeat.objects.filter(game__fixture__round__league=league)
    if round_number is not None:
        rows = rows.filter(game__fixture__round__number=round_number)
    # Played games' results stay in their matches: read in one query and joined here,
    # cheaper than seats_with_results' subqueries over a league of 100,000 games.
    seated = Participant.objects.filter(
        match__league_game__fixture__round__league=league, match__status=MatchStatus.FINISHED
    )
    if round_number is not None:
        seated = seated.filter(match__league_game__fixture__round__number=round_number)
    results = {
        (match, seat): (money, rank, bool(forfeit))
        for match, seat, money, rank, forfeit in seated.values_list(
            "match_id", "seat", "money", "rank", "forfeit"
        )
    }
    values = rows.values_list(
        "game__fixture_id",
        "game__deal",
        "game_id",
        "game__status",
        "entry_id",
        "game__match_id",
        "seat",
        "money",
        "rank",
        "forfeit",
    ).order_by("game_id", "seat")  # games are stored round by round, table by table
    units = []
    for (fixture, _), deal_rows in itertools.groupby(values, key=lambda r: (r[0], r[1])):
        games: dict[int, list[scoring.GameSeat]] = {}
        statuses: dict[int, str] = {}
        for _, _, game, status, entry, match, seat, money, rank, forfeit in deal_rows:
            # A walkover keeps its result on the seat; a played game, in its match.
            money, rank, forfeit = results.get((match, seat), (money, rank, forfeit))
            statuses[game] = status
            games.setdefault(game, []).append(
                scoring.GameSeat(entry, money or 0, rank or 0, forfeit)
            )
        scored = [g for g, status in statuses.items() if status in SCORED]
        if league.duplicate:
            if len(scored) == len(games):
                played = all(statuses[g] == GameStatus.FINISHED for g in scored)
                units.append(
                    scoring.deal_unit(
                        fixture, [games[g] for g in scored], duplicate=True, played=played
                    )
                )
            continue
        for game in scored:
            played = statuses[game] == GameStatus.FINISHED
            units.append(scoring.deal_unit(fixture, [games[game]], duplicate=False, played=played))
    return units


# --------------------------------------------------------------------------- bundle


class _Sink:
    """A write-only file for ZipFile: it keeps what was written until taken."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.position = 0

    def write(self, data: bytes) -> int:
        self.buffer += data
        self.position += len(data)
        return len(data)

    def tell(self) -> int:
        return self.position

    def flush(self) -> None:
        pass

    def take(self) -> bytes:
        data = bytes(self.buffer)
        self.buffer.clear()
        return data


def _json(data: Any) -> bytes:
    return json.dumps(data, indent=1, ensure_ascii=False, default=str).encode()


def league_summary(*, league: League) -> dict[str, Any]:
    """The league, its entrants (with the exact versions), rounds and table, as JSON."""
    return {
        "league": {
            "slug": league.slug,
            "name": league.name,
            "ladder": league.ladder.slug,
            "rules": league.ladder.rules,
            "seats": league.ladder.seats,
            "options": league.ladder.options,
            "format": league.format,
            "status": league.status,
            "duplicate": league.duplicate,
            "rated": league.rated,
            "games_per_table": league.games_per_table,
            "points_per_rank": league.points_per_rank,
            "advance": league.advance,
            "start_at": league.start_at,
            "round_interval_seconds": league.round_interval.total_seconds(),
            "started_at": league.started_at,
            "finished_at": league.finished_at,
            "winner": league.winner.bot.name if league.winner else None,
            "winner_owner": league.winner.bot.owner.username if league.winner else None,
            "winner_team": team_name(league.winner.bot) if league.winner else None,
            "note": league.note,
        },
        "entries": [
            {
                "seed": e.seed,
                "bot": e.bot.name,
                "owner": e.bot.owner.username,
                "team": team_name(e.bot),
                "status": e.status,
                "version": e.bot_version.number if e.bot_version else None,
                "code_sha256": e.bot_version.code_sha256 if e.bot_version else None,
                "reason": e.reason,
            }
            for e in league_entries(league=league)
        ],
        "standings": [
            {
                "position": s.position,
                "bot": s.entry.bot.name,
                "owner": s.entry.bot.owner.username,
                "team": team_name(s.entry.bot),
                "points": s.points,
                "money": s.money,
                "games": s.games,
                "wins": s.wins,
                "forfeits": s.forfeits,
                "byes": s.byes,
                "rating": round(s.rating, 1),
            }
            for s in league_standings(league=league)
        ],
    }


def _fixture_json(fixture: LeagueFixture, *, sealed_seeds: set[int]) -> dict[str, Any]:
    return {
        "round": fixture.round.number,
        "table": fixture.table,
        "games": [
            {
                "number": game.number,
                "deal": game.deal,
                "status": game.status,
                "match": game.match_id,
                # The seed fixes the dice: shown once no game it deals is still to play.
                "seed": (
                    game.seed
                    if game.status == GameStatus.FINISHED and game.seed not in sealed_seeds
                    else None
                ),
                "seats": [
                    {
                        "seat": seat.seat,
                        "bot": seat.entry.bot.name,
                        "owner": seat.entry.bot.owner.username,
                        "team": team_name(seat.entry.bot),
                        "money": seat.result_money,  # type: ignore[attr-defined]
                        "rank": seat.result_rank,  # type: ignore[attr-defined]
                        "forfeit": seat.result_forfeit,  # type: ignore[attr-defined]
                    }
                    for seat in game.seats.all()
                ],
            }
            for game in fixture.games.all()
        ],
    }


def league_bundle(*, league: League, user: User | AnonymousUser) -> Iterator[bytes]:
    """A zip of the league (league.json, fixtures.json) and every game log, streamed.

    Written piece by piece to a write-only sink, so the archive is never
    whole in memory (zip data descriptors need no seeking); one log is read
    at a time. What is private to other players' seats (stderr, notes, traces, bot
    seeds) is left out as in the matches API.
    """
    sink = _Sink()
    with zipfile.ZipFile(sink, mode="w", compression=zipfile.ZIP_DEFLATED) as archive:  # type: ignore[call-overload]  # a write-only sink is all it needs
        archive.writestr("league.json", _json(league_summary(league=league)))
        yield sink.take()
        tables = list(league_fixtures(league=league))
        sealed = seeds_in_play({game.seed for table in tables for game in table.games.all()})
        fixtures = [_fixture_json(table, sealed_seeds=sealed) for table in tables]
        archive.writestr("fixtures.json", _json(fixtures))
        yield sink.take()
        seats = Participant.objects.select_related(
            "bot_version__bot__owner", "bot_version__bot__team"
        ).order_by("seat")
        matches = (
            Match.objects.filter(league_game__fixture__round__league=league)
            .exclude(log="")
            .annotate(seed_in_play=seed_in_play(OuterRef("seed")))
            .select_related("league_game__fixture__round")
            .prefetch_related(Prefetch("participants", queryset=seats))
            .order_by("id")
        )
        for match in matches.iterator(chunk_size=BUNDLE_CHUNK):
            game_log = match_log_read(match=match, user=user)
            if game_log is None:
                continue
            game = match.league_game
            name = (
                f"logs/round-{game.fixture.round.number:03d}/table-{game.fixture.table:04d}/"
                f"game-{game.number:02d}-match-{match.pk}.json"
            )
            with archive.open(name, "w") as member:
                member.write(_json(game_log))
            yield sink.take()
    yield sink.take()


# --------------------------------------------------------------------------- web pages


def league_round_tables(*, league: League) -> list[tuple[int, int]]:
    """(round number, tables) of each round with fixtures, in calendar order."""
    return list(
        LeagueFixture.objects.filter(round__league=league)
        .values_list("round__number")
        .annotate(tables=Count("pk"))
        .values_list("round__number", "tables")
        .order_by("round__number")
    )


def league_page_fixtures(*, league: League) -> QuerySet[LeagueFixture]:
    """The league page's tables: as :func:`league_fixtures`, with each seat's frozen version.

    Slice it: a big Swiss holds thousands of tables (the page shows them a page at a time).
    """
    seats = seats_with_results(
        LeagueGameSeat.objects.select_related(
            "entry__bot__owner", "entry__bot__team", "entry__bot_version"
        ).only(
            *("game_id", "seat", "entry_id", "money", "rank", "forfeit"),
            *("entry__bot_id", "entry__bot_version_id", "entry__bot__name"),
            *("entry__bot__workbench", "entry__bot__owner_id", "entry__bot__owner__username"),
            *("entry__bot__team_id", "entry__bot_version__bot_id", "entry__bot_version__number"),
            "entry__bot__team__name",
        )
    ).order_by("seat")
    # Games link to their matches by id: the page needs no match row.
    games = LeagueGame.objects.prefetch_related(Prefetch("seats", queryset=seats)).order_by(
        "number"
    )
    return (
        LeagueFixture.objects.filter(round__league=league)
        .select_related("round")
        .prefetch_related(Prefetch("games", queryset=games))
        .order_by("round__number", "table")
    )
