"""Competitions on the database, the clock driven through ``now``: announced, entry,
season, freeze, final event (a league played with the engine as a worker would),
archive; invitation-only entry; refusals; cancellation."""

from __future__ import annotations

import itertools
import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.core import mail
from django.test import Client

from arena.bots.models import Bot, BotVersion, VersionStatus
from arena.competitions.models import (
    Access,
    Competition,
    CompetitionEntry,
    CompetitionPlacing,
    EntryStatus,
    Phase,
)
from arena.competitions.selectors import bot_placings, enterable_bots, next_step
from arena.competitions.services import (
    CompetitionConfigError,
    CompetitionEntryError,
    CompetitionPermissionError,
    CompetitionPhaseError,
    LadderSettings,
    competition_advance,
    competition_cancel,
    competition_create,
    competition_enter,
    competition_invitation_renew,
    competition_withdraw,
    competitions_advance_due,
    frozen_version,
)
from arena.competitions.tasks import competitions_advance
from arena.ladders.models import Entry, Ladder, Qualification, QualificationStatus
from arena.ladders.services.entries import EntryError, entries_set, open_ladders
from arena.leagues.models import GameStatus, LeagueEntry, LeagueGame, LeagueStatus
from arena.leagues.selectors import league_ladders
from arena.leagues.services import LeagueConfigError, league_create, leagues_advance_due
from arena.players.models import Team, User
from arena.players.services import team_create, team_join
from tests.platform.api_support import client_for
from tests.platform.factories import BotVersionFactory, LadderFactory, RatingFactory, UserFactory
from tests.platform.leagues.test_leagues import play_game

pytestmark = pytest.mark.django_db

CREATED = datetime(2031, 5, 1, 9, 0, tzinfo=UTC)
OPENS = CREATED + timedelta(days=1)
CLOSES = OPENS + timedelta(days=7)
FREEZE = CLOSES + timedelta(days=2)
FINAL = FREEZE + timedelta(days=1)
HOUR = timedelta(hours=1)


def create(organiser: User, **options: Any) -> Competition:
    values: dict[str, Any] = {
        "slug": "spring-cup",
        "title": "Spring cup",
        "description": "Play **well**.",
        "ladders": [LadderSettings(rules="classic", seats=2)],
        "entry_opens_at": OPENS,
        "entry_closes_at": CLOSES,
        "freeze_at": FREEZE,
        "final_starts_at": FINAL,
        "round_interval": HOUR,
        "now": CREATED,
        **options,
    }
    return competition_create(organiser=organiser, **values)


def bot_of(owner: User, name: str) -> Bot:
    bot: Bot = BotVersionFactory(bot__owner=owner, bot__name=name).bot
    return bot


def sweep(competition: Competition, now: datetime) -> Competition:
    competitions_advance_due(now=now)
    competition.refresh_from_db()
    return competition


def play_final(competition: Competition, start: datetime) -> Competition:
    """Run the leagues' and competitions' sweeps hour by hour, playing each queued game."""
    now = start
    for _ in itertools.count():
        leagues_advance_due(now=now)
        for game in LeagueGame.objects.filter(
            fixture__round__league__competition_ladder__competition=competition,
            status=GameStatus.QUEUED,
        ).select_related("match__ladder"):
            play_game(game)
        leagues_advance_due(now=now)
        competition = sweep(competition, now)
        if competition.phase != Phase.FINAL:
            return competition
        now += HOUR
        assert now < start + timedelta(days=2), "the final event never ended"
    raise AssertionError("unreachable")


def test_a_public_competition_from_creation_to_its_archive(
    carol: User, alice: User, bob: User
) -> None:
    dave = UserFactory(username="dave")
    competition = create(carol)
    ladder = competition.ladders.get().ladder
    assert ladder.restricted and ladder.is_open
    assert ladder not in open_ladders()
    assert competition.phase == Phase.DRAFT
    assert next_step(competition=competition) is not None
    bots = {user.username: bot_of(user, f"{user.username}-bot") for user in (alice, bob, dave)}
    # Bob's bot is his team's: named with it, and archived with the team's name of the end.
    bobcats = team_create(user=bob, name="Bobcats")
    Bot.objects.filter(pk=bots["bob"].pk).update(team=bobcats)

    with pytest.raises(CompetitionEntryError, match="takes no entries now: entry opens"):
        competition_enter(competition=competition, bot=bots["alice"], by=alice, now=CREATED)

    competition = sweep(competition, OPENS)
    assert competition.phase == Phase.ENTRY
    for user in (alice, bob, dave):
        competition_enter(competition=competition, bot=bots[user.username], by=user, now=OPENS)
    # Entered on the competition's ladder, its pre-flight there pending.
    assert Entry.objects.filter(ladder=ladder).count() == 3
    assert Qualification.objects.filter(ladder=ladder).count() == 3
    with pytest.raises(CompetitionEntryError, match="already entered"):
        competition_enter(competition=competition, bot=bots["alice"], by=alice, now=OPENS)
    with pytest.raises(CompetitionEntryError, match="not your bot"):
        competition_enter(competition=competition, bot=bot_of(bob, "other"), by=alice, now=OPENS)
    # Leaving and coming back during the entry window.
    competition_withdraw(competition=competition, bot=bots["dave"], by=dave, now=OPENS)
    assert not Entry.objects.filter(ladder=ladder, bot=bots["dave"]).exists()
    competition_enter(competition=competition, bot=bots["dave"], by=dave, now=OPENS)

    competition = sweep(competition, CLOSES)
    assert competition.phase == Phase.SEASON
    late = bot_of(UserFactory(username="erin"), "late")
    with pytest.raises(CompetitionEntryError, match="entry closed"):
        competition_enter(competition=competition, bot=late, by=late.owner, now=CLOSES)

    # Alice uploads after the freeze: that version does not count.
    first = BotVersion.objects.get(bot=bots["alice"])
    first.status = VersionStatus.RETIRED
    first.save(update_fields=["status"])
    Qualification.objects.filter(bot_version=first).update(status=QualificationStatus.PASSED)
    after = BotVersionFactory(bot=bots["alice"], number=2)
    BotVersion.objects.filter(pk=after.pk).update(created_at=FREEZE + timedelta(minutes=5))

    competition = sweep(competition, FREEZE + timedelta(minutes=10))
    assert competition.phase == Phase.FROZEN
    place = competition.ladders.get()
    assert place.league is not None and place.league.status == LeagueStatus.SCHEDULED
    frozen = dict(
        CompetitionEntry.objects.filter(competition=competition).values_list(
            "bot_id", "frozen_version_id"
        )
    )
    assert frozen[bots["alice"].pk] == first.pk
    with pytest.raises(CompetitionEntryError, match="past its submission freeze"):
        competition_withdraw(competition=competition, bot=bots["bob"], by=bob, now=FREEZE)

    competition = sweep(competition, FINAL)
    assert competition.phase == Phase.FINAL
    competition = play_final(competition, FINAL)
    assert competition.phase == Phase.ARCHIVED
    league = competition.ladders.get().league
    assert league is not None and league.status == LeagueStatus.FINISHED
    # The league played the frozen version, not the one uploaded after the freeze.
    assert LeagueEntry.objects.get(league=league, bot=bots["alice"]).bot_version_id == first.pk
    placings = list(CompetitionPlacing.objects.filter(competition=competition).order_by("rank"))
    assert [p.rank for p in placings] == [1, 2, 3]
    assert {p.owner_username for p in placings} == {"alice", "bob", "dave"}
    assert next(p for p in placings if p.bot_name == "alice-bot").version_number == 1
    assert {(p.bot_name, p.team_name) for p in placings} == {
        ("alice-bot", None),
        ("bob-bot", "Bobcats"),
        ("dave-bot", None),
    }
    Team.objects.filter(pk=bobcats.pk).update(name="Lynxes")
    shown = client_for().get(f"/api/competitions/{competition.slug}/").json()
    assert {(p["bot"], p["owner"], p["team"]) for p in shown["placings"]} == {
        ("alice-bot", "alice", None),
        ("bob-bot", "bob", "Bobcats"),
        ("dave-bot", "dave", None),
    }
    # Its entrants are named as they are now.
    assert {(e["bot"], e["team"]) for e in shown["entries"]} == {
        ("alice-bot", None),
        ("bob-bot", "Lynxes"),
        ("dave-bot", None),
    }
    page = Client().get(f"/competitions/{competition.slug}/").content.decode()
    assert re.search(r"bob-bot</a></td>\s*<td[^>]*>Bobcats</td>", page)
    assert f'class="owner team" href="/teams/{bobcats.pk}/">Lynxes</a>' in page
    ladder.refresh_from_db()
    assert not ladder.is_open

    # Archived for good: renames and later sweeps leave the placings alone.
    before = [(p.rank, p.bot_name, p.points) for p in placings]
    Bot.objects.filter(pk=bots["alice"].pk).update(name="renamed")
    competition = sweep(competition, FINAL + timedelta(days=30))
    after_rows = CompetitionPlacing.objects.filter(competition=competition).order_by("rank")
    assert [(p.rank, p.bot_name, p.points) for p in after_rows] == before
    assert [p.competition_id for p in bot_placings(bot=bots["bob"])] == [competition.pk]
    with pytest.raises(CompetitionPhaseError, match="archived: it cannot become cancelled"):
        competition_cancel(competition=competition, by=carol, now=FINAL + timedelta(days=31))


def test_the_frozen_version_is_the_one_active_at_the_freeze(carol: User, alice: User) -> None:
    competition = create(carol)
    competition = sweep(competition, OPENS)
    bot = bot_of(alice, "versions")
    entry = competition_enter(competition=competition, bot=bot, by=alice, now=OPENS)
    first = BotVersion.objects.get(bot=bot)
    assert frozen_version(entry=entry, at=FREEZE) == first
    # v2 was withdrawn before it was validated, v3 uploaded after the freeze and active now.
    BotVersionFactory(bot=bot, number=2, status=VersionStatus.RETIRED)
    BotVersion.objects.filter(pk=first.pk).update(status=VersionStatus.RETIRED)
    third = BotVersionFactory(bot=bot, number=3)
    BotVersion.objects.filter(pk=third.pk).update(created_at=FREEZE + HOUR)
    # v1 never passed a pre-flight here (a factory's version): nothing counts.
    assert frozen_version(entry=entry, at=FREEZE) is None
    Qualification.objects.filter(bot_version=first).update(status=QualificationStatus.PASSED)
    assert frozen_version(entry=entry, at=FREEZE) == first
    assert frozen_version(entry=entry, at=FREEZE + 2 * HOUR) == third


def test_an_invitation_only_competition_needs_its_link(carol: User, alice: User) -> None:
    competition = create(carol, access=Access.INVITATION)
    bot = bot_of(alice, "class-bot")
    competition = sweep(competition, OPENS)
    with pytest.raises(CompetitionEntryError, match="by invitation only"):
        competition_enter(competition=competition, bot=bot, by=alice, now=OPENS)
    with pytest.raises(CompetitionEntryError, match="by invitation only"):
        competition_enter(competition=competition, bot=bot, by=alice, token="guess", now=OPENS)
    old = competition.invitation_token
    with pytest.raises(CompetitionPermissionError, match="organiser or staff"):
        competition_invitation_renew(competition=competition, by=alice)
    competition = competition_invitation_renew(competition=competition, by=carol)
    assert competition.invitation_token != old
    with pytest.raises(CompetitionEntryError, match="by invitation only"):
        competition_enter(competition=competition, bot=bot, by=alice, token=old, now=OPENS)
    entry = competition_enter(
        competition=competition, bot=bot, by=alice, token=competition.invitation_token, now=OPENS
    )
    assert entry.status == EntryStatus.ENTERED


def test_who_may_create_and_settings_refused(alice: User, carol: User, settings: Any) -> None:
    with pytest.raises(CompetitionPermissionError, match="only staff create competitions"):
        create(alice)
    settings.ARENA_COMPETITIONS_OPEN_TO_USERS = True
    # Open to players whose address is verified (alice's is): an unverified one is told how.
    dora = UserFactory(username="dora", verified_email="", email_verified_at=None)
    with pytest.raises(CompetitionPermissionError, match="verify your e-mail address first"):
        create(dora, slug="doras")
    assert create(alice, slug="alices").organiser == alice
    cases: list[tuple[str, dict[str, Any]]] = [
        ("already past", {"entry_closes_at": CREATED - HOUR, "entry_opens_at": CREATED - 2 * HOUR}),
        ("freeze must come at or after", {"freeze_at": CLOSES - HOUR}),
        ("must start after the submission freeze", {"final_starts_at": FREEZE}),
        ("needs `advance`", {"final_format": "knockout"}),
        ("unknown final format", {"final_format": "ladder"}),
        ("listed twice", {"ladders": [LadderSettings("classic", 2), LadderSettings("classic", 3)]}),
        ("page's address", {"slug": "new"}),
        ("already exists", {"slug": "alices"}),
        ("rule system nosuch", {"ladders": [LadderSettings("nosuch", 2)], "slug": "x"}),
    ]
    for message, options in cases:
        with pytest.raises(CompetitionConfigError, match=message):
            create(carol, **options)
    assert Competition.objects.count() == 1


def test_too_few_entrants_at_the_freeze_cancel_it(carol: User, alice: User) -> None:
    competition = create(carol)
    competition = sweep(competition, OPENS)
    competition_enter(competition=competition, bot=bot_of(alice, "lonely"), by=alice, now=OPENS)
    # A late sweep catches up through every phase due.
    competition = sweep(competition, FREEZE)
    assert competition.phase == Phase.CANCELLED
    assert "no final event could be formed" in competition.note
    assert "1 entrants cannot fill a table of 2 seats" in competition.note
    assert not competition.ladders.get().ladder.is_open


def test_the_organiser_cancels_a_final_in_play(carol: User, alice: User, bob: User) -> None:
    competition = create(carol)
    competition = sweep(competition, OPENS)
    for user in (alice, bob):
        competition_enter(competition=competition, bot=bot_of(user, "b"), by=user, now=OPENS)
    competition = sweep(competition, FINAL)
    assert competition.phase == Phase.FINAL
    leagues_advance_due(now=FINAL)
    with pytest.raises(CompetitionPermissionError):
        competition_cancel(competition=competition, by=alice, now=FINAL)
    competition = competition_cancel(competition=competition, by=carol, reason="snow", now=FINAL)
    assert competition.phase == Phase.CANCELLED and competition.note == "snow"
    league = competition.ladders.get().league
    assert league is not None
    league.refresh_from_db()
    assert league.status == LeagueStatus.CANCELLED


def test_a_competition_ladder_is_entered_only_through_it(carol: User, alice: User) -> None:
    competition = create(carol)
    ladder = competition.ladders.get().ladder
    open_ladder = LadderFactory(slug="classic-2")
    bot = bot_of(alice, "mine")
    with pytest.raises(EntryError, match="is a competition's ladder"):
        entries_set(bot=bot, ladders=[ladder])
    competition = sweep(competition, OPENS)
    competition_enter(competition=competition, bot=bot, by=alice, now=OPENS)
    # Choosing other ladders keeps the competition's entry.
    entries_set(bot=bot, ladders=[open_ladder])
    assert set(Entry.objects.filter(bot=bot).values_list("ladder__slug", flat=True)) == {
        "classic-2",
        ladder.slug,
    }
    assert Ladder.objects.filter(restricted=True).count() == 1
    # Nor does a league play there: only the competition's final event.
    with pytest.raises(LeagueConfigError, match="is a competition's ladder"):
        league_create(
            organiser=carol,
            ladder=ladder,
            name="Poach",
            slug="poach",
            format="round_robin",
            start_at=FINAL,
            round_interval=HOUR,
            bots=[bot, bot_of(carol, "other")],
            now=CREATED,
        )
    assert ladder not in league_ladders()


def test_the_beat_task_takes_a_driven_clock(carol: User) -> None:
    competition = create(carol)
    assert competitions_advance(now=OPENS.isoformat()) == 1
    competition.refresh_from_db()
    assert competition.phase == Phase.ENTRY
    with pytest.raises(ValueError, match="no UTC offset"):
        competitions_advance(now="2031-05-02T09:00:00")
    assert competition_advance(competition=competition, now=OPENS).phase == Phase.ENTRY


def test_a_competition_in_two_rule_systems(carol: User, alice: User, bob: User) -> None:
    competition = create(
        carol, ladders=[LadderSettings("classic", 2), LadderSettings("boulevard", 2)]
    )
    assert [x.ladder.rules for x in competition.ladders.order_by("pk")] == ["classic", "boulevard"]
    competition = sweep(competition, OPENS)
    fresh = bot_of(alice, "fresh")
    with pytest.raises(CompetitionEntryError, match="choose the rule system fresh enters in"):
        competition_enter(competition=competition, bot=fresh, by=alice, now=OPENS)
    with pytest.raises(CompetitionEntryError, match="not played in royale"):
        competition_enter(competition=competition, bot=fresh, by=alice, rules="royale", now=OPENS)
    entry = competition_enter(
        competition=competition, bot=fresh, by=alice, rules="boulevard", now=OPENS
    )
    assert entry.ladder.ladder.rules == "boulevard"
    # A bot rated on classic enters classic by itself, and nothing else.
    rated = bot_of(bob, "rated")
    RatingFactory(ladder=LadderFactory(slug="classic-2"), bot_version=rated.versions.get())
    entry = competition_enter(competition=competition, bot=rated, by=bob, now=OPENS)
    assert entry.ladder.ladder.rules == "classic"
    competition_withdraw(competition=competition, bot=rated, by=bob, now=OPENS)
    with pytest.raises(CompetitionEntryError, match="plays classic, not boulevard"):
        competition_enter(competition=competition, bot=rated, by=bob, rules="boulevard", now=OPENS)
    # Each ladder has too few entrants for a final: the competition is cancelled, saying why.
    competition = sweep(competition, FREEZE)
    assert competition.phase == Phase.CANCELLED
    assert "classic:" in competition.note and "boulevard:" in competition.note


def test_each_phase_is_told_to_the_organiser_and_the_entrants(
    carol: User, alice: User, bob: User, django_capture_on_commit_callbacks: Any
) -> None:
    """By e-mail here (the kind's default), once per person and phase, as it commits."""
    competition = create(carol)
    with django_capture_on_commit_callbacks(execute=True):
        competition = sweep(competition, OPENS)
    assert [(m.to, m.subject) for m in mail.outbox] == [
        ([carol.email], "[Las Vegas Arena] Spring cup: Entry open")
    ]
    for user in (alice, bob):
        competition_enter(competition=competition, bot=bot_of(user, "b"), by=user, now=OPENS)
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        competition = sweep(competition, CLOSES)
        competition = sweep(competition, CLOSES)  # a second sweep tells nobody again
    assert sorted(m.to[0] for m in mail.outbox) == sorted([carol.email, alice.email, bob.email])
    assert {m.subject for m in mail.outbox} == {"[Las Vegas Arena] Spring cup: Season"}
    assert "you may still upload versions" in mail.outbox[0].body
    assert "/competitions/spring-cup/" in mail.outbox[0].body
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        competition_cancel(competition=competition, by=carol, reason="snow", now=CLOSES)
    assert {m.subject for m in mail.outbox} == {"[Las Vegas Arena] Spring cup: Cancelled"}
    assert all("snow" in m.body for m in mail.outbox) and len(mail.outbox) == 3


def test_a_teams_bot_is_entered_and_withdrawn_by_any_member(
    carol: User, alice: User, bob: User
) -> None:
    """The bots' one access rule: bob enters the team bot alice made; a stranger cannot."""
    team = team_create(user=alice, name="Sharks")
    team_join(user=bob, token=team.invite_token)
    shared = bot_of(alice, "hammer")
    Bot.objects.filter(pk=shared.pk).update(team=team)
    shared.refresh_from_db()
    competition = sweep(create(carol), OPENS)
    assert shared in enterable_bots(competition=competition, user=bob)
    dave = UserFactory(username="dave")
    assert shared not in enterable_bots(competition=competition, user=dave)
    with pytest.raises(CompetitionEntryError, match="not your bot"):
        competition_enter(competition=competition, bot=shared, by=dave, now=OPENS)
    competition_enter(competition=competition, bot=shared, by=bob, now=OPENS)
    with pytest.raises(CompetitionPermissionError, match="owner \\(or its team\\)"):
        competition_withdraw(competition=competition, bot=shared, by=dave, now=OPENS)
    competition_withdraw(competition=competition, bot=shared, by=alice, now=OPENS)
