"""A worker killed with SIGKILL while its table waits for the person: the table fails and
the person's next poll and answer (409) say so, instead of an answer taken for a game
nobody plays. (The beat sweep's part: test_tables.)

Real processes: a Celery worker (prefork) on the test PostgreSQL database and a
Redis queue of its own plays the table (the house bot bare, the person's seat
through its relay); the person is this test, through the API as the page is.
The lease is not waited out: once the worker is dead its last beat is moved
back past the lease, as time would.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.db.models import F
from rest_framework.test import APIClient

from arena.tables.flows import table_create
from arena.tables.models import Table, TableStatus
from arena.tables.services import tables_end_lost
from tests.platform.ladders.test_match_pipeline import house_bot
from tests.platform.worker import needs_redis, needs_shared_database, redis_worker, wait_for

pytestmark = [needs_shared_database, needs_redis, pytest.mark.django_db(transaction=True)]


def test_a_table_whose_worker_is_killed_fails_and_refuses_the_answer(
    alice: Any, house: Any, media_root: Path, tmp_path: Path, settings: Any
) -> None:
    greedy = house_bot(house, "greedy").bot
    client = APIClient()
    client.force_authenticate(alice)
    with redis_worker(tmp_path, media_root) as (worker, _):
        table = table_create(player=alice, rules="classic", seats=2, seat=0, opponents=[greedy])

        def asking() -> Table | None:
            current = Table.objects.get(pk=table.pk)
            return current if current.request_id is not None else None

        asked = wait_for(asking, timeout=60, what="the worker to ask the person")
        assert asked.status == TableStatus.PLAYING and asked.heartbeat_at is not None

        # While the person thinks, the worker beats.
        def beaten() -> bool:
            beat = Table.objects.get(pk=table.pk).heartbeat_at
            return beat is not None and asked.heartbeat_at is not None and beat > asked.heartbeat_at

        wait_for(beaten, timeout=30, what="the worker to beat while the person thinks")
        shown = client.get(f"/api/tables/{table.pk}/").json()
        assert shown["status"] == "playing" and shown["decision"]["request"] == asked.request_id

        worker.kill()
        killed = Table.objects.get(pk=table.pk)
        assert killed.status == TableStatus.PLAYING  # nothing of the worker's said otherwise
        # Its lease runs out (moved back, not waited for): no beat came since the kill.
        lease = timedelta(seconds=settings.ARENA_TABLE_LEASE_SECONDS + 1)
        assert Table.objects.filter(pk=table.pk, heartbeat_at=killed.heartbeat_at).update(
            heartbeat_at=F("heartbeat_at") - lease
        )

        # The page's next poll finds the worker gone: the table fails, no decision shown.
        polled = client.get(f"/api/tables/{table.pk}/").json()
        assert (polled["status"], polled["decision"]) == ("failed", None)
        assert polled["error"].startswith("its worker is gone")
        # The person's answer to the decision they saw is refused, saying why.
        refused = client.post(
            f"/api/tables/{table.pk}/act/",
            {"request": asked.request_id, "action": asked.observation["legal_actions"][0]},
            format="json",
        )
        assert refused.status_code == 409, refused.json()
        body = refused.json()
        assert body["code"] == "table_stopped"
        assert body["detail"].startswith("this table's game stopped: its worker is gone")
        assert body["detail"].endswith("; start a new table.")

        failed = Table.objects.get(pk=table.pk)
        assert (failed.status, failed.answer, failed.request_id) == (TableStatus.FAILED, "", None)
        assert tables_end_lost() == 0  # already failed: the sweep has nothing left
