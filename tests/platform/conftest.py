"""Test setup of the platform: Django on a real PostgreSQL, or on SQLite by choice.

Database, picked once when this file is imported (before Django loads):

- ``ARENA_TEST_DB=sqlite``: the embedded default (SQLite), for the model and
  service layer; tests that need PostgreSQL (row locks across connections)
  skip themselves.
- ``ARENA_TEST_DATABASE_URL``: that PostgreSQL server.
- otherwise the server at 127.0.0.1:5432 when it lets the user postgres in
  without a password, else a throwaway server started for the session from the
  Debian binaries in /usr/lib/postgresql/*/bin (as the ``postgres`` user when
  run as root, since PostgreSQL refuses to run as root). ``ARENA_TEST_PG=
  throwaway`` forces the throwaway server.

Django runs with a temporary data dir, eager Celery tasks and a fast password
hasher. Fixtures: the personas alice (bot author), bob (her rival), carol
(staff organiser) and the house account.
"""

from __future__ import annotations

import atexit
import os
import shutil
import socket
import subprocess
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO_DIR = Path(__file__).resolve().parents[2]
TEST_DATA_DIR = Path(tempfile.mkdtemp(prefix="arena-test-"))
atexit.register(shutil.rmtree, TEST_DATA_DIR, ignore_errors=True)


def _reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def _postgres_trusts(host: str, port: int) -> bool:
    """A server there lets the user postgres in without a password (a fresh Debian
    cluster listens on 127.0.0.1:5432 but asks for one: then use a throwaway server)."""
    if not _reachable(host, port):
        return False
    import psycopg

    try:
        psycopg.connect(f"postgres://postgres@{host}:{port}/postgres", connect_timeout=3).close()
    except psycopg.Error:
        return False
    return True


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class ThrowawayPostgres:
    """A PostgreSQL server in a temp dir, for machines that run none."""

    #: Durability is pointless for a throwaway server: off, for speed. (A test that
    #: crashes the server needs what a real one keeps: RestartablePostgres.)
    durability = "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.port = _free_port()
        self.root = Path(tempfile.mkdtemp(prefix="arena-pg-"))
        self.data = self.root / "data"
        self.as_postgres = os.geteuid() == 0
        self.started = False

    @classmethod
    def find(cls) -> ThrowawayPostgres | None:
        candidates = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"), reverse=True)
        on_path = shutil.which("pg_ctl")
        if on_path:
            candidates.append(Path(on_path))
        for pg_ctl in candidates:
            if (pg_ctl.parent / "initdb").exists():
                return cls(pg_ctl.parent)
        return None

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/arena"

    def _run(self, *args: str) -> None:
        command = list(args)
        if self.as_postgres:
            # PostgreSQL refuses to run as root.
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, timeout=120)

    def start(self) -> None:
        if self.as_postgres:
            shutil.chown(self.root, user="postgres")
        self._run(
            str(self.bindir / "initdb"),
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "--auth=trust",
            "--no-sync",
        )
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 {self.durability}"
        log = self.root / "server.log"
        self._run(
            str(self.bindir / "pg_ctl"),
            "-D",
            str(self.data),
            "-o",
            options,
            "-l",
            str(log),
            "-w",
            "start",
        )
        self.started = True

    def stop(self) -> None:
        if self.started:
            self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")
            self.started = False
        shutil.rmtree(self.root, ignore_errors=True)


def _choose_database() -> tuple[str, ThrowawayPostgres | None]:
    if os.environ.get("ARENA_TEST_DB", "postgres") == "sqlite":
        return f"sqlite:///{TEST_DATA_DIR / 'arena.sqlite3'}", None
    if url := os.environ.get("ARENA_TEST_DATABASE_URL"):
        return url, None
    if os.environ.get("ARENA_TEST_PG") != "throwaway" and _postgres_trusts("127.0.0.1", 5432):
        return "postgres://postgres@127.0.0.1:5432/arena", None
    server = ThrowawayPostgres.find()
    if server is None:
        warnings.warn(
            "no PostgreSQL reachable and no PostgreSQL binaries found: platform tests run on "
            "SQLite (install postgresql, or set ARENA_TEST_DATABASE_URL)",
            stacklevel=1,
        )
        return f"sqlite:///{TEST_DATA_DIR / 'arena.sqlite3'}", None
    return server.url, server


DATABASE_URL, THROWAWAY = _choose_database()

# Before Django reads its settings (unless something configured it already).
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
os.environ.update(
    {
        "DATABASE_URL": DATABASE_URL,
        "ARENA_DATA_DIR": str(TEST_DATA_DIR),
        "SECRET_KEY": "tests-only-secret-key",
        "CELERY_BROKER_URL": "memory://",
        "CELERY_RESULT_BACKEND": "cache+memory://",
        "CELERY_TASK_ALWAYS_EAGER": "1",
        "DEBUG": "0",
    }
)

import dj_database_url  # noqa: E402
import django  # noqa: E402
from django.conf import settings  # noqa: E402

django.setup()
# If pytest-django loaded the settings earlier (DJANGO_SETTINGS_MODULE in the
# environment or ini), point them at the chosen database now: no connection
# has been opened yet.
_wanted = dj_database_url.parse(DATABASE_URL)
_current = settings.DATABASES["default"]
if any(_current.get(key) != _wanted.get(key) for key in ("ENGINE", "NAME", "HOST", "PORT")):
    _current.clear()
    _current.update(_wanted)
settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

IS_POSTGRES = settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"
# Runs on one machine share the server (a developer, the lead, CI): each run
# gets its own test database, named with its process id.
TEST_DB_PREFIX = "test_arena_"
if IS_POSTGRES:
    settings.DATABASES["default"].setdefault("TEST", {})["NAME"] = f"{TEST_DB_PREFIX}{os.getpid()}"
needs_postgres = pytest.mark.skipif(
    not IS_POSTGRES, reason="needs PostgreSQL (row locks across connections)"
)


def pytest_report_header(config: pytest.Config) -> str:
    where = "throwaway server" if THROWAWAY else DATABASE_URL.split("@")[-1]
    return f"arena platform tests: {settings.DATABASES['default']['ENGINE']} ({where})"


# --------------------------------------------------------------------------- fixtures


def _drop_abandoned_test_databases() -> None:
    """Drop test databases of runs that died on this machine (their process is gone)."""
    import psycopg
    from psycopg import sql

    db = settings.DATABASES["default"]
    params = {
        "host": db.get("HOST") or None,
        "port": db.get("PORT") or None,
        "user": db.get("USER") or None,
        "password": db.get("PASSWORD") or None,
        "dbname": "postgres",
        "autocommit": True,
    }
    try:
        with psycopg.connect(**params) as conn:
            names = [
                row[0]
                for row in conn.execute(
                    "SELECT datname FROM pg_database WHERE datname LIKE %s",
                    (TEST_DB_PREFIX + "%",),
                )
            ]
            for name in names:
                pid = name.removeprefix(TEST_DB_PREFIX)
                if pid.isdigit() and not Path(f"/proc/{pid}").exists():
                    conn.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name)))
    except psycopg.Error:
        pass  # best effort: a leftover database harms nothing


@pytest.fixture(scope="session")
def django_db_modify_db_settings() -> Iterator[None]:
    """Start the throwaway PostgreSQL server (if one is needed) before the test database."""
    if THROWAWAY is not None and not THROWAWAY.started:
        THROWAWAY.start()
    if IS_POSTGRES:
        _drop_abandoned_test_databases()
    yield
    if THROWAWAY is not None:
        THROWAWAY.stop()


@pytest.fixture(autouse=True, scope="session")
def _block_database(django_db_blocker: Any) -> Iterator[None]:
    """Only tests marked django_db (or using db fixtures) reach the database."""
    with django_db_blocker.block():
        yield


@pytest.fixture(autouse=True)
def media_root(settings: Any, tmp_path: Path) -> Path:
    """Each test stores bot code and logs in its own folder (and archives old logs in
    one of its own)."""
    root = tmp_path / "media"
    settings.MEDIA_ROOT = root
    settings.STORAGES = {
        **settings.STORAGES,
        "archive": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(tmp_path / "archive")},
        },
    }
    return root


@pytest.fixture(params=["database", "filesystem"])
def each_storage(request: pytest.FixtureRequest, settings: Any, media_root: Path) -> str:
    """The test runs on each storage a platform may choose: the database (the default)
    and a folder (MEDIA_ROOT, one-host installs)."""
    from .stored import use_storage

    backend: str = request.param
    use_storage(settings, backend)
    return backend


@pytest.fixture(autouse=True)
def _fresh_rate_limits() -> Iterator[None]:
    """Rate limits count in the cache: each test starts with none used."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def alice(db: None) -> Any:
    """Alice writes bots."""
    from .factories import UserFactory

    return UserFactory(username="alice")


@pytest.fixture
def bob(db: None) -> Any:
    """Bob is Alice's rival on the ladders."""
    from .factories import UserFactory

    return UserFactory(username="bob")


@pytest.fixture
def carol(db: None) -> Any:
    """Carol is a staff organiser: she runs ladders in the admin."""
    from .factories import UserFactory

    return UserFactory(username="carol", is_staff=True, is_superuser=True)


@pytest.fixture
def house(db: None) -> Any:
    """The house account, owner of the built-in bots."""
    from .factories import UserFactory

    return UserFactory(username="house", profile__is_house=True)


def _server_params() -> dict[str, Any]:
    db = settings.DATABASES["default"]
    return {
        "host": db.get("HOST") or None,
        "port": db.get("PORT") or None,
        "user": db.get("USER") or None,
        "password": db.get("PASSWORD") or None,
    }


@pytest.fixture
def empty_database() -> Iterator[str]:
    """A new empty PostgreSQL database on the test server; its URL. Dropped afterwards."""
    import psycopg
    from psycopg import sql

    name = f"test_arena_empty_{os.getpid()}"
    params = _server_params()
    with psycopg.connect(**params, dbname="postgres", autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    user = params["user"] or "postgres"
    auth = f"{user}:{params['password']}" if params["password"] else user
    yield f"postgres://{auth}@{params['host'] or '127.0.0.1'}:{params['port'] or 5432}/{name}"
    with psycopg.connect(**params, dbname="postgres", autocommit=True) as conn:
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )
