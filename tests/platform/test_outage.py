"""A real outage: the platform started against a database server that is not there.

No patching: a process whose DATABASE_URL names a closed port answers the API
with a JSON 503 that says to retry, and the health check says it is down.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

from .worker import REPO_DIR, process_env

ASK = """
import json
from django.test import Client
client = Client(raise_request_exception=False)  # as a server: the 500 handler answers
for path in ("/api/ladders/", "/api/bots/", "/healthz"):
    response = client.get(path)
    print(json.dumps([path, response.status_code, response.get("Retry-After"),
                      response.get("Content-Type"), response.content.decode()[:300]]))
"""


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port  # nothing listens once the socket is closed


def test_the_api_answers_json_503_while_the_database_is_down(tmp_path: Path) -> None:
    env = process_env(
        tmp_path,
        DATABASE_URL=f"postgres://postgres@127.0.0.1:{closed_port()}/arena",
        SECRET_KEY="tests-only-secret-key",
        ALLOWED_HOSTS="testserver",
    )
    done = subprocess.run(
        [sys.executable, str(REPO_DIR / "manage.py"), "shell", "-c", ASK],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [line for line in done.stdout.splitlines() if line.startswith('["/')]
    answers = {path: rest for path, *rest in map(json.loads, lines)}
    for path in ("/api/ladders/", "/api/bots/"):
        status, retry_after, content_type, body = answers[path]
        assert (status, retry_after, content_type) == (503, "30", "application/json"), body
        assert json.loads(body)["code"] == "unavailable"
    assert answers["/healthz"][0] == 503
