"""factory_boy factories of the platform's models."""

from __future__ import annotations

import hashlib
from typing import Any

import factory
from django.utils import timezone

from arena.bots.models import Bot, BotVersion, CodeFormat, VersionStatus
from arena.ladders.elo import seat_weight
from arena.ladders.models import Entry, Ladder, Rating
from arena.matches.models import Match, MatchStatus, Participant
from arena.players.models import Profile, User
from bots_sdk.rating import PRIOR_INFORMATION, deviation_of


class ProfileFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Profile

    user = factory.SubFactory("tests.platform.factories.UserFactory", profile=None)
    display_name = factory.LazyAttribute(lambda o: o.user.username.title())


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"player{n}")
    email = factory.LazyAttribute(lambda o: f"{o.username}@example.org")
    # Verified by default (notifications e-mail only verified addresses); a test of an
    # unverified one passes verified_email="" (or email_verified_at=None).
    verified_email = factory.LazyAttribute(lambda o: o.email)
    email_verified_at = factory.LazyFunction(timezone.now)
    password = factory.django.Password("correct horse battery staple")
    profile = factory.RelatedFactory(ProfileFactory, factory_related_name="user")


class BotFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Bot

    owner = factory.SubFactory(UserFactory)
    name = factory.Sequence(lambda n: f"bot{n}")


def _fake_sha(n: int) -> str:
    return hashlib.sha256(f"code {n}".encode()).hexdigest()


class BotVersionFactory(factory.django.DjangoModelFactory):
    """A version row; no file is written (rating and match tests never read code)."""

    class Meta:
        model = BotVersion

    bot = factory.SubFactory(BotFactory)
    number = 1
    code_sha256 = factory.Sequence(_fake_sha)
    code = factory.LazyAttribute(lambda o: f"bots/code/{o.code_sha256[:2]}/{o.code_sha256}.py")
    code_size = 100
    code_format = CodeFormat.FILE
    status = VersionStatus.ACTIVE


class LadderFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Ladder
        django_get_or_create = ("slug",)

    slug = factory.Sequence(lambda n: f"ladder-{n}")
    name = factory.LazyAttribute(lambda o: o.slug.replace("-", " ").title())
    rules = "classic"
    seats = 2
    options = factory.LazyAttribute(lambda o: {"neutral_dice": False, "chips": False})


def equals_deviation(games: int, seats: int) -> float:
    """The deviation of a rating after ``games`` against equal ratings (p = 1/2), as the
    rating pass leaves it: 30 games of 2 seats are provisional still (± 61), of 4 settled."""
    return deviation_of(PRIOR_INFORMATION + games * seat_weight(seats) / 4)


class RatingFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Rating
        skip_postgeneration_save = True

    ladder = factory.SubFactory(LadderFactory)
    bot_version = factory.SubFactory(BotVersionFactory)
    bot = factory.LazyAttribute(lambda o: o.bot_version.bot)
    rated_matches = 0
    deviation = factory.LazyAttribute(lambda o: equals_deviation(o.rated_matches, o.ladder.seats))
    # A bot rated on a ladder entered it (its leaderboard lists the entrants).
    entry = factory.RelatedFactory(
        "tests.platform.factories.EntryFactory",
        ladder=factory.SelfAttribute("..ladder"),
        bot=factory.SelfAttribute("..bot"),
    )


class EntryFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Entry
        django_get_or_create = ("bot", "ladder")

    ladder = factory.SubFactory(LadderFactory)
    bot = factory.SubFactory(BotFactory)


class MatchFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Match

    ladder = factory.SubFactory(LadderFactory)
    # The ladder's game, as match_create copies it.
    rules = factory.LazyAttribute(lambda o: o.ladder.rules)
    seats = factory.LazyAttribute(lambda o: o.ladder.seats)
    options = factory.LazyAttribute(lambda o: o.ladder.options)
    time_per_decision_ms = factory.LazyAttribute(lambda o: o.ladder.time_per_decision_ms)
    time_bank_ms = factory.LazyAttribute(lambda o: o.ladder.time_bank_ms)
    memory_mb = factory.LazyAttribute(lambda o: o.ladder.memory_mb)
    seed = factory.Sequence(lambda n: n)


class ParticipantFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Participant

    match = factory.SubFactory(MatchFactory)
    seat = 0
    bot_version = factory.SubFactory(BotVersionFactory)


def finished_match(
    ladder: Ladder, versions: list[BotVersion], ranks: list[int], **fields: Any
) -> Match:
    """A finished, unrated match with ``versions`` at seats 0.. ranked ``ranks``."""
    now = timezone.now()
    values: dict[str, Any] = {
        "status": MatchStatus.FINISHED,
        "attempts": 1,
        "started_at": now,
        "finished_at": now,
        **fields,
    }
    match = MatchFactory(ladder=ladder, **values)
    for version in versions:  # they play there, so they entered
        EntryFactory(ladder=ladder, bot=version.bot)
    for seat, (version, rank) in enumerate(zip(versions, ranks, strict=True)):
        ParticipantFactory(match=match, seat=seat, bot_version=version, rank=rank, money=0)
    return match
