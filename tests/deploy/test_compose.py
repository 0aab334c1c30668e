"""docker-compose.yml for real: build the images, start the stack, play a bot.

Runs only where a Docker engine answers (skipped otherwise, with the reason),
once per Compose found: Debian's ``docker-compose`` (1.29) and ``docker
compose`` (v2); ``ARENA_COMPOSE="docker compose"`` picks one. The base image
``las-vegas-arena/debian:bookworm`` is built first when missing
(``scripts/docker_base_image.sh``: root and debootstrap). Each run has a
project name and a free host port of its own, and removes its containers,
network and volumes at the end; the images stay (the next build is cached).

Behind a TLS-inspecting proxy pip in the build needs its CA: the test passes
``PIP_CA_CERTS`` from the environment, else the certificates added to this
machine's store (``/usr/local/share/ca-certificates/*.crt``).
"""

from __future__ import annotations

import json
import os
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO_DIR = Path(__file__).resolve().parents[2]
BASE_IMAGE = "las-vegas-arena/debian:bookworm"
LADDER = "classic-2"

BOT = b"""\
from bots_sdk import Bot, run


class FirstLegal(Bot):
    def act(self, observation):
        return observation["legal_actions"][0]


if __name__ == "__main__":
    run(FirstLegal)
"""

# The worker container's processes but docker-init and this listing's own (an exec
# gets the container's capabilities): "<name> <bounding set>" per line.
_LIST_CAPS = (
    "for p in /proc/[0-9]*; do n=$(cat $p/comm 2>/dev/null) || continue; "
    'case "$n" in docker-init|sh|cat|awk) continue;; esac; '
    'echo "$n $(awk \'$1 == "CapBnd:" { print $2 }\' $p/status)"; done'
)

pytestmark = [pytest.mark.slow, pytest.mark.docker, pytest.mark.timeout(2400)]


def _answers(command: list[str]) -> bool:
    try:
        done = subprocess.run(command, capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def _engine_skip_reason() -> str | None:
    if shutil.which("docker") is None:
        return "no docker client (apt-get install docker.io)"
    if not _answers(["docker", "info"]):
        return "no Docker engine answers (start dockerd)"
    return None


def _composes() -> list[Any]:
    """Each Compose implementation present, as a pytest param."""
    chosen = os.environ.get("ARENA_COMPOSE")
    if chosen:
        return [pytest.param(shlex.split(chosen), id=chosen.replace(" ", "-"))]
    found = []
    if shutil.which("docker-compose") and _answers(["docker-compose", "version"]):
        found.append(pytest.param(["docker-compose"], id="docker-compose"))
    if shutil.which("docker") and _answers(["docker", "compose", "version"]):
        found.append(pytest.param(["docker", "compose"], id="docker-compose-v2"))
    if not found:
        found.append(
            pytest.param(
                None,
                id="no-compose",
                marks=pytest.mark.skip(reason="neither docker-compose nor `docker compose`"),
            )
        )
    return found


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _pip_ca_certs() -> str:
    if "PIP_CA_CERTS" in os.environ:
        return os.environ["PIP_CA_CERTS"]
    extra = sorted(Path("/usr/local/share/ca-certificates").glob("**/*.crt"))
    return "".join(path.read_text() for path in extra)


class Stack:
    """One Compose project of docker-compose.yml, talked to over its HTTP API."""

    def __init__(self, compose: list[str]) -> None:
        self.compose = compose
        self.project = f"arenatest{uuid.uuid4().hex[:8]}"
        self.port = _free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.env = {
            **os.environ,
            "SECRET_KEY": secrets.token_urlsafe(50),
            "POSTGRES_PASSWORD": secrets.token_urlsafe(16),
            "REDIS_PASSWORD": secrets.token_hex(16),
            "WEB_PORT": str(self.port),
            "PIP_CA_CERTS": _pip_ca_certs(),
            "WORKER_CONCURRENCY": "2",
        }
        self.token = ""

    def run(self, *args: str, timeout: float = 1800, check: bool = True) -> str:
        command = [*self.compose, "-p", self.project, "-f", "docker-compose.yml", *args]
        done = subprocess.run(
            command,
            cwd=REPO_DIR,  # the worker's seccomp profile is a path from here
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if check and done.returncode != 0:
            raise AssertionError(
                f"{shlex.join(command)}: exit {done.returncode}\n{done.stdout[-4000:]}"
                f"\n{done.stderr[-4000:]}"
            )
        return done.stdout

    def request(
        self,
        method: str,
        path: str,
        *,
        body: bytes | None = None,
        content_type: str | None = None,
        expect: int = 200,
    ) -> Any:
        request = urllib.request.Request(self.base + path, data=body, method=method)
        if self.token:
            request.add_header("Authorization", f"Token {self.token}")
        if content_type:
            request.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                status, data = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, data = error.code, error.read()
        assert status == expect, f"{method} {path}: {status} {data[:2000]!r}"
        return json.loads(data)

    def wait_for(self, what: str, probe: Any, timeout: float) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            value = probe()
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"{what}: not within {timeout:.0f} s")
            time.sleep(2)


def _healthy(stack: Stack) -> bool:
    try:
        with urllib.request.urlopen(stack.base + "/healthz", timeout=5) as response:
            return bool(response.status == 200)
    except (OSError, urllib.error.URLError):
        return False


def _multipart(fields: dict[str, str], files: dict[str, tuple[str, bytes]]) -> tuple[bytes, str]:
    """A multipart/form-data body (the files as text/plain) and its content type."""
    boundary = uuid.uuid4().hex
    parts = []
    for name, value in fields.items():
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'
            f"{value}\r\n".encode()
        )
    for name, (filename, content) in files.items():
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; '
            f'filename="{filename}"\r\nContent-Type: text/plain\r\n\r\n'.encode()
            + content
            + b"\r\n"
        )
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


@pytest.fixture(params=_composes())
def stack(request: pytest.FixtureRequest) -> Iterator[Stack]:
    reason = _engine_skip_reason()
    if reason:
        pytest.skip(reason)
    compose: list[str] = request.param
    if not _answers(["docker", "image", "inspect", BASE_IMAGE]):
        if os.geteuid() != 0 or shutil.which("debootstrap") is None:
            pytest.skip(f"no {BASE_IMAGE}: run scripts/docker_base_image.sh as root once")
        subprocess.run(
            ["bash", str(REPO_DIR / "scripts/docker_base_image.sh")],
            check=True,
            capture_output=True,
            timeout=1800,
        )
    stack = Stack(compose)
    try:
        started = time.monotonic()
        stack.run("build")
        print(f"build: {time.monotonic() - started:.0f} s")
        started = time.monotonic()
        stack.run("up", "-d")
        stack.wait_for("the web container's /healthz", lambda: _healthy(stack), 300)
        print(f"up, healthy: {time.monotonic() - started:.0f} s")
        yield stack
    except BaseException:
        print(stack.run("ps", check=False))
        print(stack.run("logs", "--no-color", "--tail", "80", check=False)[-20000:])
        raise
    finally:
        stack.run("down", "--volumes", "--remove-orphans", "--timeout", "20", check=False)


def test_an_uploaded_bot_is_validated_in_the_sandbox_and_plays_a_rated_match(
    tmp_path: Path,
    stack: Stack,
) -> None:
    started = time.monotonic()
    # An account, then its token over the API.
    password = secrets.token_urlsafe(16)
    create = (
        "from django.contrib.auth import get_user_model; "
        f"get_user_model().objects.create_user('author', password='{password}')"
    )
    stack.run("exec", "-T", "web", "python", "manage.py", "shell", "-c", create, timeout=120)
    body, content_type = _multipart({"username": "author", "password": password}, {})
    stack.token = stack.request("POST", "/api/auth/token/", body=body, content_type=content_type)[
        "token"
    ]

    # The upload, over the API, entering one ladder.
    body, content_type = _multipart(
        {"name": "firstlegal", "visibility": "public", "ladders": LADDER},
        {"file": ("main.py", BOT)},
    )
    bot = stack.request("POST", "/api/bots/", body=body, content_type=content_type, expect=201)
    bot_id = bot["id"]
    # A compiled one too: the C starter kit, built by the worker's gcc in the sandbox.
    body, content_type = _multipart(
        {"name": "ckit", "visibility": "public", "ladders": LADDER},
        {"file": ("main.c", (REPO_DIR / "bots_sdk/kits/c/main.c").read_bytes())},
    )
    c_bot = stack.request("POST", "/api/bots/", body=body, content_type=content_type, expect=201)

    # Validated in the worker's sandbox (its pre-flight game, as user vegasbot).
    def validated() -> dict[str, Any] | None:
        version: dict[str, Any] = stack.request("GET", f"/api/bots/{bot_id}/versions/1/")
        assert version["status"] != "failed", version
        return version if version["status"] == "active" else None

    version = stack.wait_for("the version's validation", validated, 600)
    print(f"validated: {time.monotonic() - started:.0f} s")
    report = version["validation_report"]
    assert report["sandboxed"] is True and report["passed"] is True, report
    # Only a sandboxed bot has a pids cgroup to count.
    assert report["games"][LADDER]["resources"]["pids_peak"] >= 1, report

    def c_validated() -> bool:
        version: dict[str, Any] = stack.request("GET", f"/api/bots/{c_bot['id']}/versions/1/")
        assert version["status"] != "failed", version
        return version["status"] == "active"

    stack.wait_for("the C bot's build and validation", c_validated, 600)
    print(f"C bot built and validated: {time.monotonic() - started:.0f} s")

    # A rated match of the bot finishes.
    def rated_match() -> dict[str, Any] | None:
        page = stack.request("GET", f"/api/matches/?bot={bot_id}&status=finished")
        for match in page["results"]:
            if match["rated_at"]:  # its Elo applied, not only a match that counts
                return dict(match)
        return None

    match = stack.wait_for("a rated match of the bot", rated_match, 900)
    print(f"rated match {match['id']}: {time.monotonic() - started:.0f} s")
    assert LADDER in json.dumps(match)

    # The site's documentation, rendered from docs/ in the image.
    with urllib.request.urlopen(stack.base + "/docs/getting-started/", timeout=60) as page:
        assert page.status == 200 and b"Getting started" in page.read()

    # The ratings worker, reading the ratings queue alone, applied it.
    ratings_log = stack.run("logs", "--no-color", "ratings")
    assert "arena.ladders.tasks.ratings_apply_match" in ratings_log, ratings_log[-3000:]
    assert "succeeded" in ratings_log

    # The broker keeps its queue on disk (an append-only file in its volume).
    # (Redis asks for its password: the stack's network is shared.)
    appendonly = stack.run(
        "exec",
        "-T",
        "redis",
        "sh",
        "-c",
        'redis-cli -a "$REDIS_PASSWORD" --no-auth-warning config get appendonly',
    )
    anonymous = stack.run("exec", "-T", "redis", "redis-cli", "ping", check=False)
    assert "NOAUTH" in anonymous, anonymous
    assert appendonly.split() == ["appendonly", "yes"], appendonly
    # web runs as arena without a capability; the worker's processes lack CAP_SYS_ADMIN.
    web_status = stack.run("exec", "-T", "web", "cat", "/proc/self/status")
    assert "\nCapEff:\t0000000000000000\n" in web_status, web_status
    assert stack.run("exec", "-T", "web", "id", "-un").strip() == "arena"
    listing = stack.run("exec", "-T", "worker", "sh", "-c", _LIST_CAPS)
    bounding = [line.split() for line in listing.splitlines()]
    assert "celery" in [name for name, _caps in bounding], listing  # the worker, its pool
    assert all(int(caps, 16) & (1 << 21) == 0 for _name, caps in bounding), listing  # SYS_ADMIN

    # Every long-running service passes its healthcheck (web: /readyz; the workers and
    # beat: `manage.py probe`, their heartbeat files), as `docker inspect` reports it.
    def all_healthy() -> bool:
        states = {}
        for service in ("web", "worker", "ratings", "tables", "builds", "beat"):
            container = stack.run("ps", "-q", service).strip()
            states[service] = subprocess.run(
                ["docker", "inspect", "--format", "{{.State.Health.Status}}", container],
                capture_output=True,
                text=True,
                check=False,
            ).stdout.strip()
        print(states)
        return set(states.values()) == {"healthy"}

    stack.wait_for("every service's healthcheck", all_healthy, 300)

    # Its log, over the API.
    log = stack.request("GET", f"/api/matches/{match['id']}/log/")
    assert isinstance(log, dict) and log, log
    assert "firstlegal" in json.dumps(log)

    # A task queued while no worker runs survives a restart of the broker: the
    # next version's pre-flight, validated once its (builds) worker is back (well
    # before beat's sweep would queue it again, after 10 minutes).
    stack.run("stop", "builds", timeout=120)
    body, content_type = _multipart({"ladders": LADDER}, {"file": ("main.py", BOT + b"\n# v2\n")})
    stack.request(
        "POST", f"/api/bots/{bot_id}/versions/", body=body, content_type=content_type, expect=201
    )
    stack.run("restart", "redis", timeout=120)
    stack.run("start", "builds", timeout=120)

    def second_validated() -> bool:
        version: dict[str, Any] = stack.request("GET", f"/api/bots/{bot_id}/versions/2/")
        assert version["status"] != "failed", version
        return version["status"] == "active"

    stack.wait_for("the second version's validation after a broker restart", second_validated, 300)
    print(
        f"second version validated after the broker's restart: {time.monotonic() - started:.0f} s"
    )

    # A service whose process dies (here: killed from the host, as the OOM killer
    # would) comes back by itself, and its healthcheck passes again.
    container = stack.run("ps", "-q", "ratings").strip()

    def inspect(field: str) -> str:
        return subprocess.run(
            ["docker", "inspect", "--format", field, container],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()

    os.kill(int(inspect("{{.State.Pid}}")), signal.SIGKILL)
    stack.wait_for(
        "the killed ratings worker's restart",
        lambda: inspect("{{.RestartCount}}") != "0" and inspect("{{.State.Running}}") == "true",
        120,
    )
    stack.wait_for("every service's healthcheck after the restart", all_healthy, 300)
    # The logs rotate, and no service runs without its memory limit.
    assert inspect("{{.HostConfig.LogConfig.Config}}") == "map[max-file:5 max-size:10m]"
    assert int(inspect("{{.HostConfig.Memory}}")) == 1024**3

    # A backup of the running stack (through `migrate`: straight to PostgreSQL), restored
    # into a new empty database beside it: every table's rows and every named file.
    compose = [*stack.compose, "-p", stack.project, "-f", "docker-compose.yml"]
    backup = tmp_path / "arena.tar"
    with backup.open("wb") as out:
        made = subprocess.run(
            [
                *compose,
                "run",
                "--rm",
                "-T",
                "--no-deps",
                "migrate",
                "python",
                "manage.py",
                "backup_platform",
                "-",
            ],
            cwd=REPO_DIR,
            env=stack.env,
            stdout=out,
            stderr=subprocess.PIPE,
            timeout=600,
        )
    assert made.returncode == 0 and b"backed up" in made.stderr, made.stderr[-3000:]
    stack.run("exec", "-T", "postgres", "createdb", "-U", "arena", "arena_restored")
    restored_url = f"postgres://arena:{stack.env['POSTGRES_PASSWORD']}@postgres:5432/arena_restored"
    with backup.open("rb") as source:
        restored = subprocess.run(
            [
                *compose,
                "run",
                "--rm",
                "-T",
                "--no-deps",
                "-e",
                f"DATABASE_URL={restored_url}",
                "migrate",
                "python",
                "manage.py",
                "restore_platform",
                "-",
            ],
            cwd=REPO_DIR,
            env=stack.env,
            stdin=source,
            capture_output=True,
            timeout=600,
        )
    assert restored.returncode == 0, restored.stderr[-3000:]
    assert b"restored the backup" in restored.stdout and b"checked" in restored.stdout
