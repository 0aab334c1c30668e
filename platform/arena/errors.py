"""The base of the platform's domain errors.

Services raise subclasses of :class:`ArenaError` for anything a user can fix;
the API turns them into HTTP 400 (or the subclass's ``http_status``) with the
message, the admin shows them as form errors. Each subclass carries a stable
``code`` for clients.
"""

from __future__ import annotations


class ArenaError(Exception):
    """A request the platform refuses; ``str(error)`` says what to change."""

    code = "invalid"
    #: 409 for a request the resource's state refuses whatever the request says.
    http_status = 400

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)
