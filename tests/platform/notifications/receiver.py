"""A webhook receiver for the tests: a local HTTP server in a thread of the test process,
answering each POST with the next status of a script, recording what it got."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes


@dataclass
class Receiver:
    url: str
    statuses: list[int]
    received: list[Received] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


@contextmanager
def receiver(statuses: Sequence[int] = (200,), location: str = "") -> Iterator[Receiver]:
    """A server on 127.0.0.1 answering ``statuses`` in turn (the last one thereafter), with
    a ``Location`` header if given; stopped on the way out, whatever happened."""
    state = Receiver(url="", statuses=list(statuses))

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            with state.lock:
                state.received.append(Received(dict(self.headers.items()), body))
                status = state.statuses.pop(0) if len(state.statuses) > 1 else state.statuses[0]
            self.send_response(status)
            if location:
                self.send_header("Location", location)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/hook"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
