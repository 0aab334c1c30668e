"""The JSON API: uploads, leaderboards with the provisional mark, matches, errors.

More in test_api_*.py: bots and versions, matches and logs, auth and the
schema, query counts.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from arena.ladders.services import ratings_apply

from .api_support import GOOD, client_for
from .factories import BotFactory, BotVersionFactory, LadderFactory, RatingFactory, finished_match

pytestmark = pytest.mark.django_db


def test_alice_uploads_a_bot_and_then_a_new_version(
    alice: Any, django_capture_on_commit_callbacks: Any
) -> None:
    api = client_for(alice)
    with django_capture_on_commit_callbacks(execute=True):
        first = api.post(
            "/api/bots/",
            {"name": "shark", "file": SimpleUploadedFile("shark.py", GOOD)},
            format="multipart",
        )
    assert first.status_code == 201, first.content
    # Answered before the commit: validation runs after it (eagerly in tests).
    assert (first.json()["number"], first.json()["status"]) == (1, "pending")

    bot_id = api.get("/api/bots/").json()["results"][0]["id"]
    with django_capture_on_commit_callbacks(execute=True):
        second = api.post(
            f"/api/bots/{bot_id}/versions/",
            {"file": SimpleUploadedFile("shark.py", GOOD + b"# v2\n")},
            format="multipart",
        )
    assert second.status_code == 201 and second.json()["number"] == 2

    detail = client_for().get(f"/api/bots/{bot_id}/").json()
    assert [v["number"] for v in detail["versions"]] == [2, 1]
    assert [v["status"] for v in detail["versions"]] == ["active", "retired"]


def test_a_bad_upload_answers_400_with_its_code_and_message(alice: Any) -> None:
    response = client_for(alice).post(
        "/api/bots/",
        {"name": "shark", "file": SimpleUploadedFile("shark.exe", b"MZ")},
        format="multipart",
    )
    assert response.status_code == 400
    assert response.json()["code"] == "upload_type"
    assert "is no bot file the arena knows: upload one source file" in response.json()["detail"]


def test_a_too_large_upload_is_refused_before_it_is_read(alice: Any, settings: Any) -> None:
    settings.ARENA_UPLOAD_MAX_BYTES = 1000
    response = client_for(alice).post(
        "/api/bots/",
        {"name": "shark", "file": SimpleUploadedFile("shark.py", b"#" * 5000)},
        format="multipart",
    )
    assert response.status_code == 400
    assert response.json()["code"] == "upload_too_large"
    assert "4.9 KiB, above the 1000 bytes upload limit" in response.json()["detail"]


def test_bob_cannot_upload_to_alices_bot_and_strangers_cannot_upload(alice: Any, bob: Any) -> None:
    bot = BotFactory(owner=alice, name="shark")
    upload = {"file": SimpleUploadedFile("x.py", GOOD)}
    # Bob sees Alice's public bot but may not change it; strangers must log in first.
    assert client_for(bob).post(f"/api/bots/{bot.pk}/versions/", upload).status_code == 403
    assert client_for().post("/api/bots/", {"name": "x"}).status_code == 401


def test_standings_past_the_middle_are_read_from_the_end_with_the_same_rows() -> None:
    """The standings' far pages are read in the reversed order: every limit and offset
    gives the rows, order, count and links of a plain limit/offset page, ties included."""
    from django.core.cache import cache

    from arena.ladders.selectors import ladder_leaderboard

    ladder = LadderFactory(slug="classic-2")
    for i in range(23):
        # Four bots tied at 1990 (broken by id), the rest one point apart.
        rating = 1990 if i in (3, 4, 5, 20) else 2000 - i
        RatingFactory(ladder=ladder, rating=rating, rated_matches=30 + i)
    expected = [r.bot_id for r in ladder_leaderboard(ladder=ladder)]
    api = client_for()
    for limit in (5, 7, 23, 50):
        for offset in (0, 3, 11, 12, 16, 18, 22, 23, 30):
            page = api.get(f"/api/ladders/classic-2/leaderboard/?limit={limit}&offset={offset}")
            body = page.json()
            assert [r["bot_id"] for r in body["results"]] == expected[offset : offset + limit]
            assert body["count"] == 23
            assert (body["next"] is None) == (offset + limit >= 23)
    # The count is the ladder page's, reused for a few seconds: a bot rated meanwhile
    # shows on its page, in the count after that.
    RatingFactory(ladder=ladder, rating=100, rated_matches=40)
    assert api.get("/api/ladders/classic-2/leaderboard/").json()["count"] == 23
    cache.clear()
    assert api.get("/api/ladders/classic-2/leaderboard/").json()["count"] == 24


def test_private_bots_are_hidden_from_others(alice: Any, bob: Any) -> None:
    bot = BotFactory(owner=alice, name="secret", visibility="private")
    assert client_for(bob).get(f"/api/bots/{bot.pk}/").status_code == 404
    assert client_for(alice).get(f"/api/bots/{bot.pk}/").status_code == 200
    assert client_for().get("/api/bots/").json()["count"] == 0


def test_leaderboard_marks_provisional_ratings(alice: Any, bob: Any) -> None:
    ladder = LadderFactory(slug="classic-2")
    shark = BotVersionFactory(bot=BotFactory(owner=alice, name="shark"))
    turtle = BotVersionFactory(bot=BotFactory(owner=bob, name="turtle"))
    RatingFactory(ladder=ladder, bot_version=turtle, rating=1600, rated_matches=45, deviation=40)
    ratings_apply(match=finished_match(ladder, [shark, turtle], ranks=[1, 2]))

    rows = client_for().get("/api/ladders/classic-2/leaderboard/").json()["results"]

    # E(turtle) = 0.640065: turtle (K = 700/50 = 14) -8.96; shark (new against a settled
    # rating, K = 700/2 = 350) +224.02. The API lists every rating by rating, flagged.
    # Deviations: the game adds p(1 - p) = 0.2304 to each one's curvature (natural
    # log-odds): shark's 1/2 (its prior) becomes 0.7304, turtle's 1/(40 c)^2 = 18.87 more.
    c = math.log(10) / 400
    assert [(r["bot"], r["display"], r["provisional"], r["tied"]) for r in rows] == [
        ("shark", "1724? ± 203", True, False),
        # 133 apart, within hypot(203, 40) = 207 of each other: tied.
        ("turtle", "1591 ± 40", False, True),
    ]
    assert rows[0]["deviation"] == pytest.approx(1 / (c * math.sqrt(0.5 + 0.2304)), abs=0.01)
    assert rows[1]["deviation"] == pytest.approx(
        1 / (c * math.sqrt(1 / (40 * c) ** 2 + 0.2304)), abs=0.01
    )


def test_the_leaderboard_marks_a_rating_tied_with_the_one_above_across_pages() -> None:
    ladder = LadderFactory(slug="classic-2")
    # Best first: 1800 ± 30, 1700 ± 30 (100 apart: clear of hypot(30, 30) = 42), 1680 ± 30
    # (tied with 1700), 1500 ± 30.
    for rating in (1800, 1700, 1680, 1500):
        RatingFactory(ladder=ladder, rating=rating, rated_matches=200, deviation=30)
    api = client_for()

    whole = api.get("/api/ladders/classic-2/leaderboard/").json()["results"]
    second = api.get("/api/ladders/classic-2/leaderboard/?limit=2&offset=2").json()["results"]

    assert [(r["rating"], r["tied"]) for r in whole] == [
        (1800, False),
        (1700, False),
        (1680, True),
        (1500, False),
    ]
    # The second page's first row is compared with the first page's last.
    assert [(r["rating"], r["tied"]) for r in second] == [(1680, True), (1500, False)]


def test_ladder_list_and_matches(alice: Any, bob: Any) -> None:
    ladder = LadderFactory(slug="classic-2")
    shark = BotVersionFactory(bot=BotFactory(owner=alice, name="shark"))
    turtle = BotVersionFactory(bot=BotFactory(owner=bob, name="turtle"))
    match = finished_match(ladder, [shark, turtle], ranks=[2, 1])
    ratings_apply(match=match)
    api = client_for()

    assert [row["slug"] for row in api.get("/api/ladders/").json()["results"]] == ["classic-2"]
    assert api.get("/api/ladders/classic-2/").json()["seats"] == 2
    page = api.get("/api/ladders/classic-2/matches/").json()
    assert [m["id"] for m in page["results"]] == [match.pk]
    detail = api.get(f"/api/matches/{match.pk}/").json()
    assert detail["rated"] is True
    assert detail["rated_at"] is not None
    assert [(p["bot"], p["rank"], p["rating_after"]) for p in detail["participants"]] == [
        ("shark", 2, 1430.0),
        ("turtle", 1, 1570.0),
    ]
    assert api.get("/api/matches/999999/").status_code == 404
    assert api.get("/api/ladders/nope/leaderboard/").status_code == 404


def test_schema_and_health() -> None:
    api = client_for()
    assert api.get("/api/schema/").status_code == 200
    assert api.get("/healthz").json() == {"status": "ok"}
