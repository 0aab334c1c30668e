"""Challenges: unrated matches an owner asks for, played for real in the sandbox."""

from __future__ import annotations

import random
from typing import Any

import pytest

from arena.bots.models import BotVersion, Visibility
from arena.ladders.flows import challenge_create, ladder_create
from arena.ladders.models import Challenge, Ladder, RatingChange
from arena.ladders.services.challenges import ChallengeError, ChallengeQuotaError
from arena.matches.models import Match, MatchStatus
from tests.platform.api_support import client_for
from tests.platform.factories import BotFactory, BotVersionFactory
from tests.platform.ladders.test_match_pipeline import player_bot
from tests.platform.matches.test_series import referee_seats
from tests.platform.scenes import enter, never_run
from tests.platform.worker import GOOD_BOT

pytestmark = pytest.mark.django_db


@pytest.fixture
def duel() -> Ladder:
    return ladder_create(slug="classic-2", name="Classic, 2 seats", rules="classic", seats=2)


def playing(owner: Any, name: str, ladder: Ladder, **bot: Any) -> BotVersion:
    """A bot of ``owner`` with real code, active and qualified on ``ladder``."""
    version = player_bot(owner, name, GOOD_BOT)
    if bot:
        type(version.bot).objects.filter(pk=version.bot_id).update(**bot)
        version.bot.refresh_from_db()
    enter(version, ladder)
    return version


def test_alice_s_private_bot_meets_bob_s_unrated_and_only_she_reads_it(
    alice: Any, bob: Any, duel: Ladder, django_capture_on_commit_callbacks: Any
) -> None:
    shark = playing(alice, "shark", duel, visibility=Visibility.PRIVATE)
    turtle = playing(bob, "turtle", duel)

    with django_capture_on_commit_callbacks(execute=True):
        answer = client_for(alice).post(
            "/api/challenges/",
            {"bot": shark.bot_id, "ladder": "classic-2", "opponents": [turtle.bot_id], "games": 2},
            format="json",
        )
    assert answer.status_code == 201, answer.content
    body = answer.json()
    assert (body["bot"], body["games"], body["chosen"]) == ("shark", 2, [turtle.bot_id])
    matches = list(Match.objects.order_by("pk"))
    assert len(matches) == 2 and all(not m.rated for m in matches)
    assert [m.status for m in Match.objects.order_by("pk")] == [MatchStatus.FINISHED] * 2
    # The challenger's seat rotates with the games.
    seats = [m.participants.get(bot_version=shark).seat for m in matches]
    assert seats == [0, 1]
    # The same bots in both: one series, played by one run with one process per bot.
    assert [(m.series_id, m.series_game) for m in matches] == [
        (matches[0].pk, 1),
        (matches[0].pk, 2),
    ]
    started = [[seat["startup_ms"] is not None for seat in referee_seats(m)] for m in matches]
    assert started == [[True, True], [False, False]]
    assert not RatingChange.objects.exists()

    shown = client_for(alice).get(f"/api/challenges/{body['id']}/").json()
    assert [m["status"] for m in shown["matches"]] == ["finished", "finished"]
    assert all(m["rated"] is False for m in shown["matches"])
    log = client_for(alice).get(f"/api/matches/{matches[0].pk}/log/")
    assert log.status_code == 200 and log.json()["rules"] == "classic"
    # Bob sees neither the challenge nor a match of Alice's private bot.
    assert client_for(bob).get(f"/api/challenges/{body['id']}/").status_code == 404
    assert client_for(bob).get(f"/api/matches/{matches[0].pk}/").status_code == 404
    assert client_for(bob).get("/api/challenges/").json()["results"] == []


def test_random_opponents_come_from_the_ladder_s_players(
    alice: Any, bob: Any, carol: Any, house: Any
) -> None:
    table = ladder_create(slug="classic-3", name="Classic 3", rules="classic", seats=3)
    shark = playing(alice, "shark", table)
    others = {playing(owner, f"bot-{owner.username}", table).pk for owner in (bob, carol)}
    elsewhere = playing(
        house, "elsewhere", ladder_create(slug="c2", name="c2", rules="classic", seats=2)
    )

    challenge = challenge_create(
        user=alice, bot=shark.bot, ladder=table, games=3, rng=random.Random(1)
    )

    for match in challenge.matches.all():
        seated = set(match.participants.values_list("bot_version_id", flat=True))
        assert seated == {shark.pk, *others}
        assert elsewhere.pk not in seated
        # Random seats are drawn anew for each game: a match each, not a series.
        assert (match.series_id, match.series_game) == (None, None)
    assert challenge.matches.count() == 3


@pytest.mark.parametrize(
    ("case", "words"),
    [
        ("not yours", "is not your bot"),
        ("not qualified", "has no version that passed the pre-flight of classic-2"),
        ("too many", "choose at most 1 opponents"),
        ("games", "ask for 1 to 10 games, not 11"),
        ("private opponent", "choose among the bots you can see"),
        ("closed", "classic-2 is closed"),
        ("nobody", "classic-2 has 0 other players for 1 random seats"),
    ],
)
def test_a_challenge_that_cannot_be_played_says_why(
    alice: Any, bob: Any, duel: Ladder, case: str, words: str
) -> None:
    shark = playing(alice, "shark", duel)
    turtle = playing(bob, "turtle", duel)
    kwargs: dict[str, Any] = {"user": alice, "bot": shark.bot, "ladder": duel}
    if case == "not yours":
        kwargs["bot"] = turtle.bot
    elif case == "not qualified":
        kwargs["bot"] = BotVersionFactory(bot=BotFactory(owner=alice, name="fresh")).bot
    elif case == "too many":
        kwargs["opponents"] = [turtle.bot, playing(bob, "third", duel).bot]
    elif case == "games":
        kwargs["games"] = 11
    elif case == "private opponent":
        kwargs["opponents"] = [playing(bob, "hidden", duel, visibility=Visibility.PRIVATE).bot]
    elif case == "closed":
        Ladder.objects.filter(pk=duel.pk).update(is_open=False)
        duel.refresh_from_db()
    elif case == "nobody":
        type(turtle).objects.filter(pk=turtle.pk).update(status="retired")
    with pytest.raises(ChallengeError, match=words):
        challenge_create(**kwargs)
    assert not Match.objects.exists()


def test_each_player_asks_for_a_limited_number_of_games_an_hour(
    alice: Any, bob: Any, duel: Ladder, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.ladders import tasks

    never_run(monkeypatch, tasks.match_run)
    settings.ARENA_CHALLENGE_GAMES_PER_HOUR = 3
    shark = playing(alice, "shark", duel)
    playing(bob, "turtle", duel)
    challenge_create(user=alice, bot=shark.bot, ladder=duel, games=2)

    with pytest.raises(
        ChallengeQuotaError, match="2 challenge games in the last hour and the limit is 3"
    ):
        challenge_create(user=alice, bot=shark.bot, ladder=duel, games=2)
    challenge_create(user=alice, bot=shark.bot, ladder=duel, games=1)  # within the limit
    answer = client_for(alice).post(
        "/api/challenges/", {"bot": shark.bot_id, "ladder": "classic-2"}, format="json"
    )
    assert answer.status_code == 400 and answer.json()["code"] == "challenge_quota"
    assert Challenge.objects.count() == 2 and Match.objects.count() == 3


def test_a_page_of_challenges_is_sized_by_their_matches(alice: Any, duel: Ladder) -> None:
    """Each challenge carries up to ten matches with their seats: ten challenges a page by
    default and twenty at most, up to the 200 matches a page of matches holds."""
    version = BotVersionFactory(bot__owner=alice)
    Challenge.objects.bulk_create(
        Challenge(requested_by=alice, ladder=duel, bot_version=version, games=10) for _ in range(25)
    )
    client = client_for(alice)
    first = client.get("/api/challenges/").json()
    assert (first["count"], len(first["results"])) == (25, 10)
    assert "limit=10" in first["next"] and "offset=10" in first["next"]
    assert len(client.get("/api/challenges/?limit=50").json()["results"]) == 20
    assert len(client.get("/api/challenges/?offset=20").json()["results"]) == 5


def test_a_team_s_bots_share_the_team_s_hourly_challenge_games(
    alice: Any, bob: Any, duel: Ladder, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.ladders import tasks
    from arena.players.services import team_create, team_join

    never_run(monkeypatch, tasks.match_run)
    settings.ARENA_CHALLENGE_GAMES_PER_HOUR = 3
    team = team_create(user=alice, name="Sharks")
    team_join(user=bob, token=team.invite_token)
    hammer = playing(alice, "hammer", duel, team=team)
    solo = playing(bob, "solo", duel)
    playing(BotFactory().owner, "target", duel)
    challenge_create(user=alice, bot=hammer.bot, ladder=duel, games=2)

    # Bob, a member, challenges with the team's bot: the team asked for 2 already.
    with pytest.raises(ChallengeQuotaError, match="your team asked for 2 challenge games"):
        challenge_create(user=bob, bot=hammer.bot, ladder=duel, games=2)
    challenge_create(user=bob, bot=hammer.bot, ladder=duel, games=1)
    # His own bot has his own quota, untouched by the team's.
    challenge_create(user=bob, bot=solo.bot, ladder=duel, games=3)
    # Somebody outside the team may not challenge with its bot at all.
    with pytest.raises(ChallengeError, match="is not your bot"):
        challenge_create(user=BotFactory().owner, bot=hammer.bot, ladder=duel, games=1)
