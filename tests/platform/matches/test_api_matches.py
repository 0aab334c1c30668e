"""Matches over the API: filters, hidden private matches, logs with stderr for owners only,
and a ladder's logs streamed as JSON Lines."""

from __future__ import annotations

import gzip
import json
import tracemalloc
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.files.storage import default_storage
from django.http import StreamingHttpResponse
from django.utils import timezone

from arena.bots.models import BotVersion
from arena.ladders.models import Ladder
from arena.matches import selectors as match_selectors
from arena.matches.apis import MatchOutput
from arena.matches.models import Match
from tests.platform.api_support import client_for, drf_document, play_match, stderr_of
from tests.platform.factories import (
    BotFactory,
    BotVersionFactory,
    LadderFactory,
    MatchFactory,
    ParticipantFactory,
    finished_match,
)
from vegas_engine import log as game_logs

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


@pytest.fixture
def ladder(db: None) -> Ladder:
    return LadderFactory(slug="classic-2")


@pytest.fixture
def shark(alice: Any) -> BotVersion:
    """Alice's public bot."""
    return BotVersionFactory(bot=BotFactory(owner=alice, name="shark"))


@pytest.fixture
def secret(alice: Any) -> BotVersion:
    """Alice's private bot, which she tests against the others."""
    return BotVersionFactory(bot=BotFactory(owner=alice, name="secret", visibility="private"))


@pytest.fixture
def turtle(bob: Any) -> BotVersion:
    """Bob's public bot."""
    return BotVersionFactory(bot=BotFactory(owner=bob, name="turtle"))


def ids(response: Any) -> list[int]:
    assert response.status_code == 200, response.content
    return [match["id"] for match in response.json()["results"]]


def stream_lines(response: Any) -> list[dict[str, Any]]:
    """Parse a streamed JSON Lines body line by line, checking every line ends with \\n."""
    assert isinstance(response, StreamingHttpResponse)
    assert response["Content-Type"] == "application/jsonl"
    body = b"".join(response.streaming_content)
    assert body == b"" or body.endswith(b"\n")
    return [json.loads(line) for line in body.splitlines()]


# --------------------------------------------------------------------------- lists and filters


def test_match_list_filters_by_ladder_bot_status_and_date(
    ladder: Ladder, shark: BotVersion, turtle: BotVersion, alice: Any
) -> None:
    other = LadderFactory(slug="classic-2b")
    third = BotVersionFactory(bot=BotFactory(owner=alice, name="third"))
    old = finished_match(ladder, [shark, turtle], ranks=[1, 2])
    Match.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=10))
    recent = finished_match(ladder, [third, turtle], ranks=[2, 1])
    elsewhere = finished_match(other, [shark, third], ranks=[1, 2])
    queued = MatchFactory(ladder=ladder)
    api = client_for()
    since = (timezone.now() - timedelta(days=1)).isoformat()

    assert ids(api.get("/api/matches/")) == [queued.pk, elsewhere.pk, recent.pk, old.pk]
    assert ids(api.get("/api/matches/?ladder=classic-2b")) == [elsewhere.pk]
    assert ids(api.get(f"/api/matches/?bot={shark.bot_id}")) == [elsewhere.pk, old.pk]
    assert ids(api.get("/api/matches/?status=queued")) == [queued.pk]
    assert ids(api.get("/api/matches/", {"created_after": since})) == [
        queued.pk,
        elsewhere.pk,
        recent.pk,
    ]
    assert ids(api.get("/api/matches/", {"created_before": since})) == [old.pk]
    both = {"ladder": "classic-2", "bot": turtle.bot_id, "status": "finished"}
    assert ids(api.get("/api/matches/", {**both, "created_after": since})) == [recent.pk]
    assert ids(api.get("/api/matches/?ladder=nope")) == []

    bad = api.get("/api/matches/?status=won&created_after=yesterday&bot=x")
    assert bad.status_code == 400
    assert set(bad.json()) == {"status", "created_after", "bot"}


def test_match_list_pages_by_cursor(ladder: Ladder, shark: BotVersion, turtle: BotVersion) -> None:
    made = [finished_match(ladder, [shark, turtle], ranks=[1, 2]).pk for _ in range(3)]
    api = client_for()

    first = api.get("/api/matches/?page_size=2")
    page = first.json()
    assert "count" not in page  # no COUNT(*) over a million rows
    pages = [[m["id"] for m in page["results"]]]
    while page["next"]:
        page = api.get(page["next"]).json()
        pages.append([m["id"] for m in page["results"]])
    assert pages == [made[:0:-1], made[:1]]


def pages_of(api: Any, url: str) -> list[list[int]]:
    """The ids of every page, following ``next`` links to the end."""
    page = api.get(url).json()
    pages = [[m["id"] for m in page["results"]]]
    while page["next"]:
        page = api.get(page["next"]).json()
        pages.append([m["id"] for m in page["results"]])
    return pages


def test_a_bots_matches_page_through_all_its_versions_and_back(
    ladder: Ladder, shark: BotVersion, secret: BotVersion, turtle: BotVersion, bob: Any
) -> None:
    """A bot's matches are read per version, each from the cursor's position (a house
    bot has a hundred thousand): every page holds the right ones, hidden ones left out,
    forwards and backwards."""
    BotVersion.objects.filter(pk=shark.pk).update(status="retired")  # v2 took over
    newer = BotVersionFactory(bot=shark.bot, number=2)
    other = LadderFactory(slug="classic-2b")
    made = []
    for n in range(9):
        version = shark if n < 5 else newer  # the versions' matches interleave by id
        made.append(finished_match(ladder if n % 3 else other, [version, turtle], [1, 2]).pk)
        # Others' matches between them, and the bot's test matches against Alice's
        # private bot, which only Alice sees.
        finished_match(ladder, [turtle, BotVersionFactory()], [1, 2])
        if n in (2, 6):
            finished_match(ladder, [secret, shark if n < 5 else newer], [2, 1])
    MatchFactory(ladder=ladder)  # queued, not the bot's
    newest_first = made[::-1]
    url = f"/api/matches/?bot={shark.bot_id}&page_size=2"
    api = client_for(bob)

    pages = pages_of(api, url)
    assert pages == [newest_first[i : i + 2] for i in range(0, 9, 2)]
    # Back from the last page by the previous links: the same pages.
    page = api.get(url).json()
    while page["next"]:
        page = api.get(page["next"]).json()
    back = [[m["id"] for m in page["results"]]]
    while page["previous"]:
        page = api.get(page["previous"]).json()
        back.append([m["id"] for m in page["results"]])
    assert back == pages[::-1]
    # With the other filters: inside each version's range, so no page comes up short.
    on_b = [pk for pk in newest_first if Match.objects.get(pk=pk).ladder_id == other.pk]
    assert pages_of(api, f"{url}&ladder=classic-2b") == [on_b[:2], on_b[2:]]
    # Alice sees her test matches too.
    mine = pages_of(client_for(shark.bot.owner), url)
    assert len([pk for page in mine for pk in page]) == 11


# --------------------------------------------------------------------------- outputs


def test_match_output_writes_what_drf_fields_would(
    ladder: Ladder, shark: BotVersion, turtle: BotVersion
) -> None:
    """The list outputs write their fields directly for speed: the same document as
    DRF's field by field serialisation of the declared fields."""
    played = play_match(ladder, [shark, turtle], seed=3)
    queued = MatchFactory(ladder=ladder)
    ParticipantFactory(match=queued, seat=0, bot_version=shark)
    for match in match_selectors.match_list(user=AnonymousUser(), ladder_id=ladder.pk):
        written = MatchOutput(match).data
        assert json.dumps(written) == json.dumps(drf_document(MatchOutput(), match)), match.pk
    assert {m.pk for m in match_selectors.match_list(user=AnonymousUser())} >= {
        played.pk,
        queued.pk,
    }


def test_private_matches_are_hidden_from_others(
    ladder: Ladder,
    secret: BotVersion,
    shark: BotVersion,
    turtle: BotVersion,
    alice: Any,
    bob: Any,
    carol: Any,
) -> None:
    public = play_match(ladder, [shark, turtle], seed=1)
    testing = play_match(ladder, [secret, turtle], seed=2)

    for who in (None, bob):
        api = client_for(who)
        assert ids(api.get("/api/matches/")) == [public.pk]
        assert ids(api.get("/api/ladders/classic-2/matches/")) == [public.pk]
        assert ids(api.get(f"/api/matches/?bot={turtle.bot_id}")) == [public.pk]
        assert api.get(f"/api/matches/{testing.pk}/").status_code == 404
        assert api.get(f"/api/matches/{testing.pk}/log/").status_code == 404
        assert [line["match"]["id"] for line in stream_lines(api.get(LOGS))] == [public.pk]
    # Alice's own test match; Carol is staff.
    for who in (alice, carol):
        api = client_for(who)
        assert ids(api.get("/api/matches/")) == [testing.pk, public.pk]
        assert api.get(f"/api/matches/{testing.pk}/").json()["participants"][0]["bot"] == "secret"
        assert api.get(f"/api/matches/{testing.pk}/log/").status_code == 200


def test_match_detail(ladder: Ladder, shark: BotVersion, turtle: BotVersion) -> None:
    match = play_match(ladder, [shark, turtle], seed=5)
    detail = client_for().get(f"/api/matches/{match.pk}/").json()

    assert (detail["ladder"], detail["status"], detail["seed"], detail["has_log"]) == (
        "classic-2",
        "finished",
        5,
        True,
    )
    assert [(p["seat"], p["bot"], p["owner"]) for p in detail["participants"]] == [
        (0, "shark", "alice"),
        (1, "turtle", "bob"),
    ]
    assert client_for().get("/api/matches/999999/").status_code == 404


@pytest.mark.parametrize("status", ["queued", "running"])
def test_the_seed_of_a_match_still_to_play_is_hidden_from_everyone(
    ladder: Ladder, shark: BotVersion, turtle: BotVersion, alice: Any, carol: Any, status: str
) -> None:
    """With the seed and the engine anyone could compute every roll still to come."""
    live = MatchFactory(ladder=ladder, status=status, seed=424242)
    for seat, version in enumerate([shark, turtle]):
        ParticipantFactory(match=live, seat=seat, bot_version=version)
    played = play_match(ladder, [shark, turtle], seed=5)

    for who in (None, alice, carol):
        api = client_for(who)
        detail = api.get(f"/api/matches/{live.pk}/").json()
        assert (detail["status"], detail["seed"]) == (status, None)
        listed = {m["id"]: m["seed"] for m in api.get("/api/matches/").json()["results"]}
        assert listed == {live.pk: None, played.pk: 5}
        filtered = api.get("/api/matches/", {"status": status}).json()["results"]
        assert [m["seed"] for m in filtered] == [None]
    assert b"424242" not in client_for(carol).get(f"/api/matches/{live.pk}/").content


# --------------------------------------------------------------------------- logs


LOGS = "/api/ladders/classic-2/logs/"


def stored_log(match: Match) -> dict[str, Any]:
    with default_storage.open(match.log.name, "rb") as handle:
        return json.loads(gzip.decompress(handle.read()))  # type: ignore[no-any-return]


def seat_stderr(log: dict[str, Any]) -> list[str]:
    return [seat["fault"]["stderr_tail"] for seat in log["referee"]["seats"]]


def test_a_match_log_is_served_decompressed_with_only_your_own_stderr(
    ladder: Ladder, shark: BotVersion, turtle: BotVersion, alice: Any, bob: Any
) -> None:
    match = play_match(ladder, [shark, turtle], seed=3)
    url = f"/api/matches/{match.pk}/log/"
    stored = stored_log(match)

    as_alice = client_for(alice).get(url).json()
    as_bob = client_for(bob).get(url).json()
    as_anonymous = client_for().get(url).json()

    assert seat_stderr(stored) == [stderr_of(0), stderr_of(1)]
    assert seat_stderr(as_alice) == [stderr_of(0), ""]
    assert seat_stderr(as_bob) == ["", stderr_of(1)]
    assert seat_stderr(as_anonymous) == ["", ""]
    # Everything else is the stored log (its moves), played out to its events.
    assert stored["log_schema"] == 2 and "events" not in stored
    events = game_logs.expand(stored)["events"]
    for log in (as_alice, as_bob, as_anonymous):
        assert log["log_schema"] == 1 and log["events"] == events
        assert log["seed"] == 3 and log["referee"]["result"] == stored["referee"]["result"]
        assert [s["fault"]["kind"] for s in log["referee"]["seats"]] == ["crashed", "crashed"]
    # As stored, on request: the moves, with the same redaction.
    moves = client_for(bob).get(url, {"form": "moves"}).json()
    assert moves["moves"] == stored["moves"] and seat_stderr(moves) == ["", stderr_of(1)]
    assert game_logs.expand(moves)["events"] == events


def test_a_log_stored_in_the_events_form_is_served_as_it_is(
    ladder: Ladder, shark: BotVersion, turtle: BotVersion
) -> None:
    # Matches played before the moves form stored every event: both forms give them.
    match = play_match(ladder, [shark, turtle], seed=3, events_log=True)
    stored = stored_log(match)
    url = f"/api/matches/{match.pk}/log/"
    for form in ("events", "moves"):
        log = client_for().get(url, {"form": form}).json()
        assert log["log_schema"] == 1 and log["events"] == stored["events"]
    moves = client_for().get(f"/api/matches/{play_match(ladder, [shark, turtle], 3).pk}/log/")
    assert moves.json()["events"] == stored["events"], "the same game, from its moves"


def test_a_log_form_that_does_not_exist_is_a_clear_error(
    ladder: Ladder, shark: BotVersion, turtle: BotVersion
) -> None:
    match = play_match(ladder, [shark, turtle], seed=3)
    response = client_for().get(f"/api/matches/{match.pk}/log/", {"form": "compact"})
    assert response.status_code == 400
    assert response.json() == {
        "form": "'compact' is not a log form: use events (the default) or moves."
    }


def test_a_match_without_a_log_has_no_log(ladder: Ladder, shark: BotVersion) -> None:
    queued = MatchFactory(ladder=ladder)
    assert client_for().get(f"/api/matches/{queued.pk}/log/").status_code == 404
    assert client_for().get("/api/matches/999999/log/").status_code == 404


def test_ladder_logs_stream_as_json_lines_oldest_first_with_redaction(
    ladder: Ladder, shark: BotVersion, turtle: BotVersion, alice: Any, bob: Any, monkeypatch: Any
) -> None:
    # Smaller chunks than matches: the stream must cross chunk boundaries.
    monkeypatch.setattr(match_selectors, "LOG_STREAM_CHUNK", 2)
    played = [play_match(ladder, [shark, turtle], seed=seed) for seed in range(5)]
    other = LadderFactory(slug="elsewhere")
    play_match(other, [shark, turtle], seed=9)
    MatchFactory(ladder=ladder)  # queued: no log yet

    for who, visible in ((alice, [0]), (bob, [1]), (None, [])):
        response = client_for(who).get(LOGS)
        assert response.status_code == 200
        lines = stream_lines(response)
        assert [line["match"]["id"] for line in lines] == [m.pk for m in played]
        for line, match in zip(lines, played, strict=True):
            assert line["log"]["seed"] == match.seed
            assert line["match"]["participants"][0]["bot"] == "shark"
            assert seat_stderr(line["log"]) == [
                stderr_of(seat) if seat in visible else "" for seat in (0, 1)
            ]


def test_ladder_logs_filter_by_finish_time_and_unknown_ladders_404(
    ladder: Ladder, shark: BotVersion, turtle: BotVersion
) -> None:
    first, second = (play_match(ladder, [shark, turtle], seed=seed) for seed in (1, 2))
    Match.objects.filter(pk=first.pk).update(finished_at=timezone.now() - timedelta(hours=2))
    hour_ago = (timezone.now() - timedelta(hours=1)).isoformat()
    api = client_for()

    after = stream_lines(api.get(LOGS, {"finished_after": hour_ago}))
    before = stream_lines(api.get(LOGS, {"finished_before": hour_ago}))

    assert [line["match"]["id"] for line in after] == [second.pk]
    assert [line["match"]["id"] for line in before] == [first.pk]
    missing = api.get("/api/ladders/nope/logs/")
    assert missing.status_code == 404
    assert json.loads(missing.content.splitlines()[0])["detail"]
    bad = api.get(LOGS, {"finished_after": "soon"}, HTTP_ACCEPT="application/json")
    assert bad.status_code == 400 and "finished_after" in bad.json()


def test_an_empty_ladder_streams_nothing(ladder: Ladder) -> None:
    assert stream_lines(client_for().get(LOGS)) == []


def test_the_log_stream_holds_one_chunk_in_memory_whatever_the_ladder_size(
    ladder: Ladder, shark: BotVersion, turtle: BotVersion, monkeypatch: Any
) -> None:
    monkeypatch.setattr(match_selectors, "LOG_STREAM_CHUNK", 4)

    def stream() -> tuple[int, int, int]:
        """Lines and bytes streamed, and the peak of memory allocated meanwhile."""
        lines = size = 0
        tracemalloc.start()
        try:
            response = client_for().get(LOGS)
            for chunk in response.streaming_content:  # consumed line by line, never joined
                lines += chunk.count(b"\n")
                size += len(chunk)
            return lines, size, tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    # One deal replayed: every log the same size, so the peak cannot follow a longer
    # game met only in the larger ladder.
    for _ in range(10):
        play_match(ladder, [shark, turtle], seed=7)
    stream()  # imports and caches of a first request
    small = stream()
    for _ in range(10, 80):
        play_match(ladder, [shark, turtle], seed=7)
    large = stream()

    assert (small[0], large[0]) == (10, 80)
    # Streamed one chunk at a time, the peak stays where it was; holding the stream
    # would add at least the extra lines' bytes to it.
    assert large[2] - small[2] < (large[1] - small[1]) / 2, (small, large)
