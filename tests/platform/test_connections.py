"""More platform processes than PostgreSQL takes connections: through PgBouncer in
transaction mode (Compose's ``pgbouncer``, DATABASE_TRANSACTION_POOLING) every one of
them works; straight to the server, those past its max_connections are refused.

Each process is a platform process (Django, the platform's settings and models) that
connects, waits at a barrier until every process has connected or failed (so they all
hold a connection at once), then runs transactions that lock rows, iterate querysets
(server-side cursors without the setting) and repeat queries (prepared statements
without it).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import REPO_DIR, ThrowawayPostgres, _free_port
from .processes import manage, platform_env

PROCESSES = 20
MAX_CONNECTIONS = 8

pytestmark = pytest.mark.slow

needs_pgbouncer = pytest.mark.skipif(
    shutil.which("pgbouncer") is None and not Path("/usr/sbin/pgbouncer").exists(),
    reason="PgBouncer is not installed (apt-get install pgbouncer)",
)

WORK = textwrap.dedent(
    """
    import os, sys, time
    from pathlib import Path
    import django
    django.setup()
    from django.db import connection, transaction
    from arena.ladders.models import Ladder
    barrier = Path(sys.argv[1])
    try:
        connection.ensure_connection()
        Ladder.objects.count()
    except Exception as error:
        (barrier / f"failed-{os.getpid()}").write_text(str(error))
        sys.exit(3)
    (barrier / f"connected-{os.getpid()}").touch()
    # Everyone holds a connection now, or failed to get one.
    while len(list(barrier.iterdir())) < int(sys.argv[2]):
        time.sleep(0.05)
    for _ in range(8):
        with transaction.atomic():
            ladder = Ladder.objects.select_for_update().get(slug="classic-2")
            ladder.name = f"Classic {os.getpid()}"
            ladder.save(update_fields=["name"])
        assert [l.slug for l in Ladder.objects.order_by("pk").iterator(chunk_size=1)]
    print("ok")
    """
)


class SmallPostgres(ThrowawayPostgres):
    """A server that takes few connections (3 of them kept for superusers)."""

    durability = ThrowawayPostgres.durability + f" -c max_connections={MAX_CONNECTIONS}"


@pytest.fixture(scope="module")
def small_server() -> Iterator[SmallPostgres]:
    found = ThrowawayPostgres.find()
    if found is None:
        pytest.skip("no PostgreSQL binaries")
    server = SmallPostgres(found.bindir)
    server.start()
    try:
        server._run(
            str(server.bindir / "createdb"),
            "-h",
            "127.0.0.1",
            "-p",
            str(server.port),
            "-U",
            "postgres",
            "arena",
        )
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def pgbouncer(small_server: SmallPostgres) -> Iterator[int]:
    """PgBouncer in transaction mode in front of the small server; its port."""
    port = _free_port()
    root = Path(tempfile.mkdtemp(prefix="arena-pgbouncer-"))
    (root / "pgbouncer.ini").write_text(
        textwrap.dedent(
            f"""
            [databases]
            arena = host=127.0.0.1 port={small_server.port} dbname=arena user=postgres
            [pgbouncer]
            listen_addr = 127.0.0.1
            listen_port = {port}
            unix_socket_dir =
            auth_type = trust
            auth_file = {root / "users.txt"}
            pool_mode = transaction
            default_pool_size = 4
            max_client_conn = 200
            logfile = {root / "pgbouncer.log"}
            """
        )
    )
    (root / "users.txt").write_text('"postgres" ""\n')
    command = ["pgbouncer", str(root / "pgbouncer.ini")]
    if os.geteuid() == 0:  # PgBouncer refuses to run as root
        shutil.chown(root, user="postgres")
        for path in root.iterdir():
            shutil.chown(path, user="postgres")
        command = ["runuser", "-u", "postgres", "--", *command]
    process = subprocess.Popen(command, start_new_session=True)
    try:
        yield port
    finally:
        process.terminate()
        process.wait(timeout=30)
        shutil.rmtree(root, ignore_errors=True)


def _crowd(url: str, tmp_path: Path, **extra: str) -> tuple[int, int, list[str]]:
    """PROCESSES platform processes at once on ``url``: (worked, refused, errors)."""
    env = {**platform_env(url, "database", tmp_path / "media"), **extra}
    barrier = tmp_path / f"barrier-{len(list(tmp_path.iterdir()))}"
    barrier.mkdir()
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", WORK, str(barrier), str(PROCESSES)],
            env=env,
            cwd=REPO_DIR,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(PROCESSES)
    ]
    errors, worked = [], 0
    try:
        for process in processes:
            out, err = process.communicate(timeout=600)
            if process.returncode == 0 and out.strip() == "ok":
                worked += 1
            elif process.returncode != 3:
                errors.append(err[-2000:])
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()
    refused = len(list(barrier.glob("failed-*")))
    return worked, refused, errors


@needs_pgbouncer
def test_more_processes_than_connections_work_through_pgbouncer(
    small_server: SmallPostgres, pgbouncer: int, tmp_path: Path
) -> None:
    direct = f"postgres://postgres@127.0.0.1:{small_server.port}/arena"
    migrated = manage(platform_env(direct, "database", tmp_path / "media"), "migrate")
    assert migrated.returncode == 0, migrated.stderr
    made = manage(
        platform_env(direct, "database", tmp_path / "media"),
        "shell",
        "-c",
        "from arena.ladders.flows import ladder_create; "
        "ladder_create(slug='classic-2', name='Classic', rules='classic', seats=2)",
    )
    assert made.returncode == 0, made.stderr

    pooled = f"postgres://postgres@127.0.0.1:{pgbouncer}/arena"
    worked, refused, errors = _crowd(pooled, tmp_path, DATABASE_TRANSACTION_POOLING="1")
    assert (worked, refused, errors) == (PROCESSES, 0, [])

    # The same crowd straight to the server: past its connections, processes are refused.
    worked, refused, errors = _crowd(direct, tmp_path)
    assert refused >= PROCESSES - MAX_CONNECTIONS and worked + refused == PROCESSES, errors
