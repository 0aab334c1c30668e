"""Celery tasks of players: the verification e-mail."""

from __future__ import annotations

from celery import shared_task

from .models import User
from .services import email_verification_send as send


# An SMTP server that refuses or cannot be reached (OSError): tried again, a few times.
@shared_task(
    name="arena.players.tasks.email_verification_send",
    autoretry_for=(OSError,),
    retry_backoff=60,
    retry_jitter=False,
    max_retries=4,
)
def email_verification_send(user_id: int) -> None:
    user = User.objects.filter(pk=user_id, is_active=True).first()
    if user is not None:
        send(user=user)
