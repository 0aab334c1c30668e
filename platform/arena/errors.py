"""The base of the platform's domain errors.

Services raise subclasses of :class:`ArenaError` for anything a user can fix;
the API turns them into HTTP 400 with the message (or the subclass's
``http_status``: 409 for a request the resource's state refuses, 429 for a
player over a limit of theirs, 503 when the platform's shared capacity is full,
with ``retry_after``), the admin shows them as form errors. Each subclass
carries a stable ``code`` for clients.
"""

from __future__ import annotations


class ArenaError(Exception):
    """A request the platform refuses; ``str(error)`` says what to change."""

    code = "invalid"
    #: 409 for a request the resource's state refuses whatever the request says.
    http_status = 400
    #: Seconds a client should wait before trying again (a Retry-After header), if any.
    retry_after: int | None = None

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)
