"""The optional error-reporting hook: Sentry's SDK, started by the settings when
SENTRY_DSN is set (docs/deploy.md, Monitoring)."""

from __future__ import annotations

import logging


def start_error_reports(*, dsn: str, environment: str) -> None:
    """Report unhandled errors of web requests and tasks, and every ERROR logged.

    No performance tracing and no personal data (send_default_pii off): reports
    carry the stack and the request's path, never a player's address or cookies.
    """
    # Imported here: a platform without SENTRY_DSN never loads the SDK.
    import sentry_sdk
    from sentry_sdk.integrations.celery import CeleryIntegration
    from sentry_sdk.integrations.django import DjangoIntegration
    from sentry_sdk.integrations.logging import LoggingIntegration

    sentry_sdk.init(
        dsn=dsn,
        environment=environment,
        integrations=[
            DjangoIntegration(),
            CeleryIntegration(),
            LoggingIntegration(level=logging.INFO, event_level=logging.ERROR),
        ],
        traces_sample_rate=0.0,
        send_default_pii=False,
    )
