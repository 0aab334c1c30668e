"""A webhook delivered by a real Celery worker (prefork, Redis, the test PostgreSQL): the
receiver answers 500 first, the worker retries with its backoff, then delivers, signed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.notifications import flows, services
from arena.notifications.models import Delivery, DeliveryStatus
from tests.platform.worker import needs_redis, needs_shared_database, redis_worker, wait_for

from .conftest import documented_verify
from .receiver import receiver

pytestmark = [
    pytest.mark.slow,
    needs_shared_database,
    needs_redis,
    pytest.mark.django_db(transaction=True),
]


def test_a_worker_retries_a_failed_webhook_then_delivers_it(
    alice: Any, tmp_path: Path, media_root: Path
) -> None:
    alice.email = ""  # the webhook alone
    alice.save()
    with receiver([500, 200]) as hook:
        endpoint = services.webhook_set(user=alice, url=hook.url)
        with redis_worker(
            tmp_path,
            media_root,
            # The receiver is on loopback; the first retry after a second.
            ARENA_WEBHOOK_ALLOW_PRIVATE="1",
            ARENA_NOTIFY_RETRY_BASE_SECONDS="1",
        ) as (worker, _):
            (queued,) = flows.test_send(user=alice)

            def delivered() -> Delivery | None:
                delivery = Delivery.objects.get(pk=queued.pk)
                if delivery.status == DeliveryStatus.FAILED:
                    raise AssertionError(f"gave up: {delivery.last_error}\n{worker.log()[-3000:]}")
                return delivery if delivery.status == DeliveryStatus.SENT else None

            delivery = wait_for(delivered, timeout=60, what="the webhook to be delivered")
    assert (delivery.attempts, delivery.last_response) == (2, 200)
    assert len(hook.received) == 2
    verify = documented_verify()
    assert all(verify(endpoint.secret, got.headers, got.body) for got in hook.received)
    assert "Retry in 1s" in worker.log()
