"""GET /readyz and `manage.py probe`: readiness of web, workers and beat, each failure
named with its reason."""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from arena import heartbeats

REPO_DIR = Path(__file__).resolve().parents[3]

pytestmark = pytest.mark.django_db


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_readyz_answers_ok_when_database_broker_and_storage_answer(client: Client) -> None:
    response = client.get("/readyz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["failed"] == []
    assert {name for name, check in body["checks"].items() if check["ok"]} == {
        "database",
        "broker",
        "storage",
    }


def test_readyz_names_an_unreachable_broker_without_its_url(settings: Any, client: Client) -> None:
    port = closed_port()
    settings.CELERY_BROKER_URL = f"redis://:s3cret@127.0.0.1:{port}/0"
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {}
    response = client.get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["failed"] == ["broker"]
    detail = body["checks"]["broker"]["detail"]
    assert detail.startswith("redis: ")
    assert "refused" in detail.lower()
    assert "s3cret" not in response.content.decode()
    # Liveness is another question: the process answers and reaches its database.
    assert client.get("/healthz").status_code == 200


def test_readyz_names_a_storage_it_cannot_write(
    settings: Any, client: Client, tmp_path: Path
) -> None:
    from tests.platform.stored import use_storage

    use_storage(settings, "filesystem")
    not_a_folder = tmp_path / "media-file"
    not_a_folder.write_text("a file where the folder should be")
    settings.MEDIA_ROOT = not_a_folder
    response = client.get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["failed"] == ["storage"]
    assert str(not_a_folder) in body["checks"]["storage"]["detail"]


def test_probe_web_fails_with_the_reason(settings: Any) -> None:
    settings.CELERY_BROKER_URL = f"redis://127.0.0.1:{closed_port()}/0"
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {}
    with pytest.raises(CommandError, match=r"web not ready: broker: redis: .*refused"):
        call_command("probe", "web")


def test_probe_worker_checks_its_heartbeat_is_fresh(settings: Any, tmp_path: Path) -> None:
    settings.ARENA_HEARTBEAT_DIR = tmp_path / "heartbeats"
    settings.ARENA_HEARTBEAT_SECONDS = 10
    with pytest.raises(CommandError, match="no heartbeat file of any worker"):
        call_command("probe", "worker")

    heartbeats.beat("worker", "celery@box")
    call_command("probe", "worker")
    call_command("probe", "worker", node="celery@box")
    with pytest.raises(CommandError, match="no heartbeat file of worker ratings@box"):
        call_command("probe", "worker", node="ratings@box")
    # A beat's file is no worker's.
    with pytest.raises(CommandError, match="no heartbeat file of any beat"):
        call_command("probe", "beat")

    # Four beats (40 s) without a touch: stuck.
    path = heartbeats.heartbeat_path("worker", "celery@box")
    old = time.time() - 41
    os.utime(path, (old, old))
    with pytest.raises(CommandError, match=r"worker-celery@box is 4\d s old \(at most 40\)"):
        call_command("probe", "worker")


def test_readiness_probes_stay_plain_http_when_https_is_enforced(settings: Any) -> None:
    settings.SECURE_SSL_REDIRECT = True
    client = Client()  # its middleware reads the settings when it first answers
    assert client.get("/readyz").status_code == 200
    assert client.get("/healthz").status_code == 200
    assert client.get("/metrics").status_code == 301


def test_compose_checks_every_long_running_service_with_these_probes() -> None:
    import yaml

    compose = yaml.safe_load((REPO_DIR / "docker-compose.yml").read_text())
    services = compose["services"]
    tests = {name: service.get("healthcheck", {}).get("test") for name, service in services.items()}
    assert tests.pop("migrate") is None  # a one-off
    assert "/readyz" in tests.pop("web")[-1]
    assert tests.pop("beat") == ["CMD", "python", "manage.py", "probe", "beat"]
    assert tests.pop("postgres") and tests.pop("redis")
    # PgBouncer has no client to check itself with: web's /readyz reaches the database
    # through it, and every probe checks the database too.
    tests.pop("pgbouncer", None)
    tests.pop("proxy", None)  # an example, in the profile "proxy" only
    # Every Celery worker (matches, ratings, tables, builds) and nothing else is left.
    assert {name for name in tests if "worker" in services[name]["command"]} == set(tests)
    assert set(tests) == {"worker", "ratings", "tables", "builds"}
    probe = ["python", "manage.py", "probe", "worker"]
    assert tests.pop("ratings") == ["CMD", *probe]
    # The sandboxing workers' probe runs without CAP_SYS_ADMIN, as they do.
    for test in tests.values():
        assert test[:2] == ["CMD", "setpriv"] and test[-4:] == probe
        assert "--bounding-set=-sys_admin,-setpcap" in test
