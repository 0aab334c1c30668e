"""Writes on challenges: unrated matches an owner asks for, on any ladder's game.

An owner picks their bot (public or private), a ladder, and opponents: bots
they may see, or random ones drawn from the ladder's players. Every bot must
have passed the ladder's pre-flight. The matches are unrated (never on the
Elo), played by the workers like any other; the requester sees each result
and log. A player asks for at most ARENA_CHALLENGE_GAMES_PER_HOUR games an hour.

An owner may also set one version of their bot against another, typically
its parent (:func:`version_challenge_create`): each plays as it is, retired
or not, so the version verdict (``ladders.verdicts``) gets direct results.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Sum
from django.utils import timezone

from arena.bots.models import Bot, BotVersion, VersionStatus, Visibility
from arena.bots.selectors import may_manage_bot
from arena.errors import ArenaError
from arena.matches.services import (
    PLAYABLE_FROZEN,
    Play,
    match_create,
    match_create_deal,
    match_create_plays,
    match_create_series,
)
from arena.players.models import Team, User

from ..models import Challenge, Ladder, QualificationStatus
from ..selectors import matchmaking_candidates


class ChallengeError(ArenaError):
    """A challenge that cannot be played as asked."""

    code = "challenge_invalid"


class ChallengeQuotaError(ArenaError):
    """Too many challenge games asked for in the last hour."""

    code = "challenge_quota"


def _qualified_version(bot: Bot, ladder: Ladder) -> BotVersion | None:
    """The bot's playing version, if it passed the ladder's pre-flight."""
    return BotVersion.objects.filter(
        bot=bot,
        status=VersionStatus.ACTIVE,
        qualifications__ladder=ladder,
        qualifications__status=QualificationStatus.PASSED,
    ).first()


def _playing(bot: Bot, ladder: Ladder) -> BotVersion:
    version = _qualified_version(bot, ladder)
    if version is None:
        raise ChallengeError(
            f"{bot.name} has no version that passed the pre-flight of {ladder.slug}: enter it "
            f"on {ladder.slug} (its playing version then plays the pre-flight game) and try "
            "again once it passed."
        )
    return version


def _random_players(ladder: Ladder, *, taken: set[int]) -> list[BotVersion]:
    """The ladder's players that may fill a challenge's random seats: those the scheduler
    may seat there (``matchmaking_candidates``), but of the bots ``taken`` (ids)."""
    pool = [candidate.version_id for candidate in matchmaking_candidates(ladder=ladder)]
    return [
        v for v in BotVersion.objects.filter(pk__in=pool).order_by("pk") if v.bot_id not in taken
    ]


def _lock_quota(user: User, bot: Bot) -> None:
    if bot.team_id is not None:
        Team.objects.select_for_update().get(pk=bot.team_id)
    else:
        User.objects.select_for_update().get(pk=user.pk)


def _check_quota(user: User, games: int, bot: Bot) -> None:
    """The hourly quota of challenge games: a team's bots share the team's (whichever
    member asked), other bots count against the player who asks."""
    limit = settings.ARENA_CHALLENGE_GAMES_PER_HOUR
    since = timezone.now() - timedelta(hours=1)
    recent = Challenge.objects.filter(created_at__gte=since)
    if bot.team_id is not None:
        recent = recent.filter(bot_version__bot__team_id=bot.team_id)
    else:
        recent = recent.filter(requested_by=user, bot_version__bot__team__isnull=True)
    asked = recent.aggregate(n=Sum("games"))["n"] or 0
    if asked + games > limit:
        oldest = recent.order_by("created_at").values_list("created_at", flat=True).first()
        wait = (
            ""
            if oldest is None
            else (f" Try again after {(oldest + timedelta(hours=1)):%H:%M} UTC.")
        )
        raise ChallengeQuotaError(
            f"{'your team' if bot.team_id else 'you'} asked for {asked} challenge games in "
            f"the last hour and the limit is {limit}: "
            f"{games} more would pass it.{wait}"
        )


def challenge_create(
    *,
    user: User,
    bot: Bot,
    ladder: Ladder,
    opponents: Sequence[Bot] = (),
    games: int = 1,
    rng: random.Random | None = None,
) -> Challenge:
    """Queue ``games`` unrated matches of ``bot`` on ``ladder``'s game.

    ``opponents`` (bots ``user`` may see) take seats first; random players of
    the ladder fill the rest, drawn anew for each game. The challenger's seat
    rotates with the games. With every opponent chosen the games have the
    same bots: one series (one worker run, one process per bot); with random
    seats, a match per game.
    """
    rng = rng or random.Random()
    if not may_manage_bot(user, bot):
        raise ChallengeError(f"{bot.name} is not your bot: challenge with one of your own.")
    if not ladder.is_open:
        raise ChallengeError(f"{ladder.slug} is closed: choose an open ladder's game.")
    if not 1 <= games <= settings.ARENA_CHALLENGE_MAX_GAMES:
        raise ChallengeError(
            f"ask for 1 to {settings.ARENA_CHALLENGE_MAX_GAMES} games, not {games}."
        )
    chosen = list(dict.fromkeys(opponents))
    if bot in chosen:
        raise ChallengeError(f"{bot.name} cannot be its own chosen opponent.")
    if len(chosen) > ladder.seats - 1:
        raise ChallengeError(
            f"{ladder.slug} seats {ladder.seats}: choose at most {ladder.seats - 1} opponents."
        )
    for opponent in chosen:
        if opponent.visibility == Visibility.PRIVATE and not may_manage_bot(user, opponent):
            raise ChallengeError(f"no bot {opponent.pk}: choose among the bots you can see.")
    challenger = _playing(bot, ladder)
    chosen_versions = [_playing(opponent, ladder) for opponent in chosen]
    pool_versions = _random_players(ladder, taken={bot.pk, *(opponent.pk for opponent in chosen)})
    missing = ladder.seats - 1 - len(chosen_versions)
    if len(pool_versions) < missing:
        raise ChallengeError(
            f"{ladder.slug} has {len(pool_versions)} other players for {missing} random seats: "
            "choose opponents yourself."
        )
    with transaction.atomic():
        _lock_quota(user, bot)  # one quota check at a time
        _check_quota(user, games, bot)
        challenge = Challenge.objects.create(
            requested_by=user, ladder=ladder, bot_version=challenger, games=games
        )
        challenge.chosen.set(chosen)
        seatings = []
        for game in range(games):
            others = chosen_versions + rng.sample(pool_versions, missing)
            rng.shuffle(others)
            seat = game % ladder.seats
            seatings.append([*others[:seat], challenger, *others[seat:]])
        if missing:
            # Random seats are drawn anew per game: different bots, a match each.
            matches = [
                match_create(ladder_id=ladder.pk, game=ladder.game, versions=seating, rated=False)
                for seating in seatings
            ]
        else:
            # The same bots every game: one series, one process per bot.
            matches = match_create_plays(
                ladder_id=ladder.pk,
                game=ladder.game,
                plays=[Play(seating) for seating in seatings],
                rated=False,
            )
        challenge.matches.add(*matches)
    return challenge


def _may_meet(version: BotVersion, ladder: Ladder) -> None:
    """Refuse a version that cannot sit at ``ladder``'s table as itself."""
    if version.status not in PLAYABLE_FROZEN:
        raise ChallengeError(
            f"{version} is {version.status}: only versions that passed validation (active, "
            "or retired by a newer upload) play."
        )
    passed = version.qualifications.filter(ladder=ladder, status=QualificationStatus.PASSED)
    if not passed.exists():
        raise ChallengeError(
            f"{version} never passed the pre-flight of {ladder.slug}, so it cannot play its "
            f"game: choose a ladder where it played, or enter the bot on {ladder.slug} while "
            "that version plays."
        )


def _predecessor(version: BotVersion, ladder: Ladder) -> BotVersion:
    """The version's nearest ancestor that passed ``ladder``'s pre-flight (the one its
    verdict there compares it with, unless that one was only rated there)."""
    if version.parent_id is None:
        raise ChallengeError(
            f"{version} has no parent version to meet: it was its bot's first upload."
        )
    ancestor = version.parent
    while ancestor is not None:
        if ancestor.qualifications.filter(
            ladder=ladder, status=QualificationStatus.PASSED
        ).exists():
            return ancestor
        ancestor = ancestor.parent
    raise ChallengeError(
        f"no version of {version.bot.name} before v{version.number} passed the pre-flight of "
        f"{ladder.slug}, so none can play its game: choose a ladder where one played."
    )


def version_challenge_create(
    *,
    user: User,
    version: BotVersion,
    ladder: Ladder,
    opponent: BotVersion | None = None,
    games: int | None = None,
    rng: random.Random | None = None,
) -> Challenge:
    """Queue ``games`` unrated matches of ``version`` against ``opponent`` (default: its
    nearest ancestor that passed the ladder's pre-flight, usually its parent), both
    versions of ``user``'s bots, as ``ladder`` plays its games.

    Each version plays as it is, even if it is no longer its bot's playing
    version (retired by a newer upload), provided it passed the ladder's
    pre-flight (so its code was built and played that game). A duplicate
    ladder plays whole duplicate deals (``games`` a multiple of its seats);
    other seats go to random players of the ladder, drawn anew per deal (or
    game). With no other seat, the games are one series. ``games`` defaults
    to a ladder's pick (its series), within the per-challenge maximum. The
    same hourly quota as every challenge.
    """
    rng = rng or random.Random()
    bot = version.bot
    if not may_manage_bot(user, bot):
        raise ChallengeError(f"{bot.name} is not your bot: challenge with one of your own.")
    if opponent is None:
        opponent = _predecessor(version, ladder)
    if not may_manage_bot(user, opponent.bot):
        raise ChallengeError(f"{opponent} is not your bot's version: meet one of your own.")
    if opponent.pk == version.pk:
        raise ChallengeError(f"{version} cannot meet itself: choose another version.")
    if not ladder.is_open:
        raise ChallengeError(f"{ladder.slug} is closed: choose an open ladder's game.")
    most = settings.ARENA_CHALLENGE_MAX_GAMES
    deal_games = ladder.seats if ladder.duplicate_deals else 1
    if games is None:
        games = max(deal_games, min(ladder.pick_games, most - most % deal_games))
    if not 1 <= games <= most:
        raise ChallengeError(f"ask for 1 to {most} games, not {games}.")
    if games % deal_games:
        raise ChallengeError(
            f"{ladder.slug} plays duplicate deals of {deal_games} games (one per seat "
            f"rotation): ask for a multiple of {deal_games}, not {games}."
        )
    _may_meet(version, ladder)
    _may_meet(opponent, ladder)
    missing = ladder.seats - 2
    pool = _random_players(ladder, taken={version.bot_id, opponent.bot_id}) if missing else []
    if len(pool) < missing:
        raise ChallengeError(
            f"{ladder.slug} has {len(pool)} other players for its {missing} other seats: "
            "try again once more bots play there."
        )
    pair = [version, opponent]
    with transaction.atomic():
        _lock_quota(user, bot)  # one quota check at a time
        _check_quota(user, games, bot)
        challenge = Challenge.objects.create(
            requested_by=user, ladder=ladder, bot_version=version, games=games
        )
        challenge.opponent_versions.set([opponent])
        units = games // deal_games
        if not missing:
            # The same two bots every game: one series, seats rotating as the ladder's.
            matches = match_create_series(
                ladder_id=ladder.pk,
                game=ladder.game,
                versions=pair,
                units=units,
                duplicate_deals=ladder.duplicate_deals,
                rated=False,
                allow_retired=True,
            )
        else:
            matches = []
            for _ in range(units):
                seating = [*pair, *rng.sample(pool, missing)]
                rng.shuffle(seating)
                if ladder.duplicate_deals:
                    matches += match_create_deal(
                        ladder_id=ladder.pk,
                        game=ladder.game,
                        versions=seating,
                        rated=False,
                        allow_retired=True,
                    )
                else:
                    matches.append(
                        match_create(
                            ladder_id=ladder.pk,
                            game=ladder.game,
                            versions=seating,
                            rated=False,
                            allow_retired=True,
                        )
                    )
        challenge.matches.add(*matches)
    return challenge
