"""Pages that follow work in progress (htmx polling): a version's validation, a ladder's
queue and latest results."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from arena.bots.models import BotVersion, VersionStatus
from arena.matches.models import Match, MatchStatus
from tests.platform.factories import BotFactory, BotVersionFactory, LadderFactory
from tests.platform.scenes import play_match
from tests.platform.web.test_web import client_for, text_of

pytestmark = pytest.mark.django_db


def test_every_page_loads_htmx_from_the_platform() -> None:
    html = Client().get("/").content.decode()
    assert '<script src="/static/django_htmx/htmx-2.min.js" defer></script>' in html


def test_a_waiting_version_polls_and_a_decided_one_stops(alice: Any) -> None:
    version = BotVersionFactory(bot=BotFactory(owner=alice, name="shark"))
    BotVersion.objects.filter(pk=version.pk).update(status=VersionStatus.PENDING)
    url = f"/bots/{version.bot_id}/versions/"
    page = client_for(alice).get(f"/bots/{version.bot_id}/").content.decode()
    assert f'hx-get="{url}" hx-trigger="every 2s"' in page
    assert "this updates by itself" in page

    fragment = client_for(alice).get(url)
    assert fragment.status_code == 200
    html = fragment.content.decode()
    assert html.lstrip().startswith("{#") is False and 'id="versions"' in html
    assert "<html" not in html and "hx-trigger" in html

    BotVersion.objects.filter(pk=version.pk).update(status=VersionStatus.ACTIVE)
    done = client_for(alice).get(url).content.decode()
    assert "hx-trigger" not in done and ">active<" in done


def test_the_versions_fragment_keeps_the_pages_rules(alice: Any, bob: Any) -> None:
    private = BotVersionFactory(bot=BotFactory(owner=alice, name="hidden", visibility="private"))
    assert client_for(bob).get(f"/bots/{private.bot_id}/versions/").status_code == 404
    assert client_for(alice).get(f"/bots/{private.bot_id}/versions/").status_code == 200


def test_the_ladder_shows_its_queue_and_latest_results_and_polls(alice: Any, bob: Any) -> None:
    ladder = LadderFactory(slug="pairs", seats=2)
    a = BotVersionFactory(bot=BotFactory(owner=alice, name="shark"))
    b = BotVersionFactory(bot=BotFactory(owner=bob, name="turtle"))
    finished, _ = play_match(ladder, [a, b], 5)
    queued, _ = play_match(ladder, [a, b], 6)
    running, _ = play_match(ladder, [b, a], 7)
    Match.objects.filter(pk=queued.pk).update(status=MatchStatus.QUEUED, finished_at=None)
    Match.objects.filter(pk=running.pk).update(status=MatchStatus.RUNNING, finished_at=None)

    page = Client().get("/ladders/pairs/").content.decode()
    assert 'hx-get="/ladders/pairs/live/" hx-trigger="every 5s"' in page
    live = Client().get("/ladders/pairs/live/")
    assert live.status_code == 200
    text = text_of(live)
    assert "1 running · 1 queued" in text
    html = live.content.decode()
    queue = html[html.index('id="queue"') : html.index('id="latest-matches"')]
    # Running first, then queued.
    assert queue.index(f'data-match="{running.pk}"') < queue.index(f'data-match="{queued.pk}"')
    assert f'data-match="{finished.pk}"' not in queue
    latest = html[html.index('id="latest-matches"') :]
    assert f'data-match="{finished.pk}"' in latest and f'data-match="{queued.pk}"' not in latest
    assert Client().get("/ladders/nothing/live/").status_code == 404


def test_a_private_bots_queued_match_shows_to_its_owner_only(alice: Any, bob: Any) -> None:
    ladder = LadderFactory(slug="pairs", seats=2)
    hidden = BotVersionFactory(bot=BotFactory(owner=alice, name="hidden", visibility="private"))
    other = BotVersionFactory(bot=BotFactory(owner=bob, name="turtle"))
    match, _ = play_match(ladder, [hidden, other], 5)
    Match.objects.filter(pk=match.pk).update(status=MatchStatus.QUEUED, finished_at=None)
    assert (
        f'data-match="{match.pk}"'
        not in client_for(bob).get("/ladders/pairs/live/").content.decode()
    )
    assert (
        f'data-match="{match.pk}"' in client_for(alice).get("/ladders/pairs/live/").content.decode()
    )


def test_a_long_queue_shows_its_head_and_counts_the_rest(
    alice: Any, bob: Any, django_assert_max_num_queries: Any
) -> None:
    """A league queues a whole round on its ladder at once: the block shows the first of
    the queue and counts every match the visitor may see, in a few queries."""
    ladder = LadderFactory(slug="pairs", seats=2)
    a = BotVersionFactory(bot=BotFactory(owner=alice, name="shark"))
    b = BotVersionFactory(bot=BotFactory(owner=bob, name="turtle"))
    hidden = BotVersionFactory(bot=BotFactory(owner=alice, name="hidden", visibility="private"))
    made = [play_match(ladder, [a, b], seed)[0] for seed in range(14)]
    secret, _ = play_match(ladder, [hidden, b], 99)
    Match.objects.filter(pk__in=[m.pk for m in [*made, secret]]).update(
        status=MatchStatus.QUEUED, finished_at=None
    )
    Match.objects.filter(pk=made[-1].pk).update(status=MatchStatus.RUNNING)

    client = client_for(bob)
    # session, user, ladder, then the block's: hidden versions, the queue's visible ids,
    # its head + seats, latest
    with django_assert_max_num_queries(8):
        live = client.get("/ladders/pairs/live/")
    text = text_of(live)
    assert "1 running · 13 queued" in text  # not Alice's private test match
    html = live.content.decode()
    queue = html[html.index('id="queue"') : html.index("</ol>", html.index('id="queue"'))]
    shown = [int(pk) for pk in re.findall(r'data-match="(\d+)"', queue)]
    # Running first, then the oldest queued: ten in all, and the count of the others.
    assert shown == [made[-1].pk, *(m.pk for m in made[:9])]
    assert "and 4 more queued." in text
    assert "1 running · 14 queued" in text_of(client_for(alice).get("/ladders/pairs/live/"))
