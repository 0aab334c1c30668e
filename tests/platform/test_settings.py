"""Settings from the environment, the embedded defaults, and the Celery app's delivery rules."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.celery import app

pytestmark = pytest.mark.slow

REPO_DIR = Path(__file__).resolve().parents[2]

SHOW = """
import json
from django.conf import settings
from arena.celery import app
db = settings.DATABASES["default"]
print(json.dumps({
    "engine": db["ENGINE"], "name": str(db["NAME"]), "host": db.get("HOST", ""),
    "broker": app.conf.broker_url, "transport": app.conf.broker_transport_options,
    "backend": app.conf.result_backend, "debug": settings.DEBUG,
    "hosts": settings.ALLOWED_HOSTS, "media": str(settings.MEDIA_ROOT),
    "storage": settings.STORAGES["default"],
    "secret": settings.SECRET_KEY,
    "email": settings.EMAIL_BACKEND, "webhooks_inside": settings.ARENA_WEBHOOK_ALLOW_PRIVATE,
}))
"""

# Variables a developer's shell or CI might carry that would change the outcome.
_CLEARED = (
    "DATABASE_URL",
    "CELERY_BROKER_URL",
    "CELERY_RESULT_BACKEND",
    "SECRET_KEY",
    "DEBUG",
    "ALLOWED_HOSTS",
    "MEDIA_ROOT",
    "STORAGE_BACKEND",
    "STORAGE_OPTIONS",
    "CELERY_TASK_ALWAYS_EAGER",
    "EMAIL_BACKEND",
    "EMAIL_HOST",
    "ARENA_WEBHOOK_ALLOW_PRIVATE",
)


def settings_in_subprocess(data_dir: Path, **env: str) -> dict[str, object]:
    clean = {k: v for k, v in os.environ.items() if k not in _CLEARED}
    clean.update(
        ARENA_DATA_DIR=str(data_dir),
        DJANGO_SETTINGS_MODULE="arena.settings",
        PYTHONPATH=os.pathsep.join([str(REPO_DIR), str(REPO_DIR / "platform")]),
        **env,
    )
    code = "import django; django.setup()\n" + SHOW
    done = subprocess.run(
        [sys.executable, "-c", code], env=clean, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_with_nothing_set_everything_lives_in_the_data_dir(tmp_path: Path) -> None:
    shown = settings_in_subprocess(tmp_path)

    assert shown["engine"] == "django.db.backends.sqlite3"
    assert shown["name"] == str(tmp_path / "arena.sqlite3")
    # The embedded Redis on a socket of the data dir (scripts/broker.sh starts it there).
    assert shown["broker"] == f"redis+socket://{tmp_path / 'run' / 'redis.sock'}"
    assert shown["transport"] == {"visibility_timeout": 7200}
    assert shown["backend"] == f"file://{tmp_path / 'celery-results'}"
    assert shown["media"] == str(tmp_path / "media")
    # Bot code and logs in the database: a second host shares them with no extra server.
    assert shown["storage"] == {"BACKEND": "arena.blobs.storage.DatabaseStorage", "OPTIONS": {}}
    assert shown["debug"] is False
    # A random secret key is kept in the data dir, the same on every start.
    assert shown["secret"] == (tmp_path / "secret_key").read_text().strip()
    assert settings_in_subprocess(tmp_path)["secret"] == shown["secret"]
    assert (tmp_path / ".gitignore").read_text() == "*\n"


def test_a_deployment_sets_services_by_environment(tmp_path: Path) -> None:
    shown = settings_in_subprocess(
        tmp_path,
        DATABASE_URL="postgres://arena:pw@db.internal:5432/arena",
        CELERY_BROKER_URL="redis://redis:6379/0",
        CELERY_RESULT_BACKEND="redis://redis:6379/1",
        SECRET_KEY="from-the-vault",
        DEBUG="true",
        ALLOWED_HOSTS="arena.example.org, www.arena.example.org",
        STORAGE_BACKEND="storages.backends.s3.S3Storage",
        STORAGE_OPTIONS='{"bucket_name": "arena"}',
    )

    assert (shown["engine"], shown["host"]) == ("django.db.backends.postgresql", "db.internal")
    assert shown["broker"] == "redis://redis:6379/0"
    # Past a retry's delay (30 min) and the longest match (1 h): no duplicate delivery.
    assert shown["transport"] == {"visibility_timeout": 7200}
    assert shown["backend"] == "redis://redis:6379/1"
    assert shown["secret"] == "from-the-vault" and shown["debug"] is True
    assert shown["hosts"] == ["arena.example.org", "www.arena.example.org"]
    assert shown["storage"] == {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {"bucket_name": "arena"},
    }
    assert not (tmp_path / "secret_key").exists()


def test_e_mails_go_to_the_console_until_an_smtp_host_is_set(tmp_path: Path, settings: Any) -> None:
    """`make run` and development print e-mails in the worker's log; the tests keep them in
    Django's outbox; a deployment names its SMTP server. Webhooks into the platform's own
    network are refused unless DEBUG."""
    plain = settings_in_subprocess(tmp_path)
    assert plain["email"] == "django.core.mail.backends.console.EmailBackend"
    assert plain["webhooks_inside"] is False
    deployed = settings_in_subprocess(tmp_path, EMAIL_HOST="smtp.example.org")
    assert deployed["email"] == "django.core.mail.backends.smtp.EmailBackend"
    developing = settings_in_subprocess(tmp_path, DEBUG="1")
    assert developing["webhooks_inside"] is True
    assert settings.EMAIL_BACKEND == "django.core.mail.backends.locmem.EmailBackend"


def test_rabbitmq_confirms_each_publish_and_has_no_visibility_timeout(tmp_path: Path) -> None:
    shown = settings_in_subprocess(
        tmp_path,
        CELERY_BROKER_URL="amqp://arena:pw@rabbitmq:5672/arena",
        CELERY_VISIBILITY_TIMEOUT="60",  # Redis only: no meaning here
    )

    assert shown["broker"] == "amqp://arena:pw@rabbitmq:5672/arena"
    assert shown["transport"] == {"confirm_publish": True}


def test_secrets_come_from_files_and_placeholders_pass_in_development(tmp_path: Path) -> None:
    """Compose's and Docker's secrets: NAME_FILE names a file holding NAME."""
    (tmp_path / "key").write_text("k" * 50 + "\n")
    (tmp_path / "broker").write_text("redis://:s3cr3t@redis:6379/0\n")
    shown = settings_in_subprocess(
        tmp_path,
        SECRET_KEY_FILE=str(tmp_path / "key"),
        CELERY_BROKER_URL_FILE=str(tmp_path / "broker"),
    )
    assert shown["secret"] == "k" * 50 and shown["broker"] == "redis://:s3cr3t@redis:6379/0"
    shown = settings_in_subprocess(tmp_path, SECRET_KEY="change-me", DEBUG="1")
    assert shown["secret"] == "change-me" and shown["debug"] is True


def test_a_visibility_timeout_must_be_positive(tmp_path: Path) -> None:
    clean = {k: v for k, v in os.environ.items() if k not in _CLEARED}
    clean.update(
        ARENA_DATA_DIR=str(tmp_path),
        DJANGO_SETTINGS_MODULE="arena.settings",
        PYTHONPATH=os.pathsep.join([str(REPO_DIR), str(REPO_DIR / "platform")]),
        CELERY_BROKER_URL="redis://redis:6379/0",
        CELERY_VISIBILITY_TIMEOUT="0",
    )
    done = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        env=clean,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert "CELERY_VISIBILITY_TIMEOUT=0: expected a number of seconds above 0" in done.stderr


@pytest.mark.parametrize(
    ("name", "value", "words"),
    [
        ("DEBUG", "maybe", "DEBUG='maybe': expected one of 1/0"),
        ("ARENA_UPLOAD_MAX_FILES", "lots", "expected an integer"),
        ("STORAGE_OPTIONS", "[1]", "expected a JSON object"),
        (
            "ARENA_TRUSTED_PROXIES",
            "one",
            "ARENA_TRUSTED_PROXIES='one': expected the number of trusted proxies in front "
            "of the web, a whole number 0 or more",
        ),
        ("ARENA_TRUSTED_PROXIES", "-1", "ARENA_TRUSTED_PROXIES='-1': expected the number of"),
        # A typo in the scheme, and never the password in the message.
        ("CELERY_BROKER_URL", "rabitmq://u:secret@host", "unsupported broker 'rabitmq://'; use"),
        ("CELERY_BROKER_URL", "u:secret@host:5672", "unsupported broker 'a URL without a scheme'"),
        # The embedded broker before Redis: the way to the one that replaced it.
        ("CELERY_BROKER_URL", "filesystem://", "no longer supported; leave it unset for the"),
        # Placeholders from examples are no secrets (outside DEBUG).
        ("SECRET_KEY", "change-me", "SECRET_KEY is the placeholder 'change-me': set a secret"),
        (
            "DATABASE_URL",
            "postgres://arena:arena@db:5432/arena",
            "DATABASE_URL's password is the placeholder 'arena'",
        ),
        ("SECRET_KEY_FILE", "/nonexistent/key", "SECRET_KEY_FILE='/nonexistent/key': cannot"),
        (
            "ARENA_METRICS_ALLOWED_IPS",
            "10.0.0.1, prometheus",
            "ARENA_METRICS_ALLOWED_IPS: 'prometheus' is no IP address or network; write e.g.",
        ),
        ("ARENA_HEARTBEAT_SECONDS", "0", "ARENA_HEARTBEAT_SECONDS=0: at least 1."),
    ],
)
def test_a_bad_variable_is_named_in_the_error(
    tmp_path: Path, name: str, value: str, words: str
) -> None:
    clean = {k: v for k, v in os.environ.items() if k not in _CLEARED}
    clean.update(
        {
            "ARENA_DATA_DIR": str(tmp_path),
            "DJANGO_SETTINGS_MODULE": "arena.settings",
            "PYTHONPATH": os.pathsep.join([str(REPO_DIR), str(REPO_DIR / "platform")]),
            name: value,
        }
    )
    done = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        env=clean,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert words in done.stderr
    assert ":secret@" not in done.stderr


def test_tasks_are_acknowledged_late_and_never_lost_with_a_dying_worker() -> None:
    assert app.main == "arena"
    assert app.conf.task_acks_late is True
    assert app.conf.task_reject_on_worker_lost is True
    assert app.conf.worker_prefetch_multiplier == 1
    # A lost connection or channel (RabbitMQ's consumer_timeout) reconnects the
    # worker; the match it plays goes on.
    assert app.conf.broker_channel_error_retry is True
    assert app.conf.worker_cancel_long_running_tasks_on_connection_loss is False


def test_beat_schedules_name_registered_tasks() -> None:
    app.loader.import_default_modules()
    for entry in app.conf.beat_schedule.values():
        assert entry["task"] in app.tasks


def test_compose_runs_the_platform_from_two_images_with_settings_from_env() -> None:
    """The file's structure; tests/deploy/test_compose.py runs it for real."""
    yaml = pytest.importorskip("yaml")
    compose = yaml.safe_load((REPO_DIR / "docker-compose.yml").read_text())
    services = compose["services"]

    sandboxing = ("worker", "tables", "builds")
    assert set(services) == {
        "postgres",
        "pgbouncer",
        "redis",
        "migrate",
        "web",
        *sandboxing,
        "ratings",
        "beat",
        "proxy",  # an example, in the profile "proxy" only
    }
    assert services["proxy"]["profiles"] == ["proxy"]
    for name in ("migrate", "web", *sandboxing, "ratings", "beat"):
        service = services[name]
        assert service["build"]["dockerfile"] == "platform/Dockerfile"
        assert service["build"]["target"] == ("worker" if name in sandboxing else "web")
        env = service["environment"]
        assert env["DATABASE_URL"].startswith("postgres://")
        # Every process through PgBouncer (transaction pooling), the migrations straight.
        pooled = name != "migrate"
        assert ("@pgbouncer:6432/" in env["DATABASE_URL"]) == pooled, name
        assert env["DATABASE_TRANSACTION_POOLING"] == ("1" if pooled else "0")
        assert env["CELERY_BROKER_URL"].startswith("redis://")
        # The storage is the project's default unless the shell sets one.
        assert env["STORAGE_BACKEND"] is None and env["STORAGE_OPTIONS"] is None
        assert "media:/data/media" in service["volumes"]
        assert service["init"] is True
        assert service["cap_drop"] == ["ALL"]
        assert "no-new-privileges:true" in service["security_opt"]
    assert services["web"]["command"][0] == "gunicorn"
    # Each worker reads its own queues: matches never wait behind tables or builds.
    queues = {
        "worker": "celery,celery.ratings,celery.sweeps",
        "ratings": "celery.ratings,celery.sweeps",
        "tables": "celery.tables",
        "builds": "celery.builds",
    }
    for name, read in queues.items():
        command = services[name]["command"]
        assert command[:4] == ["celery", "-A", "arena", "worker"]
        assert command[command.index("-Q") + 1] == read
    assert services["beat"]["command"][:4] == ["celery", "-A", "arena", "beat"]
    # Debian's PostgreSQL and Redis, built here too; the broker keeps its queue.
    for name, dockerfile in (
        ("postgres", "postgres"),
        ("pgbouncer", "pgbouncer"),
        ("redis", "redis"),
    ):
        assert services[name]["build"]["dockerfile"] == f"docker/{dockerfile}.Dockerfile"
    redis = services["redis"]["command"][-1]
    assert "--appendonly yes --appendfsync always" in redis and "--requirepass" in redis
    # No default secret, logs that rotate, a restart after any exit, a memory limit.
    text = (REPO_DIR / "docker-compose.yml").read_text()
    assert ":-arena}" not in text and "${POSTGRES_PASSWORD:?" in text
    assert "${REDIS_PASSWORD:?" in services["redis"]["environment"]["REDIS_PASSWORD"]
    for name, service in services.items():
        assert service["logging"]["options"] == {"max-size": "10m", "max-file": "5"}, name
        assert service["restart"] == ("no" if name == "migrate" else "always"), name
        assert service["mem_limit"].startswith("${"), name
    for dockerfile in (
        "platform/Dockerfile",
        "docker/postgres.Dockerfile",
        "docker/pgbouncer.Dockerfile",
        "docker/redis.Dockerfile",
    ):
        text = (REPO_DIR / dockerfile).read_text()
        assert "ARG BASE_IMAGE=las-vegas-arena/debian:bookworm" in text
        assert "FROM ${BASE_IMAGE}" in text


def test_compose_gives_privileges_to_the_worker_only() -> None:
    yaml = pytest.importorskip("yaml")
    compose = yaml.safe_load((REPO_DIR / "docker-compose.yml").read_text())
    services = compose["services"]

    for name in ("migrate", "web", "ratings", "beat", "postgres", "redis"):
        assert "cap_add" not in services[name], name
        assert not services[name].get("privileged"), name
    # The tables and builds workers sandbox bots too: the worker's very privileges.
    for name in ("tables", "builds"):
        own = ("command", "mem_limit", "healthcheck")
        assert {k: v for k, v in services[name].items() if k not in own} == {
            k: v for k, v in services["worker"].items() if k not in own
        }
    worker = services["worker"]
    assert not worker.get("privileged")
    assert sorted(worker["cap_add"]) == [
        "CHOWN",
        "DAC_OVERRIDE",
        "KILL",
        "SETGID",
        "SETPCAP",
        "SETUID",
        "SYS_ADMIN",
        "SYS_PTRACE",
    ]
    assert "/sys/fs/cgroup:/sys/fs/cgroup" in worker["volumes"]
    options = dict(option.replace(":", "=", 1).split("=", 1) for option in worker["security_opt"])
    assert options["apparmor"] == "unconfined"
    # A profile of its own, never seccomp=unconfined.
    profile = json.loads((REPO_DIR / options["seccomp"]).read_text())
    assert profile["defaultAction"] == "SCMP_ACT_ALLOW"
    (denied,) = profile["syscalls"]
    assert denied["action"] == "SCMP_ACT_ERRNO"
    assert {"keyctl", "bpf", "kexec_load", "init_module", "open_by_handle_at"} <= set(
        denied["names"]
    )
    # Only what Debian's docker-compose 1.29 accepts too.
    assert "systempaths" not in options
    assert all("cgroup" not in service for service in services.values())


def test_docs_settings_lists_every_variable_the_settings_read() -> None:
    import re

    settings_source = (REPO_DIR / "platform" / "arena" / "settings.py").read_text()
    read = set(
        re.findall(
            r'env_(?:str|int|bool|list|json_object|count|secret)\(\s*"([A-Z0-9_]+)"',
            settings_source,
        )
    )
    services = (REPO_DIR / "scripts" / "services.sh").read_text()
    read |= set(re.findall(r"\$\{([A-Z_]+):-", services)) - {"PYTHONPATH"}
    table_rows = [
        line
        for line in (REPO_DIR / "docs" / "settings.md").read_text().splitlines()
        if line.startswith("| `")
    ]
    documented = {
        name for row in table_rows for name in re.findall(r"`([A-Z0-9_]+)`", row.split("|")[1])
    }
    assert len(read) > 40  # the pattern still finds the readers
    assert read - documented == set(), "add these to the tables of docs/settings.md"


def test_every_beat_sweep_goes_to_the_sweeps_queue_but_the_ratings(settings: Any) -> None:
    """A sweep never waits behind queued matches: beat's tasks are routed to the sweeps
    queue (the ratings' sweep to the ratings queue), and match_run stays on the default."""
    from arena.celery import app

    def queue_of(name: str) -> str:
        return str(app.amqp.router.route({}, name)["queue"].name)

    sweeps = settings.ARENA_SWEEPS_QUEUE
    assert sweeps == f"{settings.CELERY_TASK_DEFAULT_QUEUE}.sweeps"
    scheduled = {str(entry["task"]) for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert {
        "arena.ladders.tasks.ladders_fill_queues",
        "arena.blobs.tasks.storage_sweep",
    } <= scheduled
    for name in scheduled:
        rating = name == "arena.ladders.tasks.ratings_apply_pending"
        assert queue_of(name) == (settings.ARENA_RATINGS_QUEUE if rating else sweeps), name
    assert queue_of("arena.ladders.tasks.match_run") == settings.CELERY_TASK_DEFAULT_QUEUE


def test_ratings_go_to_their_own_queue_which_every_worker_also_reads(settings: Any) -> None:
    """A rating never waits behind queued matches, and a lone worker still rates (the
    tables' and builds' queues: test_queues.py)."""
    from arena.celery import app

    ratings = settings.ARENA_RATINGS_QUEUE
    assert ratings == f"{settings.CELERY_TASK_DEFAULT_QUEUE}.ratings"
    for name in (
        "arena.ladders.tasks.ratings_apply_match",
        "arena.ladders.tasks.ratings_apply_pending",
    ):
        assert app.amqp.router.route({}, name)["queue"].name == ratings
    assert app.amqp.router.route({}, "arena.ladders.tasks.match_run")["queue"].name == (
        settings.CELERY_TASK_DEFAULT_QUEUE
    )
    # A worker started without -Q consumes every queue of task_queues: these among them.
    assert {queue.name for queue in app.conf.task_queues} >= {
        settings.CELERY_TASK_DEFAULT_QUEUE,
        ratings,
    }


def test_the_served_application_is_frozen_for_the_garbage_collector(tmp_path: Path) -> None:
    """Loaded by arena.wsgi (gunicorn), the application's objects are left out of the
    collector's full passes, which otherwise walk them all every ten requests or so, and
    the young generation is large enough for a request's objects."""
    clean = {k: v for k, v in os.environ.items() if k not in _CLEARED}
    clean.update(
        ARENA_DATA_DIR=str(tmp_path),
        PYTHONPATH=os.pathsep.join([str(REPO_DIR), str(REPO_DIR / "platform")]),
    )
    code = (
        "import gc; import arena.wsgi; "
        "print(gc.get_freeze_count(), len(gc.get_objects()), *gc.get_threshold())"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=clean, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    frozen, tracked, young, *older = map(int, done.stdout.split())
    assert frozen > 10 * tracked  # nearly everything loaded is frozen
    # A request's objects fit in the young generation: a list page no longer runs dozens
    # of collections (the default young generation holds 700).
    assert young == 50_000 and older == [10, 10]
