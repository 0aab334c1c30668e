"""The bot page's ladders and challenge forms, and the challenge page."""

from __future__ import annotations

from typing import Any

import pytest

from arena.ladders.flows import ladder_create
from arena.ladders.models import Challenge, Entry, Ladder
from arena.matches.models import Match
from tests.platform.factories import BotFactory, BotVersionFactory
from tests.platform.scenes import enter, never_run
from tests.platform.web.test_web import client_for, text_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def ladders() -> tuple[Ladder, Ladder]:
    return (
        ladder_create(slug="classic-2", name="Classic, 2 seats", rules="classic", seats=2),
        ladder_create(slug="cardgame-3", name="Card game, 3 seats", rules="cardgame", seats=3),
    )


def test_the_owner_changes_the_ladders_others_cannot(
    alice: Any, bob: Any, ladders: tuple[Ladder, Ladder]
) -> None:
    classic, cards = ladders
    shark = BotVersionFactory(bot=BotFactory(owner=alice, name="shark"))
    enter(shark, classic)

    page = client_for(alice).get(f"/bots/{shark.bot_id}/")
    text = text_of(page)
    assert "Classic, 2 seats classic, 2 seats passed" in text
    assert 'id="enter-cardgame-3"' in page.content.decode()  # offered to its owner
    assert 'id="entries-form"' not in client_for(bob).get(f"/bots/{shark.bot_id}/").content.decode()

    done = client_for(alice).post(f"/bots/{shark.bot_id}/ladders/", {"ladders": [cards.pk]})
    assert done.status_code == 302 and done["Location"].endswith("#ladders")
    assert list(Entry.objects.values_list("ladder__slug", flat=True)) == ["cardgame-3"]
    assert (
        client_for(bob)
        .post(f"/bots/{shark.bot_id}/ladders/", {"ladders": [classic.pk]})
        .status_code
        == 403
    )
    none = client_for(alice).post(f"/bots/{shark.bot_id}/ladders/", {}, follow=True)  # one client
    assert "Choose at least one ladder" in text_of(none)
    assert list(Entry.objects.values_list("ladder__slug", flat=True)) == ["cardgame-3"]


def test_a_challenge_from_the_bot_page_lands_on_its_page_for_its_requester_only(
    alice: Any, bob: Any, ladders: tuple[Ladder, Ladder], monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.ladders import tasks

    never_run(monkeypatch, tasks.match_run)
    classic, _ = ladders
    shark = BotVersionFactory(bot=BotFactory(owner=alice, name="shark"))
    turtle = BotVersionFactory(bot=BotFactory(owner=bob, name="turtle"))
    enter(shark, classic)
    enter(turtle, classic)
    page = client_for(alice).get(f"/bots/{shark.bot_id}/").content.decode()
    assert 'id="challenge-form"' in page and "turtle (bob)" in page

    browser = client_for(alice)
    sent = browser.post(
        f"/bots/{shark.bot_id}/challenge/",
        {"ladder": classic.pk, "opponents": [turtle.bot_id], "games": 2},
    )
    if not sent["Location"].startswith("/challenges/"):
        raise AssertionError(text_of(browser.get(sent["Location"]))[:300])
    challenge = Challenge.objects.get()
    assert sent.status_code == 302 and sent["Location"] == f"/challenges/{challenge.pk}/"
    shown = text_of(client_for(alice).get(sent["Location"]))
    assert "shark v1 on the game of Classic, 2 seats · 2 games · unrated" in shown
    assert shown.count("queued") == 2 and Match.objects.filter(rated=False).count() == 2
    assert client_for(bob).get(sent["Location"]).status_code == 404

    refused = browser.post(
        f"/bots/{shark.bot_id}/challenge/", {"ladder": classic.pk, "games": 99}, follow=True
    )
    assert "The challenge was not sent: ask for 1 to 10 games, not 99." in text_of(refused)
    assert Challenge.objects.count() == 1
