"""The levels: the Levels page, a bot's levels beaten, a level as a challenge or Play opponent."""

from __future__ import annotations

import re
from typing import Any

import pytest

from arena.bots.models import Bot, BotVersion, VersionStatus, Visibility
from arena.ladders.flows import ladder_create
from arena.ladders.levels import BEATEN_MIN_GAMES, has_beaten, levels_met
from arena.ladders.models import Challenge, Ladder
from arena.matches.models import Match, MatchStatus
from arena.tables.models import Table
from bots_sdk.levels import LEVELS
from tests.platform.factories import BotFactory, BotVersionFactory, RatingFactory, finished_match
from tests.platform.ladders.test_match_pipeline import house_bot, player_bot
from tests.platform.scenes import enter
from tests.platform.web.test_web import client_for, text_of
from tests.platform.worker import GOOD_BOT

pytestmark = pytest.mark.django_db


@pytest.fixture
def ladder() -> Ladder:
    return ladder_create(slug="classic-4", name="Classic, 4 seats", rules="classic", seats=4)


def level_bot(house: Any, name: str) -> BotVersion:
    """A house bot of a level, as load_house_bots makes it (no real code needed here)."""
    return BotVersionFactory(bot=BotFactory(owner=house, name=name))


def games(ladder: Ladder, mine: BotVersion, level: BotVersion, ahead: int, behind: int) -> None:
    """Finished 4-seat games of ``mine`` and ``level``: ``ahead`` won by mine, ``behind`` lost."""
    filler = [BotVersionFactory(), BotVersionFactory()]
    for _ in range(ahead):
        finished_match(ladder, [mine, level, *filler], [1, 2, 3, 4])
    for _ in range(behind):
        finished_match(ladder, [mine, level, *filler], [3, 1, 2, 4])


def test_the_rule_needs_enough_games_and_more_ahead_than_behind() -> None:
    assert has_beaten(games=BEATEN_MIN_GAMES, ahead=11, behind=9)
    assert not has_beaten(games=BEATEN_MIN_GAMES, ahead=10, behind=10)
    assert not has_beaten(games=BEATEN_MIN_GAMES - 1, ahead=BEATEN_MIN_GAMES - 1, behind=0)
    # Equal ranks count neither way: 5 ahead, 3 behind and 12 shared is beaten.
    assert has_beaten(games=BEATEN_MIN_GAMES, ahead=5, behind=3)


def test_which_levels_alice_s_bot_has_beaten_per_ladder(
    alice: Any, bob: Any, house: Any, ladder: Ladder
) -> None:
    other = ladder_create(slug="sixdice-4", name="Six dice, 4 seats", rules="sixdice", seats=4)
    shark = BotVersionFactory(bot=BotFactory(owner=alice, name="shark"))
    shark_v2 = BotVersionFactory(bot=shark.bot, number=2, status=VersionStatus.RETIRED)
    greedy = level_bot(house, "greedy")
    montecarlo = level_bot(house, "montecarlo")
    random = level_bot(house, "random")
    games(ladder, shark, greedy, ahead=8, behind=5)
    games(ladder, shark_v2, greedy, ahead=4, behind=3)  # every version of the bot counts
    games(ladder, shark, montecarlo, ahead=10, behind=10)
    games(other, shark, random, ahead=BEATEN_MIN_GAMES - 1, behind=0)
    # A game where both tied (ranks shared) counts as a game, neither ahead nor behind.
    finished_match(ladder, [shark, greedy], [1, 1])
    # Unfinished games and games without the level do not count.
    finished_match(ladder, [shark, greedy], [1, 2], status=MatchStatus.CANCELLED)
    finished_match(ladder, [shark, BotVersionFactory()], [1, 2])

    records = {(r.ladder.slug, r.level.bot): r for r in levels_met(bot=shark.bot, user=alice)}
    assert set(records) == {
        ("classic-4", "greedy"),
        ("classic-4", "montecarlo"),
        ("sixdice-4", "random"),
    }
    versus_greedy = records["classic-4", "greedy"]
    assert (versus_greedy.games, versus_greedy.ahead, versus_greedy.behind) == (21, 12, 8)
    assert versus_greedy.same == 1 and versus_greedy.beaten
    assert versus_greedy.level.number == 3
    assert len(versus_greedy.latest) == 5
    assert versus_greedy.latest == sorted(versus_greedy.latest, reverse=True)
    assert not records["classic-4", "montecarlo"].beaten  # as often behind as ahead
    assert not records["sixdice-4", "random"].beaten  # one game short

    page = client_for(bob).get(f"/bots/{shark.bot_id}/")
    html = page.content.decode()
    block = html[html.index('id="levels"') :]
    rows = re.findall(r'<tr data-ladder="([\w-]+)" data-level="(\d)">(.*?)</tr>', block, re.S)
    verdicts = {(slug, int(number)): text for slug, number, text in rows}
    assert "beaten" in verdicts["classic-4", 3] and "not beaten" not in verdicts["classic-4", 3]
    assert "not beaten" in verdicts["classic-4", 4]
    assert f"{BEATEN_MIN_GAMES - 1} of {BEATEN_MIN_GAMES} games" in verdicts["sixdice-4", 1]
    assert f'href="/matches/{versus_greedy.latest[0]}/"' in verdicts["classic-4", 3]
    assert f"in at least {BEATEN_MIN_GAMES} finished games" in text_of(page)


def test_a_private_bot_s_games_count_for_its_owner_only(
    alice: Any, bob: Any, carol: Any, house: Any, ladder: Ladder
) -> None:
    shark = BotVersionFactory(bot=BotFactory(owner=alice, name="shark"))
    greedy = level_bot(house, "greedy")
    secret = BotVersionFactory(bot=BotFactory(owner=carol, visibility=Visibility.PRIVATE))
    filler = BotVersionFactory()
    for _ in range(3):
        finished_match(ladder, [shark, greedy, secret, filler], [1, 2, 3, 4])
    finished_match(ladder, [shark, greedy, filler, BotVersionFactory()], [2, 1, 3, 4])

    def seen_by(user: Any) -> tuple[int, int, int]:
        (record,) = levels_met(bot=shark.bot, user=user)
        return record.games, record.ahead, record.behind

    assert seen_by(bob) == (1, 0, 1)
    assert seen_by(carol) == (4, 3, 1)  # staff, and the private bot's owner


def test_the_levels_page_lists_each_level_with_its_live_ratings_and_code(
    bob: Any, house: Any, ladder: Ladder
) -> None:
    greedy = level_bot(house, "greedy")
    RatingFactory(
        ladder=ladder, bot_version=greedy, rating=1612.4, rated_matches=80, deviation=38.2
    )
    page = client_for(bob).get("/levels/")
    assert page.status_code == 200
    html = page.content.decode()
    for level in LEVELS:
        assert f'id="level-{level.number}"' in html
        assert level.title in html and level.description in html
    row = html[html.index('id="level-3"') : html.index('id="level-4"')]
    assert f'href="/bots/{greedy.bot_id}/"' in row
    assert '<span class="elo">1612 <span class="deviation">± 38</span></span>' in row
    assert "(not loaded)" in html[html.index('id="level-5"') :]  # no ismcts bot here
    assert 'href="/levels/"' in html  # in the site's navigation

    code = client_for(bob).get("/levels/5/code/")
    assert code.status_code == 200 and code["Content-Type"].startswith("text/plain")
    assert "class IsmctsBot(Bot):" in code.content.decode()
    assert client_for(bob).get("/levels/99/code/").status_code == 404


def test_alice_challenges_a_level_from_her_bot_s_page_and_it_plays(
    alice: Any, house: Any, django_capture_on_commit_callbacks: Any
) -> None:
    duel = ladder_create(slug="classic-2", name="Classic, 2 seats", rules="classic", seats=2)
    shark = player_bot(alice, "shark", GOOD_BOT)
    enter(shark, duel)
    greedy = house_bot(house, "greedy")
    enter(greedy, duel)
    bystander = BotVersionFactory(bot=BotFactory(owner=alice, name="aardvark"))

    page = client_for(alice).get(f"/bots/{shark.bot_id}/").content.decode()
    form = page[page.index('id="challenge-form"') :]
    options = re.findall(r'<option value="(\d+)"[^>]*>([^<]*)</option>', form)
    labels = [label for _, label in options]
    # The levels first, by number and title; the other bots after them.
    assert labels.index("Level 3: Regular (greedy)") < labels.index(f"{bystander.bot.name} (alice)")

    with django_capture_on_commit_callbacks(execute=True):
        sent = client_for(alice).post(
            f"/bots/{shark.bot_id}/challenge/",
            {"ladder": duel.pk, "opponents": [greedy.bot_id], "games": 2},
        )
    challenge = Challenge.objects.get()
    assert sent.status_code == 302 and sent["Location"] == f"/challenges/{challenge.pk}/"
    assert list(challenge.chosen.all()) == [greedy.bot]
    matches = list(Match.objects.order_by("pk"))
    assert [m.status for m in matches] == [MatchStatus.FINISHED] * 2
    assert all(
        {p.bot_version_id for p in m.participants.all()} == {shark.pk, greedy.pk} for m in matches
    )


def test_the_api_takes_a_level_as_a_chosen_opponent(
    alice: Any, house: Any, django_capture_on_commit_callbacks: Any
) -> None:
    duel = ladder_create(slug="classic-2", name="Classic, 2 seats", rules="classic", seats=2)
    shark = player_bot(alice, "shark", GOOD_BOT)
    enter(shark, duel)
    level = house_bot(house, "random")
    enter(level, duel)
    with django_capture_on_commit_callbacks(execute=True):
        answer = client_for(alice).post(
            "/api/challenges/",
            {"bot": shark.bot_id, "ladder": "classic-2", "opponents": [level.bot_id]},
            format="json",
        )
    assert answer.status_code == 201, answer.content
    assert answer.json()["chosen"] == [level.bot_id]
    (match,) = Match.objects.all()
    assert match.status == MatchStatus.FINISHED
    assert {p.bot_version.bot.name for p in match.participants.all()} == {"shark", "random"}


def test_the_play_page_offers_the_levels_first_and_seats_one(
    alice: Any, house: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.tables import flows

    monkeypatch.setattr(flows, "_queue_play", lambda table: None)
    versions = {name: house_bot(house, name) for name in ("random", "greedy")}
    html = client_for(alice).get("/play/").content.decode()
    field = html[html.index('name="bot_1"') :]
    field = field[: field.index("</select>")]
    labels = re.findall(r"<option[^>]*>([^<]*)</option>", field)
    assert labels[1:3] == ["Level 1: Tourist (random)", "Level 3: Regular (greedy)"]

    greedy: Bot = versions["greedy"].bot
    response = client_for(alice).post(
        "/play/", {"rules": "classic", "seats": "2", "seat": "0", "bot_1": str(greedy.pk)}
    )
    table = Table.objects.get(player=alice)
    assert response.status_code == 302
    assert [s.bot_version_id for s in table.table_seats.order_by("seat")] == [
        None,
        versions["greedy"].pk,
    ]


def test_the_api_lists_the_levels_with_their_bots(bob: Any, house: Any) -> None:
    greedy = level_bot(house, "greedy")
    answer = client_for(bob).get("/api/levels/")
    assert answer.status_code == 200
    levels = answer.json()
    assert [level["number"] for level in levels] == [level.number for level in LEVELS]
    assert levels[2] == {
        "number": 3,
        "title": "Regular",
        "description": LEVELS[2].description,
        "name": "greedy",
        "bot": greedy.bot_id,
        "owner": "house",
        "team": None,
    }
    assert levels[4]["bot"] is None and levels[4]["owner"] is None  # not loaded here
    assert levels[4]["team"] is None
    assert client_for(bob).get("/api/").json()["endpoints"]["levels"].endswith("/api/levels/")


def test_a_level_s_own_page_has_no_levels_beaten(alice: Any, house: Any, ladder: Ladder) -> None:
    greedy = level_bot(house, "greedy")
    random = level_bot(house, "random")
    games(ladder, greedy, random, ahead=BEATEN_MIN_GAMES, behind=0)
    assert levels_met(bot=greedy.bot, user=alice) == []
    page = text_of(client_for(alice).get(f"/bots/{greedy.bot_id}/"))
    assert "greedy is level 3, Regular: Takes the action" in page
    assert "Has not met a level yet." not in page
