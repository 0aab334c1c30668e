"""The Las Vegas Arena bots SDK: what bot programs and the arena share.

A bot subclasses :class:`Bot` and calls :func:`run`; ``docs/protocol.md``
describes what :func:`run` speaks, for bots written without the SDK.
"""

from .bot import Bot, run

__all__ = ["Bot", "run"]
