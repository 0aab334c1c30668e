"""A person's seat as a process, for the referee: its lines to the worker and back.

The referee talks to every seat through a process on its stdin and stdout.
This one (trusted: the platform's own code, never sandboxed) only carries
the lines between those pipes and the Unix socket named by
ARENA_RELAY_SOCKET, where the worker's thread for the seat
(``arena.tables.seating``) answers for the person. It ends when either side
closes; the referee kills it when the person runs out of time.

Standard library only, run as a script: it starts in a few milliseconds.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import socket

CHUNK = 64 * 1024


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def relay(seat: socket.socket) -> None:
    with selectors.DefaultSelector() as selector:
        selector.register(0, selectors.EVENT_READ)
        selector.register(seat, selectors.EVENT_READ)
        while True:
            for key, _ in selector.select():
                if key.fileobj == 0:
                    data = os.read(0, CHUNK)
                    if not data:
                        return
                    seat.sendall(data)
                else:
                    data = seat.recv(CHUNK)
                    if not data:
                        return
                    write_all(1, data)


def main() -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as seat:
        seat.connect(os.environ["ARENA_RELAY_SOCKET"])
        # The other side going away (a broken pipe, a reset) leaves nothing to carry.
        with contextlib.suppress(ConnectionError):
            relay(seat)


if __name__ == "__main__":
    main()
