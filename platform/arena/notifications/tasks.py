"""Celery tasks of the notifications: deliver one delivery, retrying with backoff."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from arena.queueing import publish

from .models import Delivery
from .services import DeliveryRetry, deliveries_lost, delivery_attempt


# Retries: ARENA_NOTIFY_RETRY_BASE_SECONDS, doubling each time, at most an hour apart;
# the service stops them after ARENA_NOTIFY_MAX_ATTEMPTS (the delivery is then failed).
@shared_task(
    name="arena.notifications.tasks.delivery_send",
    autoretry_for=(DeliveryRetry,),
    retry_backoff=settings.ARENA_NOTIFY_RETRY_BASE_SECONDS,
    retry_backoff_max=3600,
    retry_jitter=False,
    max_retries=None,
)
def delivery_send(delivery_id: int) -> None:
    delivery = Delivery.objects.filter(pk=delivery_id).first()
    if delivery is not None:
        delivery_attempt(delivery=delivery)


@shared_task(name="arena.notifications.tasks.deliveries_requeue_lost")
def deliveries_requeue_lost() -> int:
    """Beat: pending deliveries whose message was lost are queued again."""
    ids = deliveries_lost()
    for delivery_id in ids:
        publish(delivery_send, delivery_id)
    return len(ids)
