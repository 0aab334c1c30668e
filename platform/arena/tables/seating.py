"""The person's seat at a table, in the worker: a seat the referee plays in-process.

The referee speaks the bot protocol to the person's seat as to any bot, through
pipes, but the seat is a thread of the worker (:class:`bots_sdk.inprocess.InProcessSeat`),
not a process. A ``request`` is stored on the table (``table_ask``) for the page to
show; the seat then looks for the answer the person posts (``table_act``) and sends it
on. It never answers by itself: a person who walked away is forfeited by the
referee's clock (the person's own, long decision limit), which stops the seat; the
fallback policy plays the rest of the game.

Beside it, from the seat's start to the game's end (the person's thinking and the bots'
play after a forfeit included), a thread beats for the worker (``table_heartbeat``)
about every second: a table silent for ARENA_TABLE_LEASE_SECONDS lost its worker and
fails. A table failed so while its worker lives (only slow) stops its seat: the
referee forfeits it and the bots end a game nobody follows any more.
"""

from __future__ import annotations

import logging
import threading
from types import TracebackType
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connection

from bots_sdk import protocol
from bots_sdk.inprocess import InProcessSeat, SeatChannel, SeatClosedError
from bots_sdk.launcher import in_process
from bots_sdk.protocol import Limits, MessageType

from .models import Table
from .selectors import table_answer_get
from .services import table_ask, table_heartbeat

log = logging.getLogger(__name__)

#: How often the seat looks for the person's answer.
POLL_S = 0.25
#: How often it beats for the worker (a quarter of the lease if that is shorter).
BEAT_S = 1.0
#: An in-process seat starts at once; a loaded worker gets a margin all the same.
STARTUP_MS = 10_000
#: The person's limit is per decision; their bank covers any game.
BANK_MS = 6 * 3600 * 1000


class PersonSeat(InProcessSeat):
    """The person's seat of ``table`` for one game: use as a context manager around the
    referee's match, seat :attr:`spec` with :attr:`limits` (``player_limits``)."""

    def __init__(self, table: Table) -> None:
        super().__init__(table.player.get_username())
        self.table_id = table.pk
        self.limits = Limits(
            startup_ms=STARTUP_MS,
            decision_ms=table.decision_seconds * 1000,
            bank_ms=max(BANK_MS, table.decision_seconds * 1000),
        )
        self.spec = in_process(self)
        #: A failure of ours (the database) that left the person unable to answer.
        self.error: BaseException | None = None
        self._over = threading.Event()  # the game is over: the beats stop
        self._lost = threading.Event()  # the table is no longer played: the seat stops
        self._beat_every = min(BEAT_S, settings.ARENA_TABLE_LEASE_SECONDS / 4)
        self._beats = threading.Thread(
            target=self._beat_until_over, name=f"table-{self.table_id}-beats", daemon=True
        )

    def __enter__(self) -> PersonSeat:
        self._beats.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._over.set()
        self._beats.join(timeout=10)

    # ------------------------------------------------------------ the seat's thread
    def serve(self, channel: SeatChannel) -> None:
        try:
            asked: int | None = None
            while not self._lost.is_set():
                message = channel.receive(timeout=POLL_S)
                if message is not None:
                    if message["type"] == MessageType.SHUTDOWN:
                        return
                    asked = self._on_message(channel, message, asked)
                if asked is not None and (answer := self._answer(asked)) is not None:
                    channel.send(protocol.action(asked, answer))
                    asked = None
        except SeatClosedError:
            raise  # the referee is done with the seat: no failure
        except Exception as error:  # a database failure of ours: the table fails
            self.error = error
            raise
        finally:
            connection.close()  # this thread's own database connection

    def _answer(self, asked: int) -> str | None:
        try:
            return table_answer_get(table_id=self.table_id, request_id=asked)
        except DatabaseError as error:  # passing: the next round tries again
            log.warning("table %s: cannot read the person's answer: %s", self.table_id, error)
            return None

    def _on_message(
        self, channel: SeatChannel, message: dict[str, Any], asked: int | None
    ) -> int | None:
        """Handle one message of the referee; the request now waiting for the person."""
        kind = message["type"]
        if kind == MessageType.HELLO:
            channel.send(protocol.ready(self.name))
        elif kind == MessageType.REQUEST:
            # Stored for the page; a database failure here is ours (the person could not
            # answer): raised, recorded, and the table fails rather than count it.
            table_ask(
                table_id=self.table_id,
                request_id=message["id"],
                observation=message["observation"],
                time_ms=message["time_left_ms"],
            )
            return int(message["id"])
        return asked

    # ------------------------------------------------------------ the beats' thread
    def _beat_until_over(self) -> None:
        try:
            while not self._over.wait(self._beat_every):
                self._beat()
        finally:
            connection.close()

    def _beat(self) -> None:
        try:
            playing = table_heartbeat(table_id=self.table_id)
        except DatabaseError as error:  # passing: the next beat tries again
            log.warning("table %s: heartbeat not written: %s", self.table_id, error)
            return
        if not playing and not self._lost.is_set():
            log.warning(
                "table %s is no longer being played (failed as lost): its seat stops",
                self.table_id,
            )
            self._lost.set()
