"""Creating matches: a match, a duplicate deal, a series; the run message that plays each
(:func:`runs_to_publish`) is the caller's to publish."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Case, Value, When

import vegas_engine
from arena.bots.models import BotVersion, VersionStatus
from arena.errors import ArenaError
from bots_sdk import referee

from ..games import MatchGame
from ..models import (
    Match,
    Participant,
)

log = logging.getLogger(__name__)

MAX_SEED = 2**63 - 1
#: Who plays a match: active versions; with ``allow_retired`` (a league's versions,
#: frozen while active, so validated) also those a newer upload has retired since.
PLAYABLE = frozenset({VersionStatus.ACTIVE})
PLAYABLE_FROZEN = frozenset({VersionStatus.ACTIVE, VersionStatus.RETIRED})


class MatchSetupError(ArenaError):
    code = "match_setup"


def _checked_seed(
    game: MatchGame, versions: Sequence[BotVersion], seed: int | None, allow_retired: bool
) -> int:
    """Check that ``versions`` may play a match of ``game``; returns the seed (drawn if None)."""
    if len(versions) != game.seats:
        raise MatchSetupError(f"this game plays {game.seats} seats, got {len(versions)} bots.")
    playable = PLAYABLE_FROZEN if allow_retired else PLAYABLE
    unplayable = [f"{v} ({v.status})" for v in versions if v.status not in playable]
    if unplayable:
        allowed = " or ".join(sorted(playable))
        raise MatchSetupError(
            f"only {allowed} versions play; cannot play: {', '.join(unplayable)}."
        )
    if seed is None:
        seed = secrets.randbelow(MAX_SEED + 1)
    try:
        vegas_engine.describe(game.rules, game.seats, game.options)
        vegas_engine.check_seed(seed)
    except vegas_engine.InvalidDescriptionError as error:
        raise MatchSetupError(f"the engine cannot play this match: {error}") from None
    return seed


def _insert(
    *,
    ladder_id: int,
    game: MatchGame,
    versions: Sequence[BotVersion],
    seed: int,
    rated: bool,
    deal: Match | None = None,
    deal_game: int | None = None,
) -> Match:
    """The match row and its seats, queued (its run's message is the caller's to publish)."""
    match = Match.objects.create(
        ladder_id=ladder_id,
        **game.fields(),
        seed=seed,
        rated=rated,
        deal=deal,
        deal_game=deal_game,
    )
    Participant.objects.bulk_create(
        Participant(match=match, seat=seat, bot_version=version)
        for seat, version in enumerate(versions)
    )
    return match


def match_create(
    *,
    ladder_id: int,
    game: MatchGame,
    versions: Sequence[BotVersion],
    seed: int | None = None,
    rated: bool = True,
    allow_retired: bool = False,
) -> Match:
    """A queued match of ``game``, counted on ladder ``ladder_id``, ``versions`` at seats 0...

    Its caller publishes its run (:func:`runs_to_publish`).

    ``allow_retired``: a league plays the versions it froze (active then, so
    validated) even after their authors upload newer ones, which retires them.
    Only for such versions: a version retired while pending was never validated.
    """
    seed = _checked_seed(game, versions, seed, allow_retired)
    with transaction.atomic():
        return _insert(ladder_id=ladder_id, game=game, versions=versions, seed=seed, rated=rated)


def match_create_deal(
    *,
    ladder_id: int,
    game: MatchGame,
    versions: Sequence[BotVersion],
    seed: int | None = None,
    rated: bool = True,
    allow_retired: bool = False,
) -> list[Match]:
    """A duplicate deal: one queued match per seat rotation, all with one seed.

    Game k (from 1) seats ``versions[i]`` at seat (i + k - 1) mod seats
    (``bots_sdk.referee.rotations``), so every version plays the deal's dice
    from every seat once. The games are created together (never half a deal);
    each points at the first (``deal``) with its number (``deal_game``).
    ``allow_retired`` as for :func:`match_create`.
    """
    seed = _checked_seed(game, versions, seed, allow_retired)
    with transaction.atomic():
        return _insert_deal(
            ladder_id=ladder_id, game=game, versions=versions, seed=seed, rated=rated
        )


def _insert_deal(
    *,
    ladder_id: int,
    game: MatchGame,
    versions: Sequence[BotVersion],
    seed: int,
    rated: bool,
) -> list[Match]:
    """The games of one deal (see :func:`match_create_deal`), in the caller's transaction."""
    seatings = list(referee.rotations(len(versions), len(versions)))
    games: list[Match] = []
    for number, seating in enumerate(seatings, start=1):
        games.append(
            _insert(
                ladder_id=ladder_id,
                game=game,
                versions=[versions[i] for i in seating],
                seed=seed,
                rated=rated,
                deal=games[0] if games else None,
                deal_game=number if games else None,
            )
        )
        if number == 1:
            # Game 1 refers to itself, which only its own id allows: set after the insert.
            first = games[0]
            Match.objects.filter(pk=first.pk).update(deal=first, deal_game=1)
            first.deal, first.deal_game = first, 1
    return games


@dataclass(frozen=True)
class Play:
    """One game of a series: its versions in seat order and its seed (None: drawn)."""

    versions: Sequence[BotVersion]
    seed: int | None = None


def match_create_plays(
    *,
    ladder_id: int,
    game: MatchGame,
    plays: Sequence[Play],
    rated: bool = True,
    allow_retired: bool = False,
) -> list[Match]:
    """``plays`` of the same bots as one series, played in the given order by one worker run.

    Each play is a match of its own (seats, seed, log, forfeits, rating); the
    series is played at one table, one process per bot (``play.MatchTable``),
    so a bot starts once instead of once per game. Every play seats the same
    versions (in any order: a table's players are fixed); games sharing a
    seed are safe in any order, as the referee gives a bot a fresh process
    for a seed its process has played. One run message for the whole series
    (its first match); created together, never half a series. A single play
    is a plain match. ``allow_retired`` as for :func:`match_create`. Returns
    the matches in play order.
    """
    if not plays:
        raise MatchSetupError("a series has at least one game, got none.")
    players = sorted(v.pk for v in plays[0].versions)
    for play in plays[1:]:
        if sorted(v.pk for v in play.versions) != players:
            raise MatchSetupError(
                "the games of a series are played by the same bots: "
                f"{', '.join(map(str, plays[0].versions))} then "
                f"{', '.join(map(str, play.versions))}."
            )
    seeds = [_checked_seed(game, play.versions, play.seed, allow_retired) for play in plays]
    with transaction.atomic():
        games = [
            _insert(
                ladder_id=ladder_id,
                game=game,
                versions=play.versions,
                seed=seed,
                rated=rated,
            )
            for play, seed in zip(plays, seeds, strict=True)
        ]
        if len(games) > 1:
            _number_series(games)
    return games


def match_create_series(
    *,
    ladder_id: int,
    game: MatchGame,
    versions: Sequence[BotVersion],
    units: int,
    duplicate_deals: bool = False,
    rated: bool = True,
    allow_retired: bool = False,
) -> list[Match]:
    """A ladder's pick: ``units`` games (or duplicate deals) of ``versions`` as one series.

    Single games (:func:`match_create_plays`): game k seats ``versions``
    rotated by k - 1, each game its own seed; one game is a plain match.
    Deals (``duplicate_deals``) are played lane by lane: game 1 of every
    deal, then game 2 of every deal, and so on, so each lane's processes see
    every seed once (a fresh process per lane, not per game). Returns the
    matches in play order. ``allow_retired`` as for :func:`match_create`.
    """
    if units < 1:
        raise MatchSetupError(f"a series has at least one game, got {units}.")
    if not duplicate_deals:
        plays = [
            Play([versions[i] for i in seating])
            for seating in referee.rotations(len(versions), units)
        ]
        return match_create_plays(
            ladder_id=ladder_id, game=game, plays=plays, rated=rated, allow_retired=allow_retired
        )
    seeds = [_checked_seed(game, versions, None, allow_retired) for _ in range(units)]
    with transaction.atomic():
        deals = [
            _insert_deal(
                ladder_id=ladder_id,
                game=game,
                versions=versions,
                seed=seed,
                rated=rated,
            )
            for seed in seeds
        ]
        # Lane by lane: deal game 1 of each deal, then deal game 2, ...
        games = [deal[lane] for lane in range(len(versions)) for deal in deals]
        _number_series(games)
    return games


def _number_series(games: Sequence[Match]) -> None:
    """Make ``games`` (inserted together, the first with the smallest id) one series in
    this order, in the caller's transaction: the first game's message plays them all."""
    first = games[0]
    # One statement: game 1 refers to itself, which only its own id allows.
    numbers = {match.pk: number for number, match in enumerate(games, start=1)}
    Match.objects.filter(pk__in=numbers).update(
        series=first,
        series_game=Case(*(When(pk=pk, then=Value(n)) for pk, n in numbers.items())),
    )
    for match in games:
        match.series, match.series_game = first, numbers[match.pk]


def runs_to_publish(matches: Sequence[Match]) -> list[int]:
    """The ids whose run message plays ``matches`` (just created): a match outside a
    series, or the first game of a series (its message takes the others)."""
    return [m.pk for m in matches if m.series_id is None or m.series_id == m.pk]
