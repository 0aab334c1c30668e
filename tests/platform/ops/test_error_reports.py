"""The optional error-reporting hook: with SENTRY_DSN set, a process reports its errors
(Django's and Celery's integrations on); unset, the SDK is not even loaded."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.platform.worker import process_env

# A platform process: Django set up from the settings, one error logged, reports flushed.
SCRIPT = """
import json, logging, sys
import django
django.setup()
logging.getLogger("arena.example").error("something broke: %s", sys.argv[1])
loaded = "sentry_sdk" in sys.modules
integrations = []
if loaded:
    import sentry_sdk
    integrations = sorted(sentry_sdk.get_client().integrations)
    sentry_sdk.flush(timeout=10)
print(json.dumps({"loaded": loaded, "integrations": integrations}))
"""


class Collector(BaseHTTPRequestHandler):
    """Stands in for Sentry: keeps every envelope posted to it."""

    received: list[bytes]

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        self.server.received.append(body)  # type: ignore[attr-defined]
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def collector() -> Iterator[ThreadingHTTPServer]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Collector)
    server.received = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def run_process(tmp_path: Path, marker: str, **env: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, marker],
        env=process_env(tmp_path, SECRET_KEY="tests-only-secret-key", **env),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_with_sentry_dsn_a_logged_error_is_reported(
    tmp_path: Path, collector: ThreadingHTTPServer
) -> None:
    marker = uuid.uuid4().hex
    port = collector.server_address[1]
    result = run_process(
        tmp_path,
        marker,
        SENTRY_DSN=f"http://publickey@127.0.0.1:{port}/42",
        SENTRY_ENVIRONMENT="staging-test",
    )
    assert result["loaded"] is True
    assert {"django", "celery", "logging"} <= set(result["integrations"])  # type: ignore[arg-type]
    envelopes = b"\n".join(collector.received).decode()  # type: ignore[attr-defined]
    assert f"something broke: {marker}" in envelopes
    assert '"environment":"staging-test"' in envelopes.replace(" ", "")


def test_without_sentry_dsn_nothing_is_loaded_or_sent(tmp_path: Path) -> None:
    result = run_process(tmp_path, uuid.uuid4().hex)
    assert result == {"loaded": False, "integrations": []}
