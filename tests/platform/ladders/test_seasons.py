"""Seasons: closing a ladder's season into a frozen final table, carried or reset ratings."""

from __future__ import annotations

import re
import threading
import time
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.test import Client
from django.utils import timezone

from arena.bots.models import Bot, VersionStatus, Visibility
from arena.ladders.elo import INITIAL_DEVIATION, INITIAL_RATING, Calibration
from arena.ladders.models import (
    Ladder,
    Rating,
    RatingChange,
    Season,
    SeasonStart,
    StandingRow,
)
from arena.ladders.selectors import (
    bot_season_placings,
    bot_verdicts,
    ladder_current_season,
    ladder_rated_units,
)
from arena.ladders.services import (
    SeasonAlreadyClosedError,
    SeasonChoiceError,
    SeasonError,
    SeasonPermissionError,
    ladder_refit,
    ratings_apply,
    season_close,
)
from arena.ladders.services import seasons as season_services
from arena.matches.models import Match, MatchStatus
from arena.players.models import Team
from arena.players.services import team_create
from tests.platform.api_support import client_for
from tests.platform.conftest import needs_postgres
from tests.platform.factories import (
    BotFactory,
    BotVersionFactory,
    LadderFactory,
    MatchFactory,
    ParticipantFactory,
    RatingFactory,
    finished_match,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def ladder() -> Any:
    return LadderFactory(slug="classic-2", name="Classic 2")


@pytest.fixture
def shark(alice: Any) -> Any:
    return BotVersionFactory(bot=BotFactory(owner=alice, name="shark"), number=3)


@pytest.fixture
def turtle(bob: Any) -> Any:
    return BotVersionFactory(bot=BotFactory(owner=bob, name="turtle"))


@pytest.fixture
def rookie(bob: Any) -> Any:
    return BotVersionFactory(bot=BotFactory(owner=bob, name="rookie"))


@pytest.fixture
def rated(ladder: Any, shark: Any, turtle: Any, rookie: Any) -> dict[str, Rating]:
    """shark and turtle settled, rookie provisional."""
    return {
        "shark": RatingFactory(ladder=ladder, bot_version=shark, rating=1700, rated_matches=80),
        "turtle": RatingFactory(ladder=ladder, bot_version=turtle, rating=1450, rated_matches=60),
        "rookie": RatingFactory(ladder=ladder, bot_version=rookie, rating=1900, rated_matches=3),
    }


def table(season: Season) -> list[tuple[Any, ...]]:
    assert season.standings is not None
    return list(
        StandingRow.objects.filter(standings=season.standings)
        .order_by("position")
        .values_list(
            "position", "rank", "bot_name", "version_number", "owner_username", "rating", "games"
        )
    )


FINAL_TABLE = [
    (1, 1, "shark", 3, "alice", 1700.0, 80),
    (2, 2, "turtle", 1, "bob", 1450.0, 60),
    (3, None, "rookie", 1, "bob", 1900.0, 3),
]


# --------------------------------------------------------------------------- the service


def test_a_never_closed_ladder_is_in_its_first_season(ladder: Any) -> None:
    season = ladder_current_season(ladder=ladder)

    assert (season.pk, season.number, season.name, season.began) == (
        None,
        1,
        "Season 1",
        SeasonStart.FIRST,
    )
    assert season.started_at == ladder.created_at


def test_closing_with_carry_archives_the_table_and_keeps_the_ratings(
    ladder: Any, rated: dict[str, Rating], carol: Any
) -> None:
    following = season_close(ladder=ladder, next_start="carry", by=carol, season=1)

    first = Season.objects.get(ladder=ladder, number=1)
    assert first.began == SeasonStart.FIRST
    assert first.ended_at == following.started_at
    assert first.closed_by == carol
    assert table(first) == FINAL_TABLE
    assert [r.provisional for r in StandingRow.objects.order_by("position")] == [
        False,
        False,
        True,
    ]
    # Each row keeps its rating's deviation, and the ± that made it provisional or not.
    rows = StandingRow.objects.order_by("position")
    assert [r.deviation for r in rows] == [
        rated[n].deviation for n in ("shark", "turtle", "rookie")
    ]
    assert [r.display for r in rows] == [
        f"1700 ± {round(rated['shark'].deviation)}",
        f"1450 ± {round(rated['turtle'].deviation)}",
        f"1900? ± {round(rated['rookie'].deviation)}",
    ]
    assert (following.number, following.name, following.began, following.ended_at) == (
        2,
        "Season 2",
        SeasonStart.CARRIED,
        None,
    )
    assert ladder_current_season(ladder=ladder) == following
    assert sorted(Rating.objects.values_list("rating", "rated_matches")) == [
        (1450.0, 60),
        (1700.0, 80),
        (1900.0, 3),
    ]
    ladder.refresh_from_db()
    assert ladder.ratings_reset_at is None


def test_the_table_leaves_out_what_the_leaderboard_leaves_out(
    ladder: Any, rated: dict[str, Rating], carol: Any, turtle: Any
) -> None:
    turtle.bot.visibility = Visibility.PRIVATE
    turtle.bot.save()

    season_close(ladder=ladder, next_start="carry", by=carol)

    assert [row[2] for row in table(Season.objects.get(number=1))] == ["shark", "rookie"]


def test_closing_with_reset_starts_every_rating_afresh_and_keeps_the_history(
    ladder: Any, shark: Any, turtle: Any, carol: Any
) -> None:
    for _ in range(3):
        ratings_apply(match=finished_match(ladder, [shark, turtle], ranks=[1, 2]))
    before = dict(Rating.objects.values_list("bot_version_id", "rating"))
    deviations_before = dict(Rating.objects.values_list("bot_version_id", "deviation"))
    assert before[shark.pk] > INITIAL_RATING
    assert all(d < INITIAL_DEVIATION for d in deviations_before.values())
    ladder.elo_scale = 1.2
    ladder.calibration = Calibration(3.0, 4.0, 5)
    ladder.refit_units = 3
    ladder.save()

    following = season_close(ladder=ladder, next_start="reset", by=carol, name="Winter")

    assert (following.number, following.name, following.began) == (
        2,
        "Winter",
        SeasonStart.RESET,
    )
    fresh = Rating.objects.values_list("rating", "deviation", "rated_matches", "prior")
    assert list(fresh.distinct()) == [(INITIAL_RATING, INITIAL_DEVIATION, 0, INITIAL_RATING)]
    # The history stays on the rows, and the archived table keeps the ratings at the close.
    assert RatingChange.objects.count() == 6
    archived = dict(StandingRow.objects.values_list("bot_version_id", "rating"))
    assert archived == before
    archived_deviations = dict(StandingRow.objects.values_list("bot_version_id", "deviation"))
    assert archived_deviations == deviations_before
    ladder.refresh_from_db()
    assert ladder.ratings_reset_at == following.started_at
    assert (ladder.elo_scale, ladder.calibration, ladder.rated_units, ladder.refit_units) == (
        1.0,
        Calibration(),
        0,
        0,
    )


def test_after_a_reset_the_refit_and_the_verdicts_read_only_the_new_season(
    ladder: Any, shark: Any, turtle: Any, carol: Any
) -> None:
    for _ in range(3):
        ratings_apply(match=finished_match(ladder, [shark, turtle], ranks=[1, 2]))
    assert len(list(ladder_rated_units(ladder_id=ladder.pk))) == 3
    season_close(ladder=ladder, next_start="reset", by=carol)
    ladder.refresh_from_db()
    assert list(ladder_rated_units(ladder_id=ladder.pk, since=ladder.ratings_reset_at)) == []

    # Refitted on no result, the fresh ratings stay where the reset put them.
    ladder_refit(ladder_id=ladder.pk)
    assert set(Rating.objects.values_list("rating", flat=True)) == {INITIAL_RATING}

    ratings_apply(match=finished_match(ladder, [turtle, shark], ranks=[1, 2]))
    ladder.refresh_from_db()
    assert ladder.rated_units == 1
    assert len(list(ladder_rated_units(ladder_id=ladder.pk, since=ladder.ratings_reset_at))) == 1
    # shark v2 against v1: only the new season's result (a loss) speaks for v1.
    child = BotVersionFactory(
        bot=shark.bot, number=4, parent=shark, status=VersionStatus.VALIDATING
    )
    RatingFactory(ladder=ladder, bot_version=child)
    ratings = list(Rating.objects.filter(bot=shark.bot).select_related("ladder"))
    (found,) = bot_verdicts(versions=[shark, child], ratings=ratings)
    # Its three wins of the season before would put it above 1500.
    assert found.verdict.parent < INITIAL_RATING


def test_a_refit_running_across_a_reset_writes_nothing(
    ladder: Any, shark: Any, turtle: Any, carol: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    for _ in range(3):
        ratings_apply(match=finished_match(ladder, [shark, turtle], ranks=[1, 2]))
    from arena.ladders.services import ratings as rating_services

    fit = rating_services.fit_totals

    def fit_then_reset(*args: Any, **kwargs: Any) -> Any:
        fitted = fit(*args, **kwargs)
        season_close(ladder=Ladder.objects.get(pk=ladder.pk), next_start="reset", by=carol)
        return fitted

    monkeypatch.setattr(rating_services, "fit_totals", fit_then_reset)

    assert ladder_refit(ladder_id=ladder.pk) == 0
    assert set(Rating.objects.values_list("rating", flat=True)) == {INITIAL_RATING}


def test_results_finished_before_the_close_count_in_the_closing_season(
    ladder: Any, shark: Any, turtle: Any, carol: Any
) -> None:
    finished = finished_match(ladder, [shark, turtle], ranks=[1, 2])  # its rating task not run
    queued = MatchFactory(ladder=ladder, status=MatchStatus.QUEUED)
    ParticipantFactory(match=queued, seat=0, bot_version=shark)
    ParticipantFactory(match=queued, seat=1, bot_version=turtle, rank=None)

    season_close(ladder=ladder, next_start="reset", by=carol)

    finished.refresh_from_db()
    assert finished.rated_at is not None
    assert table(Season.objects.get(number=1)) == [
        (1, None, "shark", 3, "alice", 1570.0, 1),
        (2, None, "turtle", 1, "bob", 1430.0, 1),
    ]
    # The queued match stays queued: it counts in the new season when it finishes.
    assert Match.objects.get(pk=queued.pk).status == MatchStatus.QUEUED
    assert set(Rating.objects.values_list("rating", flat=True)) == {INITIAL_RATING}
    Match.objects.filter(pk=queued.pk).update(
        status=MatchStatus.FINISHED,
        attempts=1,
        started_at=timezone.now(),
        finished_at=timezone.now(),
    )
    queued.participants.filter(seat=1).update(rank=1, money=0)
    queued.participants.filter(seat=0).update(rank=2, money=0)
    ratings_apply(match=Match.objects.get(pk=queued.pk))
    assert Rating.objects.get(bot_version=turtle).rating == 1570.0  # from the fresh 1500
    assert table(Season.objects.get(number=1))[1][5] == 1430.0


def test_the_archived_table_never_changes_with_later_matches_ratings_or_names(
    ladder: Any, rated: dict[str, Rating], carol: Any, shark: Any, turtle: Any
) -> None:
    season_close(ladder=ladder, next_start="carry", by=carol)
    first = Season.objects.get(number=1)

    for _ in range(4):
        ratings_apply(match=finished_match(ladder, [turtle, shark], ranks=[1, 2]))
    ladder_refit(ladder_id=ladder.pk)
    season_close(ladder=ladder, next_start="reset", by=carol)
    shark.bot.name = "great-white"
    shark.bot.save()
    carol_bot = BotVersionFactory(bot=BotFactory(owner=carol, name="orca"))
    RatingFactory(ladder=ladder, bot_version=carol_bot, rating=2500, rated_matches=90)

    assert Rating.objects.get(bot_version=shark).rating == INITIAL_RATING
    assert table(first) == FINAL_TABLE
    # The refit knows only the 4 results in the history: shark's and turtle's ± are those
    # of 4 games, provisional, so the second table lists all three unranked, best first.
    assert [row[1:3] for row in table(Season.objects.get(number=2))] == [
        (None, "rookie"),
        (None, "turtle"),
        (None, "shark"),
    ]


def test_a_deleted_bot_leaves_its_row_in_the_table(
    ladder: Any, rated: dict[str, Rating], carol: Any, rookie: Any
) -> None:
    season_close(ladder=ladder, next_start="carry", by=carol)
    rookie.bot.delete()

    assert table(Season.objects.get(number=1)) == FINAL_TABLE


def test_a_bot_lists_its_placings(
    ladder: Any, rated: dict[str, Rating], carol: Any, shark: Any
) -> None:
    other = LadderFactory(slug="classic-4", seats=4)
    RatingFactory(ladder=other, bot_version=shark, rating=1600, rated_matches=40)
    season_close(ladder=ladder, next_start="carry", by=carol)
    season_close(ladder=other, next_start="reset", by=carol)
    season_close(ladder=ladder, next_start="carry", by=carol)

    placings = [
        (row.standings.season.ladder.slug, row.standings.season.number, row.rank)
        for row in bot_season_placings(bot=shark.bot)
    ]
    assert placings == [("classic-2", 2, 1), ("classic-4", 1, 1), ("classic-2", 1, 1)]


# --------------------------------------------------------------------------- refusals


def test_an_unknown_choice_is_refused(ladder: Any, carol: Any) -> None:
    with pytest.raises(SeasonChoiceError, match=r'"carry" .* or "reset" .* not "keep"'):
        season_close(ladder=ladder, next_start="keep", by=carol)
    assert not Season.objects.exists()


def test_only_staff_close_a_season(ladder: Any, alice: Any) -> None:
    with pytest.raises(SeasonPermissionError, match="only staff"):
        season_close(ladder=ladder, next_start="carry", by=alice)
    assert not Season.objects.exists()


def test_a_season_already_closed_is_not_closed_again(ladder: Any, carol: Any) -> None:
    season_close(ladder=ladder, next_start="carry", by=carol, season=1)

    with pytest.raises(SeasonAlreadyClosedError, match="season 1 of Classic 2 is already closed"):
        season_close(ladder=ladder, next_start="reset", by=carol, season=1)
    with pytest.raises(SeasonError, match="Classic 2 has no season 3 yet: season 2 runs now"):
        season_close(ladder=ladder, next_start="reset", by=carol, season=3)
    assert list(Season.objects.values_list("number", "began")) == [
        (1, SeasonStart.FIRST),
        (2, SeasonStart.CARRIED),
    ]


@needs_postgres
@pytest.mark.django_db(transaction=True)
def test_two_staff_closing_the_same_season_at_once_close_it_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tests.platform.factories import UserFactory

    carol = UserFactory(username="carol", is_staff=True)
    dave = UserFactory(username="dave", is_staff=True)
    ladder = LadderFactory(slug="classic-2", name="Classic 2")
    RatingFactory(ladder=ladder, rating=1600, rated_matches=40)
    archive = season_services._archive

    def slow_archive(ladder: Ladder, *, title: str) -> Any:
        time.sleep(0.3)  # hold the lock, so the two really overlap
        return archive(ladder, title=title)

    monkeypatch.setattr(season_services, "_archive", slow_archive)
    barrier = threading.Barrier(2)
    outcomes: list[Any] = []

    def close(user: Any, next_start: str) -> None:
        try:
            barrier.wait()
            outcomes.append(season_close(ladder=ladder, next_start=next_start, by=user, season=1))
        except Exception as error:
            outcomes.append(error)
        finally:
            connection.close()

    threads = [
        threading.Thread(target=close, args=(carol, "carry")),
        threading.Thread(target=close, args=(dave, "reset")),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    errors = [o for o in outcomes if isinstance(o, Exception)]
    assert len(outcomes) == 2
    assert [type(e) for e in errors] == [SeasonAlreadyClosedError], errors
    assert list(Season.objects.order_by("number").values_list("number", flat=True)) == [1, 2]
    assert StandingRow.objects.count() == 1


# --------------------------------------------------------------------------- the command


def test_the_command_closes_the_running_season(
    ladder: Any, rated: dict[str, Rating], carol: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    call_command("close_season", "classic-2", "--next", "reset", "--by", "carol")

    assert "season 1 closed and archived; Season 2 has begun" in capsys.readouterr().out
    assert ladder_current_season(ladder=ladder).began == SeasonStart.RESET
    with pytest.raises(CommandError, match="already closed"):
        call_command(
            "close_season", "classic-2", "--next", "carry", "--by", "carol", "--season", "1"
        )
    with pytest.raises(CommandError, match="only staff"):
        call_command("close_season", "classic-2", "--next", "carry", "--by", "alice")


# --------------------------------------------------------------------------- the API


def test_staff_close_a_season_over_the_api(
    ladder: Any, rated: dict[str, Rating], carol: Any
) -> None:
    api = client_for(carol)

    answer = api.post(
        "/api/ladders/classic-2/seasons/", {"season": 1, "next_start": "reset"}, format="json"
    )

    assert answer.status_code == 201, answer.json()
    assert answer.json() | {"started_at": None} == {
        "number": 2,
        "name": "Season 2",
        "began": "reset",
        "started_at": None,
        "ended_at": None,
    }
    again = api.post(
        "/api/ladders/classic-2/seasons/", {"season": 1, "next_start": "carry"}, format="json"
    )
    assert again.status_code == 409
    assert again.json()["code"] == "season_closed"
    seasons = client_for().get("/api/ladders/classic-2/seasons/").json()
    assert [(s["number"], s["began"], s["ended_at"] is None) for s in seasons] == [
        (2, "reset", True),
        (1, "first", False),
    ]
    final = client_for().get("/api/ladders/classic-2/seasons/1/").json()
    assert final["ladder"] == "classic-2"
    assert [
        (r["rank"], r["bot"], r["owner"], r["version"], r["rating"], r["games"], r["provisional"])
        for r in final["standings"]
    ] == [
        (1, "shark", "alice", 3, 1700.0, 80, False),
        (2, "turtle", "bob", 1, 1450.0, 60, False),
        (None, "rookie", "bob", 1, 1900.0, 3, True),
    ]
    assert [(r["deviation"], r["display"]) for r in final["standings"]] == [
        (rated[name].deviation, rated[name].display) for name in ("shark", "turtle", "rookie")
    ]
    assert client_for().get("/api/ladders/classic-2/seasons/2/").status_code == 404
    bot_id = rated["shark"].bot_id
    placings = client_for().get(f"/api/bots/{bot_id}/seasons/").json()
    assert [(p["ladder"], p["season"], p["rank"]) for p in placings] == [("classic-2", 1, 1)]


def test_the_api_refuses_others_and_unknown_choices(ladder: Any, alice: Any, carol: Any) -> None:
    url = "/api/ladders/classic-2/seasons/"

    forbidden = client_for(alice).post(url, {"season": 1, "next_start": "carry"}, format="json")
    assert forbidden.status_code == 403
    assert forbidden.json()["code"] == "season_forbidden"
    assert client_for().post(url, {"season": 1, "next_start": "carry"}).status_code in (401, 403)
    unknown = client_for(carol).post(url, {"season": 1, "next_start": "keep"}, format="json")
    assert unknown.status_code == 400
    assert unknown.json()["code"] == "season_choice"
    missing = client_for(carol).post(url, {"next_start": "carry"}, format="json")
    assert missing.status_code == 400
    assert not Season.objects.exists()


def test_the_seasons_are_in_the_openapi_schema() -> None:
    schema = client_for().get("/api/schema/", {"format": "json"}).json()

    assert "post" in schema["paths"]["/api/ladders/{slug}/seasons/"]
    assert "get" in schema["paths"]["/api/ladders/{slug}/seasons/{number}/"]
    assert "get" in schema["paths"]["/api/bots/{bot_id}/seasons/"]
    components = set(schema["components"]["schemas"])
    assert {"SeasonCloseInputRequest", "SeasonTable", "StandingRow"} <= components


# --------------------------------------------------------------------------- the admin


def test_staff_close_a_season_from_the_admin_after_confirming(
    ladder: Any, rated: dict[str, Rating], carol: Any
) -> None:
    admin = Client()
    admin.force_login(carol)
    url = "/admin/ladders/ladder/"
    chosen = {"action": "close_season", "_selected_action": [ladder.pk]}

    confirm = admin.post(url, chosen)
    assert confirm.status_code == 200
    page = confirm.content.decode()
    assert "Season 1 (season 1" in page
    assert f'name="season-{ladder.pk}" value="1"' in page
    assert not Season.objects.exists()  # nothing closed before the confirmation

    done = admin.post(
        url,
        {**chosen, f"season-{ladder.pk}": "1", "next_start": "reset", "confirm": "yes"},
        follow=True,
    )
    assert done.status_code == 200
    assert "season 1 closed and archived; Season 2 has begun" in done.content.decode()
    assert ladder_current_season(ladder=ladder).began == SeasonStart.RESET

    # The same confirmation posted again (a second tab) closes nothing more.
    stale = admin.post(
        url,
        {**chosen, f"season-{ladder.pk}": "1", "next_start": "carry", "confirm": "yes"},
        follow=True,
    )
    assert "is already closed" in stale.content.decode()
    assert Season.objects.count() == 2
    first = Season.objects.get(number=1)
    assert admin.get(f"/admin/ladders/season/{first.pk}/change/").status_code == 200
    assert admin.get(f"/admin/ladders/standings/{first.standings_id}/change/").status_code == 200


# --------------------------------------------------------------------------- the pages


def test_the_ladder_page_shows_its_season_and_links_the_past_ones(
    ladder: Any, rated: dict[str, Rating], carol: Any
) -> None:
    page = Client().get("/ladders/classic-2/").content.decode()
    assert "Season 1" in page and "Past seasons" not in page

    season_close(ladder=ladder, next_start="reset", by=carol, name="Winter")

    page = Client().get("/ladders/classic-2/").content.decode()
    assert "Winter (season 2)" in page
    assert "ratings reset at its start" in page
    assert 'href="/ladders/classic-2/seasons/1/"' in page


def test_a_past_season_page_shows_its_archived_table(
    ladder: Any, rated: dict[str, Rating], carol: Any, shark: Any, turtle: Any
) -> None:
    season_close(ladder=ladder, next_start="reset", by=carol)
    for _ in range(3):
        ratings_apply(match=finished_match(ladder, [turtle, shark], ranks=[1, 2]))

    response = Client().get("/ladders/classic-2/seasons/1/")

    assert response.status_code == 200
    page = response.content.decode()
    final = page[page.index('id="final-table"') : page.index('id="unranked"')]
    assert final.index("shark") < final.index("turtle")
    assert "1700" in final and "1450" in final
    unranked = page[page.index('id="unranked"') :]
    assert "rookie" in unranked and "1900" in unranked
    assert f'href="/bots/{shark.bot_id}/"' in final
    # A bot made private since keeps its row, unlinked for those who may not see it.
    shark.bot.visibility = Visibility.PRIVATE
    shark.bot.save()
    page = Client().get("/ladders/classic-2/seasons/1/").content.decode()
    assert "shark" in page and f'href="/bots/{shark.bot_id}/"' not in page
    assert Client().get("/ladders/classic-2/seasons/2/").status_code == 404
    assert Client().get("/ladders/nope/seasons/1/").status_code == 404


def test_the_bot_page_lists_its_season_placings(
    ladder: Any, rated: dict[str, Rating], carol: Any, shark: Any, rookie: Any
) -> None:
    assert 'id="seasons"' not in Client().get(f"/bots/{shark.bot_id}/").content.decode()
    season_close(ladder=ladder, next_start="carry", by=carol)

    page = Client().get(f"/bots/{shark.bot_id}/").content.decode()
    placings = page[page.index('id="seasons"') :]
    assert 'href="/ladders/classic-2/seasons/1/"' in placings
    assert '<td class="num">1</td>' in placings
    rookie_page = Client().get(f"/bots/{rookie.bot_id}/").content.decode()
    assert "provisional" in rookie_page[rookie_page.index('id="seasons"') :]


def test_the_archived_table_keeps_each_bot_s_team_as_it_was_at_the_close(
    ladder: Any, rated: dict[str, Rating], turtle: Any, carol: Any, bob: Any
) -> None:
    turtles = team_create(user=bob, name="Turtles")
    Bot.objects.filter(pk=turtle.bot_id).update(team=turtles)
    season_close(ladder=ladder, next_start="carry", by=carol)
    # A later rename leaves the archive alone.
    Team.objects.filter(pk=turtles.pk).update(name="Tortoises")

    final = client_for().get("/api/ladders/classic-2/seasons/1/").json()
    assert [(r["bot"], r["owner"], r["team"]) for r in final["standings"]] == [
        ("shark", "alice", None),
        ("turtle", "bob", "Turtles"),
        ("rookie", "bob", None),
    ]
    page = Client().get("/ladders/classic-2/seasons/1/").content.decode()
    assert re.search(r"turtle</a> <span[^>]*>v1</span></td>\s*<td[^>]*>Turtles</td>", page)
