"""Writes on challenges: unrated matches an owner asks for, on any ladder's game.

An owner picks their bot (public or private), a ladder, and opponents: bots
they may see, or random ones drawn from the ladder's players. Every bot must
have passed the ladder's pre-flight. The matches are unrated (never on the
Elo), played by the workers like any other; the requester sees each result
and log. A player asks for at most ARENA_CHALLENGE_GAMES_PER_HOUR games an hour.
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
from arena.errors import ArenaError
from arena.matches.services import Play, match_create, match_create_plays
from arena.players.models import User

from .models import Challenge, Ladder, QualificationStatus
from .selectors import matchmaking_candidates


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


def _check_quota(user: User, games: int) -> None:
    limit = settings.ARENA_CHALLENGE_GAMES_PER_HOUR
    since = timezone.now() - timedelta(hours=1)
    recent = Challenge.objects.filter(requested_by=user, created_at__gte=since)
    asked = recent.aggregate(n=Sum("games"))["n"] or 0
    if asked + games > limit:
        oldest = recent.order_by("created_at").values_list("created_at", flat=True).first()
        wait = (
            ""
            if oldest is None
            else (f" Try again after {(oldest + timedelta(hours=1)):%H:%M} UTC.")
        )
        raise ChallengeQuotaError(
            f"you asked for {asked} challenge games in the last hour and the limit is {limit}: "
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
    if bot.owner_id != user.pk:
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
        if opponent.visibility == Visibility.PRIVATE and opponent.owner_id != user.pk:
            raise ChallengeError(f"no bot {opponent.pk}: choose among the bots you can see.")
    challenger = _playing(bot, ladder)
    chosen_versions = [_playing(opponent, ladder) for opponent in chosen]
    taken = {bot.pk, *(opponent.pk for opponent in chosen)}
    pool = [
        candidate.version_id
        for candidate in matchmaking_candidates(ladder=ladder)
        if candidate.version_id not in {challenger.pk, *(v.pk for v in chosen_versions)}
    ]
    pool_versions = [
        v for v in BotVersion.objects.filter(pk__in=pool).order_by("pk") if v.bot_id not in taken
    ]
    missing = ladder.seats - 1 - len(chosen_versions)
    if len(pool_versions) < missing:
        raise ChallengeError(
            f"{ladder.slug} has {len(pool_versions)} other players for {missing} random seats: "
            "choose opponents yourself."
        )
    with transaction.atomic():
        User.objects.select_for_update().get(pk=user.pk)  # one quota check at a time
        _check_quota(user, games)
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
