"""Absolute links for notifications: e-mails and webhooks leave from workers, outside any
request, so the site's address is a setting (``ARENA_SITE_URL``)."""

from __future__ import annotations

from django.conf import settings
from django.urls import reverse


def site_link(viewname: str, **kwargs: object) -> str:
    return settings.ARENA_SITE_URL.rstrip("/") + reverse(viewname, kwargs=kwargs or None)
