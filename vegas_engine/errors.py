"""The engine's exceptions: one specific class per kind of bad input.

Every error names what was wrong and what is allowed, so a bot author or a
platform operator can fix the input without reading the engine's code.
"""

from __future__ import annotations

from collections.abc import Sequence


class VegasError(Exception):
    """Base class of every error the engine raises on purpose."""


class InvalidDescriptionError(VegasError, ValueError):
    """A game description names an unknown rule system, option or value."""

    def __init__(self, field: str, message: str, allowed: Sequence[object] = ()) -> None:
        self.field = field
        self.allowed = tuple(allowed)
        text = f"{field}: {message}"
        if self.allowed:
            text += "; allowed: " + ", ".join(str(value) for value in self.allowed)
        super().__init__(text)


class IllegalActionError(VegasError, ValueError):
    """An action that the deciding seat may not take now; the state is unchanged."""

    def __init__(self, seat: int | None, action: object, legal: Sequence[str], reason: str) -> None:
        self.seat = seat
        self.action = action
        self.legal = tuple(legal)
        shown = ", ".join(self.legal) if self.legal else "none"
        super().__init__(f"illegal action {action!r} for seat {seat}: {reason}; legal: {shown}")


class GameOverError(IllegalActionError):
    """An action was applied to a finished game."""

    def __init__(self, action: object) -> None:
        super().__init__(None, action, (), "the game is over")


class InvalidPositionError(VegasError, ValueError):
    """A position (``state.position()``'s JSON) that is malformed or cannot happen."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(f"position {field}: {message}")


class LogError(VegasError, ValueError):
    """A game log cannot be used: base class of the log errors."""


class CorruptLogError(LogError):
    """A log is not valid JSON, is truncated, or breaks the log schema."""

    def __init__(self, where: str, message: str) -> None:
        self.where = where
        super().__init__(f"corrupt game log at {where}: {message}")


class ReplayMismatchError(LogError):
    """Re-running a log produced a different event than the log records."""

    def __init__(self, index: int, expected: object, actual: object) -> None:
        self.index = index
        self.expected = expected
        self.actual = actual
        super().__init__(
            f"replay differs at event {index}: the log has {expected!r}, "
            f"the engine produced {actual!r}"
        )
