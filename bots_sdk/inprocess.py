"""Seats played inside the referee's own process: a person at a table, a test double.

The referee speaks the bot protocol to every seat through a pair of pipes and
watches a file descriptor that tells when the seat ended. A bot is a process
(:func:`~bots_sdk.launcher.launch_bot`); an :class:`InProcessSeat` is a thread
of this process behind the same pipes, so it needs no relay process and the
referee treats both alike: the same messages, the same clock and faults. It
runs no code of a bot's, so it is never sandboxed, and it is charged the wall
time it takes (it uses no CPU of its own that the clock could tell apart)::

    class Person(InProcessSeat):
        def serve(self, channel: SeatChannel) -> None:
            while (message := channel.receive(timeout=0.25)) is not False:
                ...  # answer hello with ready, requests with actions

    Match([in_process(Person("alice")), house_bot("greedy")], limits)  # bots_sdk.launcher
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import threading
import time
from abc import ABC, abstractmethod
from typing import Any

from . import protocol
from .sandbox import CpuTimes, ProcessOutcome

log = logging.getLogger(__name__)

#: How long :meth:`ThreadSeatProcess.close` waits for the seat's thread to return.
CLOSE_WAIT_S = 10.0
#: The longest line the referee sends is a request: far below this.
READ_CHUNK = 64 * 1024


class SeatClosedError(Exception):
    """The referee is done with the seat (it closed its end, or stopped the seat)."""


class SeatChannel:
    """The seat's end of its pipes: messages from the referee, replies to it."""

    def __init__(self, incoming: int, outgoing: int, stopped: threading.Event) -> None:
        self._incoming = incoming
        self._outgoing = outgoing
        self._stopped = stopped
        self._buffer = bytearray()

    @property
    def stopped(self) -> bool:
        """Whether the referee stopped the seat (its time ran out, or the game ended)."""
        return self._stopped.is_set()

    def receive(self, timeout: float) -> dict[str, Any] | None:
        """The referee's next message, or None if none came within ``timeout`` seconds.

        Raises :class:`SeatClosedError` once the referee closed its end or stopped the
        seat, and :class:`~bots_sdk.protocol.ProtocolError` for a line that is no message.
        """
        while (end := self._buffer.find(b"\n")) < 0:
            if self._stopped.is_set():
                raise SeatClosedError("the referee stopped the seat")
            if not select.select([self._incoming], [], [], timeout)[0]:
                return None
            data = os.read(self._incoming, READ_CHUNK)
            if not data:
                raise SeatClosedError("the referee closed the seat's input")
            self._buffer += data
        line = bytes(self._buffer[:end])
        del self._buffer[: end + 1]
        return protocol.decode(line)

    def send(self, message: dict[str, Any]) -> None:
        """Write one message to the referee (raises :class:`SeatClosedError` once it is gone)."""
        view = memoryview(protocol.encode(message))
        try:
            while view:
                view = view[os.write(self._outgoing, view) :]
        except BrokenPipeError:
            raise SeatClosedError("the referee closed the seat's output") from None


class InProcessSeat(ABC):
    """A seat the referee plays through a thread of its own process (see the module)."""

    def __init__(self, name: str) -> None:
        self.name = name

    @abstractmethod
    def serve(self, channel: SeatChannel) -> None:
        """Speak the bot protocol on ``channel`` until the game is over for this seat:
        ``shutdown`` received, or :class:`SeatClosedError` (which may simply propagate).

        Runs in a thread of its own. Anything else it raises ends the seat; the referee
        sees a bot that exited, and :attr:`ThreadSeatProcess.error` keeps the error.
        """


class ThreadSeatProcess:
    """An :class:`InProcessSeat` running, with the interface the referee reads of a bot
    process (:class:`~bots_sdk.sandbox.BotProcess`): its pipes, an end descriptor,
    its (unknown) CPU times, and an outcome when closed."""

    #: Not a bare process: the referee has no process group or /proc entry to read.
    trusted = False
    pid = 0

    def __init__(self, seat: InProcessSeat) -> None:
        self.seat = seat
        #: What the seat's ``serve`` raised, other than the referee closing it.
        self.error: BaseException | None = None
        self._stopped = threading.Event()
        self._started = time.monotonic()
        self._ended: float | None = None
        self._outcome: ProcessOutcome | None = None
        to_seat_read, to_seat_write = os.pipe()
        from_seat_read, from_seat_write = os.pipe()
        self._end_read, self._end_write = os.pipe()
        self._seat_fds = (to_seat_read, from_seat_write)
        self.stdin = open(to_seat_write, "wb", buffering=0)  # noqa: SIM115 (closed by close)
        self.stdout = open(from_seat_read, "rb")  # noqa: SIM115
        self._thread = threading.Thread(target=self._run, name=f"seat-{seat.name}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self.seat.serve(SeatChannel(*self._seat_fds, self._stopped))
        except SeatClosedError:
            pass
        except Exception as error:  # kept for the caller; the seat ends
            log.exception("in-process seat %s failed", self.seat.name)
            self.error = error
        finally:
            self._ended = time.monotonic()
            for fd in self._seat_fds:
                os.close(fd)
            os.close(self._end_write)  # the end descriptor becomes readable (EOF)

    # ------------------------------------------------------- what the referee reads
    def poll(self) -> int | None:
        """0 once the seat's thread returned (1 if it failed), None while it runs."""
        if self._thread.is_alive():
            return None
        return 0 if self.error is None else 1

    def exit_fd(self) -> int:
        """Readable once the seat's thread has returned."""
        return self._end_read

    def kill(self) -> None:
        """Stop the seat: its channel raises :class:`SeatClosedError` at its next call."""
        self._stopped.set()

    def closed_pipes(self) -> tuple[bool, bool] | None:
        return None  # the pipes themselves tell: EOF and EPIPE reach the referee

    def cpu_times(self) -> CpuTimes:
        return CpuTimes(None, None)  # a thread of the referee's: charged its wall time

    def usage(self) -> dict[str, int | float | None]:
        return {}

    def stderr_written(self) -> int:
        return 0

    def stderr_full(self) -> bool:
        return False

    def stderr_read(self, start: int, size: int) -> bytes:
        return b""

    def close(self, timeout: float = 0.0, stderr_bytes: int = 4096) -> ProcessOutcome:
        """Close the seat's input, give it ``timeout`` seconds to return, then stop it
        and wait for its thread (our own code: it returns at its next channel call)."""
        if self._outcome is not None:
            return self._outcome
        with contextlib.suppress(OSError):
            self.stdin.close()
        self._thread.join(timeout if timeout > 0 else 0)
        killed = self._thread.is_alive()
        self._stopped.set()
        self._thread.join(CLOSE_WAIT_S)
        if self._thread.is_alive():
            log.warning("in-process seat %s did not return when stopped", self.seat.name)
        error = "" if self.error is None else f"{type(self.error).__name__}: {self.error}"
        self._outcome = ProcessOutcome(
            exit_code=None if killed else (0 if self.error is None else 1),
            signal=None,
            killed=killed,
            oom_killed=False,
            memory_peak_bytes=None,
            cpu_seconds=None,
            pids_peak=None,
            wall_seconds=(self._ended or time.monotonic()) - self._started,
            stderr_tail=error.encode()[-stderr_bytes:],
            stderr_truncated=False,
            trusted=True,
        )
        for closing in (self.stdout.close, lambda: os.close(self._end_read)):
            with contextlib.suppress(OSError):
                closing()
        return self._outcome
