"""The base of the platform's domain errors.

Services raise subclasses of :class:`ArenaError` for anything a user can fix;
the API turns them into HTTP 400 with the message, the admin shows them as
form errors. Each subclass carries a stable ``code`` for clients.
"""

from __future__ import annotations


class ArenaError(Exception):
    """A request the platform refuses; ``str(error)`` says what to change."""

    code = "invalid"

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)
