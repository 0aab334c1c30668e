"""The person's seat at a table, in the worker: a thread that speaks the bot protocol for them.

The referee talks to every seat through a process: for the person's it
launches ``relay/pipe.py`` (trusted, the platform's own code),
which carries the lines to this thread over a Unix socket. A ``request`` is
stored on the table (``table_ask``) for the page to show; the thread then
looks for the answer the person posts (``table_act``) and sends it on. It
never answers by itself: a person who walked away is forfeited by the
referee's clock (the person's own, long decision limit), which kills the
relay and so ends this thread's part; the fallback policy plays the rest of the game.

The thread also beats for the worker (``table_heartbeat``) about every second,
from the seat's start to the game's end, the person's thinking included: a
table silent for ARENA_TABLE_LEASE_SECONDS lost its worker and fails. A
table failed so while its worker lives (only slow) stops its seat: the
referee forfeits it and the bots end a game nobody follows any more.
"""

from __future__ import annotations

import logging
import select
import shutil
import socket
import tempfile
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connection

from bots_sdk import protocol
from bots_sdk.launcher import BotSpec
from bots_sdk.protocol import Limits, MessageType

from .models import Table
from .selectors import table_answer_get
from .services import table_ask, table_heartbeat

log = logging.getLogger(__name__)

#: The relay process's script, alone in its folder: run from there, no module of ours
#: can shadow the standard library's it imports.
RELAY_DIR = Path(__file__).resolve().parent / "relay"
RELAY_SCRIPT = "pipe.py"
#: How often the thread looks for the person's answer (and for the relay ending).
POLL_S = 0.25
#: How often it beats for the worker (a quarter of the lease if that is shorter).
BEAT_S = 1.0
#: The relay process starts in milliseconds; a loaded worker gets a margin.
STARTUP_MS = 10_000
#: The person's limit is per decision; their bank covers any game.
BANK_MS = 6 * 3600 * 1000
CHUNK = 64 * 1024


class PersonSeat:
    """The person's seat of ``table`` for one game: use as a context manager around the
    referee's match, seat :attr:`spec` with :attr:`limits` (``player_limits``)."""

    def __init__(self, table: Table) -> None:
        self.table_id = table.pk
        self.limits = Limits(
            startup_ms=STARTUP_MS,
            decision_ms=table.decision_seconds * 1000,
            bank_ms=max(BANK_MS, table.decision_seconds * 1000),
        )
        self.name = table.player.get_username()
        #: A failure of ours (the database) that left the person unable to answer.
        self.error: BaseException | None = None
        self._stop = threading.Event()
        self._beat_every = min(BEAT_S, settings.ARENA_TABLE_LEASE_SECONDS / 4)
        self._last_beat = time.monotonic()  # table_start beat
        self._folder = Path(tempfile.mkdtemp(prefix="seat"))  # 0700: this user only
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._path = self._folder / "s"
        self.spec = BotSpec(
            name=self.name,
            bot_dir=RELAY_DIR,
            main=RELAY_SCRIPT,
            trusted=True,
            env={"ARENA_RELAY_SOCKET": str(self._path)},
        )
        self._thread = threading.Thread(
            target=self._serve, name=f"table-{self.table_id}-person", daemon=True
        )

    def __enter__(self) -> PersonSeat:
        self._listener.bind(str(self._path))
        self._listener.listen(1)
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
        self._listener.close()
        shutil.rmtree(self._folder, ignore_errors=True)

    # ------------------------------------------------------------------ the thread
    def _serve(self) -> None:
        try:
            try:
                peer = self._accept()
                if peer is not None:
                    with peer:
                        self._converse(peer)
            except Exception as error:
                log.exception("table %s: the person's seat failed", self.table_id)
                self.error = error
            # The person's part is over (the game ended, or they forfeited and the bots
            # play on): the worker still says it is alive until the game ends.
            while not self._stop.wait(POLL_S):
                self._beat()
        finally:
            connection.close()  # this thread's own database connection

    def _beat(self) -> None:
        if time.monotonic() - self._last_beat < self._beat_every:
            return
        self._last_beat = time.monotonic()
        try:
            playing = table_heartbeat(table_id=self.table_id)
        except DatabaseError as error:  # passing: the next beat tries again
            log.warning("table %s: heartbeat not written: %s", self.table_id, error)
            return
        if not playing:
            log.warning(
                "table %s is no longer being played (failed as lost): its seat stops",
                self.table_id,
            )
            self._stop.set()

    def _accept(self) -> socket.socket | None:
        while not self._stop.is_set():
            if select.select([self._listener], [], [], POLL_S)[0]:
                peer, _ = self._listener.accept()
                return peer
            self._beat()
        return None

    def _converse(self, peer: socket.socket) -> None:
        buffer = bytearray()
        asked: int | None = None
        while not self._stop.is_set():
            if select.select([peer], [], [], POLL_S)[0]:
                data = peer.recv(CHUNK)
                if not data:
                    return  # the relay ended: the referee is done with this seat
                buffer += data
                while (end := buffer.find(b"\n")) >= 0:
                    message = protocol.decode(bytes(buffer[:end]))
                    del buffer[: end + 1]
                    if message["type"] == MessageType.SHUTDOWN:
                        return
                    asked = self._on_message(peer, message, asked)
            try:
                if asked is not None:
                    answer = table_answer_get(table_id=self.table_id, request_id=asked)
                    if answer is not None:
                        peer.sendall(protocol.encode(protocol.action(asked, answer)))
                        asked = None
            except DatabaseError as error:  # passing: the next round tries again
                log.warning("table %s: cannot read the person's answer: %s", self.table_id, error)
            self._beat()

    def _on_message(
        self, peer: socket.socket, message: dict[str, Any], asked: int | None
    ) -> int | None:
        """Handle one message of the referee; the request now waiting for the person."""
        kind = message["type"]
        if kind == MessageType.HELLO:
            peer.sendall(protocol.encode(protocol.ready(self.name)))
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
