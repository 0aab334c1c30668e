"""A real Celery worker process for the end-to-end tests, and the means to talk to it.

The worker is ``celery -A arena worker`` (prefork, one process, as deployed)
started with the test's settings in its environment: the test database
(``DATABASE_URL``; tests use ``django_db(transaction=True)`` so the worker
sees their commits), a Redis broker on a queue of its own (runs sharing the
Redis server never take each other's tasks), and the test's media folder.
:func:`publishing_to` makes the services of the test process publish to that
queue instead of running tasks eagerly.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import pytest
from celery import Celery
from django.conf import settings

from .conftest import IS_POSTGRES

REPO_DIR = Path(__file__).resolve().parents[2]
REDIS_URL = "redis://127.0.0.1:6379/13"
T = TypeVar("T")


def redis_up() -> bool:
    try:
        with socket.create_connection(("127.0.0.1", 6379), timeout=0.5):
            return True
    except OSError:
        return False


# A worker shares the test database on PostgreSQL only (the SQLite one is in memory).
needs_shared_database = pytest.mark.skipif(
    not IS_POSTGRES, reason="a worker shares the test database on PostgreSQL only"
)
needs_redis = pytest.mark.skipif(not redis_up(), reason="no Redis on 127.0.0.1:6379")
# Threads of this process writing at once (a game played beside its person or watcher):
# SQLite's in-memory test database locks whole tables across connections, where the
# embedded mode's file database waits (WAL, a busy timeout).
needs_concurrent_writes = pytest.mark.skipif(
    not IS_POSTGRES, reason="threads writing at once need PostgreSQL's test database"
)


def test_database_url() -> str:
    """The URL of the database the tests run on (the test database, once created)."""
    db = settings.DATABASES["default"]
    if db["ENGINE"] != "django.db.backends.postgresql":
        raise RuntimeError("a worker shares the test database on PostgreSQL only")
    user = db.get("USER") or "postgres"
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{user}{password}@{db['HOST']}:{db['PORT']}/{db['NAME']}"


def process_env(data_dir: Path, **extra: str) -> dict[str, str]:
    """The environment of a platform process: this one's, minus what the test conftest set."""
    cleared = (
        "DATABASE_URL",
        "CELERY_BROKER_URL",
        "CELERY_RESULT_BACKEND",
        "CELERY_TASK_ALWAYS_EAGER",
        "SECRET_KEY",
        "MEDIA_ROOT",
    )
    env = {k: v for k, v in os.environ.items() if k not in cleared}
    env.update(
        ARENA_DATA_DIR=str(data_dir),
        DJANGO_SETTINGS_MODULE="arena.settings",
        PYTHONPATH=os.pathsep.join([str(REPO_DIR), str(REPO_DIR / "platform")]),
        **extra,
    )
    return env


def wait_for(check: Callable[[], T | None], *, timeout: float, what: str, every: float = 0.2) -> T:
    """Poll ``check`` until it returns something, or fail saying what never happened."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value is not None and value is not False:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(every)


class CeleryWorker:
    """``celery -A arena worker`` in its own process group, logging to a file; ``args``
    add to its command line (``-Q`` queues, ``--concurrency``: the last one given wins)."""

    def __init__(self, env: dict[str, str], log_path: Path, args: Sequence[str] = ()) -> None:
        self.env = env
        self.log_path = log_path
        self.args = tuple(args)
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> CeleryWorker:
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "celery",
                    "-A",
                    "arena",
                    "worker",
                    "--pool=prefork",
                    "--concurrency=1",
                    "--loglevel=INFO",
                    f"--hostname=test-{uuid.uuid4().hex[:8]}@%h",
                    # No broadcast chatter with other workers on the same Redis.
                    "--without-gossip",
                    "--without-mingle",
                    "--without-heartbeat",
                    *self.args,
                ],
                env=self.env,
                cwd=self.env["ARENA_DATA_DIR"],
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        return self

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def wait_ready(self, timeout: float = 60) -> CeleryWorker:
        assert self.process is not None
        starts = self.log().count(" ready.")

        def ready() -> bool:
            if self.process is not None and self.process.poll() is not None:
                raise AssertionError(f"the worker stopped:\n{self.log()[-4000:]}")
            return self.log().count(" ready.") > starts

        wait_for(ready, timeout=timeout, what="the worker to be ready")
        return self

    def kill(self) -> None:
        """SIGKILL the worker and its pool, as the OOM killer or a lost machine would."""
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


@contextmanager
def embedded_broker(data_dir: Path) -> Iterator[Path]:
    """The embedded mode's broker for ``data_dir``, as `make run` starts it
    (scripts/broker.sh: Redis on ``run/redis.sock`` there); yields its socket once it
    answers, and stops it on the way out, whatever happened."""
    import redis

    env = {**os.environ, "ARENA_DATA_DIR": str(data_dir)}
    log = (data_dir / "broker.log").open("wb")
    server = subprocess.Popen(
        ["bash", str(REPO_DIR / "scripts" / "broker.sh")], env=env, stdout=log, stderr=log
    )
    socket_path = data_dir / "run" / "redis.sock"
    try:

        def answers() -> bool:
            assert server.poll() is None, (data_dir / "broker.log").read_text()
            try:
                return bool(redis.Redis(unix_socket_path=str(socket_path)).ping())
            except redis.exceptions.ConnectionError:
                return False

        wait_for(answers, timeout=60, what="the embedded broker to answer")
        yield socket_path
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


def unique_queue() -> str:
    return f"arena-test-{os.getpid()}-{uuid.uuid4().hex[:8]}"


def purge_queue(queue: str) -> None:
    """Remove the queue, the queues named after it (``<queue>.ratings``, ``.tables``,
    ``.builds``, ``.sweeps``) and their unacknowledged messages from Redis (best effort)."""
    import json

    import redis

    names = {queue, *(f"{queue}.{lane}" for lane in ("ratings", "tables", "builds", "sweeps"))}
    client = redis.Redis.from_url(REDIS_URL)
    try:
        # The queues, and the bindings of their exchange (named after the first).
        client.delete(*names, f"_kombu.binding.{queue}", f"_kombu.binding_permanent.{queue}")
        for tag, payload in client.hgetall("unacked").items():
            try:
                _message, _exchange, routing_key = json.loads(payload)
            except (ValueError, TypeError):
                continue
            if routing_key in names:
                client.hdel("unacked", tag)
                client.zrem("unacked_index", tag)
    finally:
        client.close()


@contextmanager
def publishing_to(
    broker_url: str, queue: str, routes: Mapping[str, Mapping[str, str]] | None = None
) -> Iterator[None]:
    """Tasks queued by this process go to ``queue`` on ``broker_url``, not run eagerly
    (or, by task name, to the queue ``routes`` gives: :func:`routes_for`).

    The services queue tasks through shared tasks, which take the current
    Celery app: a publisher app is made current for the block. Celery prefers
    the CELERY_BROKER_URL variable (set by the conftest) to any configuration.
    """
    from arena.celery import app as arena_app

    saved_url = os.environ.get("CELERY_BROKER_URL")
    os.environ["CELERY_BROKER_URL"] = broker_url
    publisher = Celery("arena-test-publisher", set_as_current=False)
    publisher.conf.update(
        task_default_queue=queue,
        task_always_eager=False,
        task_ignore_result=True,
        broker_connection_retry_on_startup=True,
        task_routes=dict(routes or {}),
    )
    publisher.set_current()
    try:
        yield
    finally:
        arena_app.set_current()
        publisher.close()
        if saved_url is None:
            os.environ.pop("CELERY_BROKER_URL", None)
        else:
            os.environ["CELERY_BROKER_URL"] = saved_url


def routes_for(queue: str) -> dict[str, dict[str, str]]:
    """The platform's task routes (settings.CELERY_TASK_ROUTES) with ``queue`` as the
    default queue: ``celery.tables`` becomes ``<queue>.tables``, as a worker started with
    CELERY_TASK_DEFAULT_QUEUE=<queue> names it."""
    default = settings.CELERY_TASK_DEFAULT_QUEUE
    return {
        task: {"queue": queue + route["queue"].removeprefix(default)}
        for task, route in settings.CELERY_TASK_ROUTES.items()
    }


def worker_env(
    data_dir: Path, media_root: Path, *, broker_url: str, queue: str, **extra_env: str
) -> dict[str, str]:
    """The environment of a worker on the test database and ``queue`` of ``broker_url``."""
    return process_env(
        data_dir,
        DATABASE_URL=test_database_url(),
        DATABASE_CONN_MAX_AGE="0",
        CELERY_BROKER_URL=broker_url,
        CELERY_TASK_DEFAULT_QUEUE=queue,
        CELERY_TASK_ALWAYS_EAGER="0",
        MEDIA_ROOT=str(media_root),
        SECRET_KEY="tests-only-secret-key",
        **extra_env,
    )


@contextmanager
def broker_worker(
    data_dir: Path, media_root: Path, *, broker_url: str, queue: str, **extra_env: str
) -> Iterator[tuple[CeleryWorker, Callable[[], CeleryWorker]]]:
    """A started worker on the test database and ``queue`` of ``broker_url``, with this
    process publishing there; yields it and a function starting another on the same
    queue (a restart). Every worker started is stopped at the end."""
    env = worker_env(data_dir, media_root, broker_url=broker_url, queue=queue, **extra_env)
    workers: list[CeleryWorker] = []

    def start() -> CeleryWorker:
        worker = CeleryWorker(env, data_dir / "worker.log").start()
        workers.append(worker)
        return worker.wait_ready()

    try:
        with publishing_to(broker_url, queue):
            yield start(), start
    finally:
        for worker in workers:
            worker.stop()


@contextmanager
def redis_worker(
    data_dir: Path, media_root: Path, **extra_env: str
) -> Iterator[tuple[CeleryWorker, Callable[[], CeleryWorker]]]:
    """:func:`broker_worker` on a Redis queue of its own, removed at the end."""
    queue = unique_queue()
    try:
        with broker_worker(
            data_dir, media_root, broker_url=REDIS_URL, queue=queue, **extra_env
        ) as started:
            yield started
    finally:
        purge_queue(queue)


# --------------------------------------------------------------------------- RabbitMQ

RABBITMQ_HOST, RABBITMQ_PORT = "127.0.0.1", 5672
RABBITMQ_USER = "guest:guest"  # RabbitMQ's own account, accepted from this machine only


def rabbitmq_up() -> bool:
    try:
        with socket.create_connection((RABBITMQ_HOST, RABBITMQ_PORT), timeout=0.5):
            return True
    except OSError:
        return False


needs_rabbitmq = pytest.mark.skipif(
    not rabbitmq_up(),
    reason=f"no RabbitMQ on {RABBITMQ_HOST}:{RABBITMQ_PORT} (start it: rabbitmq-server -detached)",
)


def _rabbitmqctl(*args: str) -> bool:
    ctl = shutil.which("rabbitmqctl")
    if ctl is None:
        return False
    done = subprocess.run([ctl, *args], capture_output=True, timeout=60)
    return done.returncode == 0


@contextmanager
def rabbitmq_vhost() -> Iterator[str]:
    """The URL of a RabbitMQ virtual host of this test's own, deleted with its queues at
    the end, so parallel runs never meet. Without rabbitmqctl (not root, another
    machine's server) the default vhost: callers use a queue of their own anyway."""
    name = unique_queue()
    private = _rabbitmqctl("add_vhost", name) and _rabbitmqctl(
        "set_permissions", "-p", name, RABBITMQ_USER.split(":")[0], ".*", ".*", ".*"
    )
    vhost = name if private else ""  # amqp://host:port/ with an empty path: the vhost "/"
    try:
        yield f"amqp://{RABBITMQ_USER}@{RABBITMQ_HOST}:{RABBITMQ_PORT}/{vhost}"
    finally:
        if private:
            _rabbitmqctl("delete_vhost", name)


def amqp_ready_messages(broker_url: str, queue: str) -> int:
    """Messages waiting in ``queue`` for a consumer (unacknowledged ones not counted)."""
    from kombu import Connection

    with Connection(broker_url) as connection:
        declared = connection.default_channel.queue_declare(queue, passive=True)
        return int(declared.message_count)


def amqp_delete_queue(broker_url: str, queue: str) -> None:
    from kombu import Connection

    with Connection(broker_url) as connection:
        connection.default_channel.queue_delete(queue)


# --------------------------------------------------------------------------- test bots


def protocol_bot(*, decide: str = "legal[0]", before: str = "", prelude: str = "") -> bytes:
    """A plain-Python bot speaking the protocol (docs/protocol.md) without the SDK.

    ``decide`` is the expression of the action (``legal``, ``message`` and
    ``count``, the number of requests so far, are in scope); ``before`` runs
    before each answer; ``prelude`` at start-up.
    """
    return f"""\
import json, sys, time
{prelude}
count = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        reply = {{"type": "ready", "protocol": 1}}
    elif message["type"] == "request":
        count += 1
        legal = message["observation"]["legal_actions"]
        {before or "pass"}
        reply = {{"type": "action", "id": message["id"], "action": {decide}}}
    elif message["type"] == "shutdown":
        break
    else:
        continue
    print(json.dumps(reply), flush=True)
""".encode()


GOOD_BOT = protocol_bot()
# Plays like GOOD_BOT, but only inside the sandbox (not root, the sandbox's host
# name): run bare it crashes at start, so a seat it played without forfeiting
# proves the sandbox.
SANDBOXED_BOT = protocol_bot(
    prelude="import os\nassert os.getuid() != 0 and os.uname().nodename == 'vegas-bot'"
)


@contextmanager
def site_worker(data_dir: Path, media_root: Path) -> Iterator[CeleryWorker]:
    """:func:`redis_worker` for a live server: every thread of this process publishes to the
    worker's queue, the live server's request threads too (:func:`publishing_to` makes its
    publisher current in the calling thread only, and the app would run tasks eagerly)."""
    from arena.celery import app as arena_app

    queue = unique_queue()
    keys = (
        "task_always_eager",
        "broker_url",
        "broker_write_url",
        "task_default_queue",
        "task_routes",
    )
    saved = {key: arena_app.conf[key] for key in keys}

    def reroute() -> None:  # the router keeps the routes it was made with
        arena_app.amqp.flush_routes()
        del arena_app.amqp.router

    try:
        with broker_worker(data_dir, media_root, broker_url=REDIS_URL, queue=queue) as (
            worker,
            _,
        ):
            arena_app.conf.update(
                task_always_eager=False,
                broker_url=REDIS_URL,
                broker_write_url=REDIS_URL,
                task_default_queue=queue,
                task_routes=routes_for(queue),
            )
            reroute()
            arena_app._pool = None
            arena_app.amqp._producer_pool = None
            try:
                yield worker
            finally:
                arena_app.conf.update(saved)
                reroute()
                arena_app._pool = None
                arena_app.amqp._producer_pool = None
    finally:
        purge_queue(queue)
