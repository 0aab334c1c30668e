"""Settings of the Las Vegas Arena platform, read from environment variables.

With nothing set, the platform runs in *embedded* mode on one machine: SQLite
and uploaded files under the data directory, and as the Celery broker a Redis
server of its own on a Unix socket there, which `make run` installs and starts
(scripts/broker.sh), so nothing is set up by hand.
Bot code and match logs are kept in the database, so every host shares them.
A deployment sets DATABASE_URL (PostgreSQL), CELERY_BROKER_URL (Redis or
RabbitMQ), SECRET_KEY and ALLOWED_HOSTS; docs/deploy.md lists every variable.
"""

from __future__ import annotations

import contextlib
import ipaddress
import secrets
from datetime import timedelta
from pathlib import Path
from typing import Any

import dj_database_url
import django_stubs_ext
from django.core.exceptions import ImproperlyConfigured
from kombu.entity import Queue

from .env import (
    env_bool,
    env_count,
    env_int,
    env_json_object,
    env_list,
    env_secret,
    env_str,
    refuse_placeholder,
)
from .reporting import start_error_reports

# Generic admin and form classes (ModelAdmin[Ladder]) at run time, as the type checker reads them.
django_stubs_ext.monkeypatch()

PLATFORM_DIR = Path(__file__).resolve().parent.parent
REPO_DIR = PLATFORM_DIR.parent

# Everything the embedded mode writes lives here (database, media, broker).
DATA_DIR = Path(env_str("ARENA_DATA_DIR", str(REPO_DIR / "var"))).resolve()
DATA_DIR.mkdir(parents=True, exist_ok=True)
# The Markdown the documentation pages (/docs/) are rendered from: one source of truth.
DOCS_DIR = Path(env_str("ARENA_DOCS_DIR", str(REPO_DIR / "docs"))).resolve()
# Keep the data directory out of git without touching the repository's .gitignore.
_DATA_GITIGNORE = DATA_DIR / ".gitignore"
if not _DATA_GITIGNORE.exists():
    _DATA_GITIGNORE.write_text("*\n")

DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])


def _secret_key() -> str:
    """SECRET_KEY, else a random key kept in the data dir (embedded mode only)."""
    configured = env_secret("SECRET_KEY", "")
    if configured:
        if not DEBUG:
            refuse_placeholder(
                "SECRET_KEY",
                configured,
                fix="python3 -c 'import secrets; print(secrets.token_urlsafe(50))'",
            )
        return configured
    key_file = DATA_DIR / "secret_key"
    if not key_file.exists():
        key_file.touch(mode=0o600)
        key_file.write_text(secrets.token_urlsafe(50))
    return key_file.read_text().strip()


SECRET_KEY = _secret_key()

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_celery_beat",
    "axes",
    "django_htmx",
    "arena.blobs",
    "arena.players",
    "arena.bots",
    "arena.ladders",
    "arena.matches",
    "arena.leagues",
    "arena.competitions",
    "arena.live",
    "arena.tables",
    "arena.notifications",
    "arena.web",
    "arena.ops",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # A strict Content-Security-Policy on every response, static files' too.
    "arena.security.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # request.htmx: a page's polled fragment answers htmx alone.
    "django_htmx.middleware.HtmxMiddleware",
    # Last: turns a login refused by its lockout into arena.throttling's 429.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "arena.urls"
WSGI_APPLICATION = "arena.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --------------------------------------------------------------------------- database


def _database() -> dict[str, Any]:
    url = env_secret("DATABASE_URL", f"sqlite:///{DATA_DIR / 'arena.sqlite3'}")
    config: dict[str, Any] = dict(
        dj_database_url.parse(
            url,
            conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 60),
            conn_health_checks=True,
        )
    )
    if config.get("PASSWORD") and not DEBUG:
        refuse_placeholder("DATABASE_URL's password", config["PASSWORD"], fix="POSTGRES_PASSWORD")
    if config["ENGINE"] == "django.db.backends.sqlite3":
        # Web and worker processes share the file: take the write lock when a
        # transaction begins (no upgrade deadlocks), wait instead of failing
        # at once, and let readers run beside the writer (WAL).
        config["OPTIONS"] = {
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    elif env_bool("DATABASE_TRANSACTION_POOLING", False):
        # Behind a pooler in transaction mode (PgBouncer: Compose's `pgbouncer`), a
        # connection is the server's only for one transaction: no server-side cursors
        # (they outlive it) and no prepared statements (another client may get them).
        config["DISABLE_SERVER_SIDE_CURSORS"] = True
        config["OPTIONS"] = {"prepare_threshold": None}
    return config


DATABASES = {"default": _database()}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_USER_MODEL = "players.User"

# Proxies in front of the web, each appending the address it was reached from to
# X-Forwarded-For: the client's address is that header's entry this far from the right.
# 0 (clients reach gunicorn directly): the header is ignored, as any client can write it.
ARENA_TRUSTED_PROXIES = env_count("ARENA_TRUSTED_PROXIES", 0, "trusted proxies in front of the web")

# django-axes first: it refuses every login (web, API, admin) of a locked-out
# username and address before the password is even checked.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("ARENA_LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("ARENA_LOGIN_COOLOFF_MINUTES", 15))
# The pair: one address cannot guess a password, and nobody can lock a player out
# of their own account from elsewhere.
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "arena.throttling.lockout_response"
# The address that is locked out: the one every rate limit counts (ARENA_TRUSTED_PROXIES).
AXES_CLIENT_IP_CALLABLE = "arena.throttling.client_address"
AXES_USERNAME_CALLABLE = "arena.throttling.login_username"
AXES_VERBOSE = False

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --------------------------------------------------------------------------- cache

# Rate limits count here: with several web processes they must share it, e.g.
# CACHE_URL=redis://redis:6379/2; the default counts per process.
_CACHE_URL = env_secret("CACHE_URL", "")
CACHES = {
    "default": (
        {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": _CACHE_URL}
        if _CACHE_URL
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    )
}

# --------------------------------------------------------------------------- files

STATIC_URL = "static/"
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(DATA_DIR / "static")))
# WhiteNoise warns at every start while the folder is missing (before collectstatic).
with contextlib.suppress(OSError):
    STATIC_ROOT.mkdir(parents=True, exist_ok=True)
MEDIA_URL = env_str("MEDIA_URL", "media/")
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(DATA_DIR / "media")))

# Bot code and match logs go through the default storage, which every web and
# worker host must share: by default the platform's own database
# (arena.blobs.storage.DatabaseStorage), shared with no extra server. One-host
# installs may keep files under MEDIA_ROOT instead
# (STORAGE_BACKEND=django.core.files.storage.FileSystemStorage); large ones use
# S3 (STORAGE_BACKEND=storages.backends.s3.S3Storage, STORAGE_OPTIONS='{"bucket_name":
# "arena"}', the project's `s3` extra). A worker refuses to start on a storage the
# other hosts do not share (arena.blobs.storage_check).
STORAGES = {
    "default": {
        "BACKEND": env_str("STORAGE_BACKEND", "arena.blobs.storage.DatabaseStorage"),
        "OPTIONS": env_json_object("STORAGE_OPTIONS"),
    },
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
    # Old match logs, moved out of the default storage after ARENA_MATCH_LOG_ARCHIVE_DAYS
    # (arena.matches.services.retention): a folder by default, a cold bucket at scale.
    # Every web and worker host must see the same one, as with the default storage.
    "archive": {
        "BACKEND": env_str(
            "ARCHIVE_STORAGE_BACKEND", "django.core.files.storage.FileSystemStorage"
        ),
        "OPTIONS": env_json_object("ARCHIVE_STORAGE_OPTIONS")
        or {"location": env_str("ARENA_ARCHIVE_DIR", str(DATA_DIR / "archive"))},
    },
}
# Match logs older than this many days (by the match's end) move to the archive storage,
# daily; 0 keeps every log in the default storage.
ARENA_MATCH_LOG_ARCHIVE_DAYS = env_count("ARENA_MATCH_LOG_ARCHIVE_DAYS", 0, "days")

# --------------------------------------------------------------------------- celery

#: The embedded broker's socket: scripts/broker.sh starts Redis on it (make run).
EMBEDDED_BROKER_SOCKET = DATA_DIR / "run" / "redis.sock"
CELERY_BROKER_URL = env_secret("CELERY_BROKER_URL", f"redis+socket://{EMBEDDED_BROKER_SOCKET}")
# Several URLs separated by ";" are fail-over brokers of one kind: the first names it.
_BROKER_SCHEME = CELERY_BROKER_URL.split(";")[0].partition("://")[0].strip().lower()
# The longest a worker holds a message unacknowledged: the match (ARENA_MATCH_STALE_SECONDS,
# 1 h) and the task's own retries on a database outage (minutes), with a margin (retries of
# failed attempts wait in the database, not the broker). Past it the broker delivers the
# message again: harmless (every task checks its rows), but a duplicate.
_LONGEST_UNACKED_SECONDS = 7200
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, Any]
if _BROKER_SCHEME in {"redis", "rediss", "redis+socket", "sentinel"}:
    # Redis has no acknowledgements of its own: kombu delivers an unacknowledged
    # message again after this many seconds, so it must outlast the longest hold.
    _visibility = env_int("CELERY_VISIBILITY_TIMEOUT", _LONGEST_UNACKED_SECONDS)
    if _visibility <= 0:
        raise ImproperlyConfigured(
            f"CELERY_VISIBILITY_TIMEOUT={_visibility}: expected a number of seconds above 0, "
            f"at least {_LONGEST_UNACKED_SECONDS} (a retry's delay plus the longest match)"
        )
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": _visibility}
elif _BROKER_SCHEME in {"amqp", "amqps", "pyamqp"}:
    # RabbitMQ redelivers a message as soon as its consumer's connection closes (no
    # visibility timeout). Publisher confirms: a publish returns once the broker has
    # the message (on disk: the queue is durable, the message persistent), so a
    # committed match is never lost silently between commit and publish.
    CELERY_BROKER_TRANSPORT_OPTIONS = {"confirm_publish": True}
elif _BROKER_SCHEME == "memory":
    CELERY_BROKER_TRANSPORT_OPTIONS = {}  # tests only: one process
else:
    # Never the whole URL: it may carry a password.
    _shown = f"{_BROKER_SCHEME}://" if "://" in CELERY_BROKER_URL else "a URL without a scheme"
    _embedded = "leave it unset for the embedded Redis that `make run` starts"
    if _BROKER_SCHEME == "filesystem":
        raise ImproperlyConfigured(
            f"CELERY_BROKER_URL: the filesystem broker is no longer supported; {_embedded}, "
            "or use redis://HOST:6379/0 or amqp://USER:PASSWORD@HOST:5672/VHOST (RabbitMQ)"
        )
    raise ImproperlyConfigured(
        f"CELERY_BROKER_URL: unsupported broker {_shown!r}; "
        "use redis://HOST:6379/0, amqp://USER:PASSWORD@HOST:5672/VHOST (RabbitMQ) "
        f"or {_embedded} (one machine)"
    )
CELERY_RESULT_BACKEND = env_secret("CELERY_RESULT_BACKEND", f"file://{DATA_DIR / 'celery-results'}")
if CELERY_RESULT_BACKEND.startswith("file://"):
    Path(CELERY_RESULT_BACKEND.removeprefix("file://")).mkdir(parents=True, exist_ok=True)
# Tests and one-off scripts run tasks in-process.
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_EAGER_PROPAGATES = True
# The queue every task goes to; platforms sharing one broker (or tests) use their own.
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_TASK_DEFAULT_QUEUE", "celery")
# Ratings on a queue of their own, read by a worker process of their own (`make run`'s
# "ratings", compose's "ratings"): a rating takes milliseconds and must not wait behind
# queued matches, each of which holds a worker process for a whole game. A worker
# started without -Q reads both queues, so a platform with one worker still rates.
# (Set to the default queue, ratings share it again: bench/platform.py's "before".)
ARENA_RATINGS_QUEUE = env_str("ARENA_RATINGS_QUEUE", f"{CELERY_TASK_DEFAULT_QUEUE}.ratings")
# Tables and builds on queues of their own too, each read by workers of their own
# (`make run`'s and compose's "tables" and "builds"), whose concurrency is all they
# can ever take: a table holds its worker process while the person thinks (minutes),
# a build (an upload's, with its pre-flight games, or an editor test game's) up to its
# time limits. The match workers read neither (-Q), so matches keep flowing however
# many people sit at tables or upload. A worker started without -Q reads every queue:
# a platform with one worker still plays everything, with no such separation.
ARENA_TABLES_QUEUE = env_str("ARENA_TABLES_QUEUE", f"{CELERY_TASK_DEFAULT_QUEUE}.tables")
ARENA_BUILDS_QUEUE = env_str("ARENA_BUILDS_QUEUE", f"{CELERY_TASK_DEFAULT_QUEUE}.builds")
# Beat's sweeps (matchmaking, leagues, the recovery sweeps, refits) on a queue of their
# own, read by the ratings worker and the match workers: a sweep never waits behind a
# queue of matches, and a platform with only match workers still sweeps.
ARENA_SWEEPS_QUEUE = env_str("ARENA_SWEEPS_QUEUE", f"{CELERY_TASK_DEFAULT_QUEUE}.sweeps")
CELERY_TASK_QUEUES = tuple(
    Queue(name)  # type: ignore[no-untyped-call]  # kombu has no types
    for name in dict.fromkeys(
        (
            CELERY_TASK_DEFAULT_QUEUE,
            ARENA_RATINGS_QUEUE,
            ARENA_TABLES_QUEUE,
            ARENA_BUILDS_QUEUE,
            ARENA_SWEEPS_QUEUE,
        )
    )
)
# The fixed entries below are copied into the database when beat starts
# (django-celery-beat); leagues need no entries of their own: a sweep advances them.
# django-celery-beat's database scheduler, with beat's heartbeat file (arena.ops.beat).
CELERY_BEAT_SCHEDULER = "arena.ops.beat:Scheduler"
CELERY_BEAT_SCHEDULE_FILENAME = str(DATA_DIR / "celerybeat-schedule")
CELERY_BEAT_SCHEDULE = {
    "requeue-stale-matches": {
        "task": "arena.ladders.tasks.matches_requeue_stale",
        "schedule": 60.0,
    },
    "retry-failed-matches": {
        "task": "arena.ladders.tasks.matches_retry_waiting",
        "schedule": 10.0,
    },
    "republish-queued-matches": {
        "task": "arena.ladders.tasks.matches_republish_queued",
        "schedule": 60.0,
    },
    "revalidate-stuck-versions": {
        "task": "arena.ladders.tasks.qualifications_requeue_stuck",
        "schedule": 300.0,
    },
    "rate-finished-matches": {
        "task": "arena.ladders.tasks.ratings_apply_pending",
        "schedule": 60.0,
    },
    "fill-ladder-queues": {
        "task": "arena.ladders.tasks.ladders_fill_queues",
        "schedule": 10.0,
    },
    "refit-ratings": {
        "task": "arena.ladders.tasks.ladders_refit_due",
        "schedule": 60.0,
    },
    "advance-leagues": {
        "task": "arena.leagues.tasks.leagues_advance_due",
        "schedule": 10.0,
    },
    "advance-competitions": {
        "task": "arena.competitions.tasks.competitions_advance_due",
        "schedule": 10.0,
    },
    "sweep-live-feeds": {
        "task": "arena.live.tasks.live_sweep",
        "schedule": 3600.0,
    },
    # Often: a person at a table whose worker died sees it fail within seconds (their
    # page's polls check it too); the query reads an index of the active tables only.
    "end-lost-tables": {
        "task": "arena.tables.tasks.tables_end_lost",
        "schedule": 5.0,
    },
    "requeue-lost-notifications": {
        "task": "arena.notifications.tasks.deliveries_requeue_lost",
        "schedule": 600.0,
    },
    "sweep-orphaned-files": {
        "task": "arena.blobs.tasks.storage_sweep",
        "schedule": 86400.0,
    },
    "archive-old-logs": {
        "task": "arena.ladders.tasks.match_logs_archive",
        "schedule": 86400.0,
    },
}

CELERY_TASK_ROUTES = {
    "arena.ladders.tasks.ratings_apply_match": {"queue": ARENA_RATINGS_QUEUE},
    "arena.ladders.tasks.ratings_apply_pending": {"queue": ARENA_RATINGS_QUEUE},
    "arena.tables.tasks.table_play": {"queue": ARENA_TABLES_QUEUE},
    "arena.ladders.tasks.version_qualify": {"queue": ARENA_BUILDS_QUEUE},
    "arena.ladders.tasks.play_test_game": {"queue": ARENA_BUILDS_QUEUE},
}
# Every other task beat schedules is a sweep.
CELERY_TASK_ROUTES.update(
    {
        str(entry["task"]): {"queue": ARENA_SWEEPS_QUEUE}
        for entry in CELERY_BEAT_SCHEDULE.values()
        if entry["task"] not in CELERY_TASK_ROUTES
    }
)

# --------------------------------------------------------------------------- arena

# Upload limits (bytes / files); docs/ladders.md explains each.
ARENA_UPLOAD_MAX_BYTES = env_int("ARENA_UPLOAD_MAX_BYTES", 1024 * 1024)
ARENA_UPLOAD_MAX_UNCOMPRESSED_BYTES = env_int(
    "ARENA_UPLOAD_MAX_UNCOMPRESSED_BYTES", 8 * 1024 * 1024
)
ARENA_UPLOAD_MAX_FILES = env_int("ARENA_UPLOAD_MAX_FILES", 200)
# A zip member expanding more than this many times its compressed size is
# treated as a zip bomb (source code compresses about 3-10 times).
ARENA_UPLOAD_MAX_RATIO = env_int("ARENA_UPLOAD_MAX_RATIO", 100)

# A match still running this long after it started is presumed lost with its
# worker: it is queued again (or failed after ARENA_MATCH_MAX_ATTEMPTS).
ARENA_MATCH_STALE_SECONDS = env_int("ARENA_MATCH_STALE_SECONDS", 3600)
# A stored file no row names is deleted by the daily sweep once this old: a younger
# one may belong to a transaction not committed yet (arena.blobs.sweep).
ARENA_ORPHAN_GRACE_SECONDS = env_int("ARENA_ORPHAN_GRACE_SECONDS", 86400)
if ARENA_ORPHAN_GRACE_SECONDS < 3600:
    raise ImproperlyConfigured(
        f"ARENA_ORPHAN_GRACE_SECONDS={ARENA_ORPHAN_GRACE_SECONDS}: at least 3600 (an hour); "
        "a younger file may be one a transaction still writes."
    )
ARENA_MATCH_MAX_ATTEMPTS = env_int("ARENA_MATCH_MAX_ATTEMPTS", 6)
# A failed attempt is retried as soon as the resource it failed on answers again (the
# retry sweep probes it), and at the latest after BASE seconds, 4 times longer each
# time, at most MAX: 30 s, 2 min, 8 min, 30 min, 30 min with the defaults, over an
# hour in all.
ARENA_MATCH_RETRY_BASE_SECONDS = env_int("ARENA_MATCH_RETRY_BASE_SECONDS", 30)
ARENA_MATCH_RETRY_MAX_SECONDS = env_int("ARENA_MATCH_RETRY_MAX_SECONDS", 1800)
# Runs (a series counts once) of retries published or playing at once, at most: a
# flapping resource cannot fill the workers with retries.
ARENA_MATCH_RETRIES_IN_FLIGHT = env_int("ARENA_MATCH_RETRIES_IN_FLIGHT", 8)
if ARENA_MATCH_RETRIES_IN_FLIGHT < 1:
    raise ImproperlyConfigured(
        f"ARENA_MATCH_RETRIES_IN_FLIGHT={ARENA_MATCH_RETRIES_IN_FLIGHT}: at least 1, "
        "or failed matches are never retried."
    )
# Every worker removes the bot code left by its host's dead processes this often (and
# when it and each pool process start): arena.bots.scratch.
ARENA_BOT_FILES_SWEEP_SECONDS = env_int("ARENA_BOT_FILES_SWEEP_SECONDS", 300)
# A match still queued this long after its message was due lost it: it is published again.
ARENA_MATCH_REPUBLISH_SECONDS = env_int("ARENA_MATCH_REPUBLISH_SECONDS", 300)
# A worker playing a match writes a heartbeat every quarter of this; a running
# match silent for longer lost its worker and is queued again.
ARENA_MATCH_LEASE_SECONDS = env_int("ARENA_MATCH_LEASE_SECONDS", 60)

# Matchmaking (beat): matches kept queued per open ladder (whole series), and runs (a
# series, a duplicate deal or a lone match) per bot at most. Two series of the default
# 12 games: a ladder behind the others can queue a second one (fair share).
ARENA_LADDER_QUEUE_TARGET = env_int("ARENA_LADDER_QUEUE_TARGET", 24)
ARENA_BOT_MAX_QUEUED = env_int("ARENA_BOT_MAX_QUEUED", 2)
# ... or more, for the worker processes that play matches: this many runs kept queued per
# process (shared by the ladders), the per-bot cap raised to match; no more on a ladder
# whose oldest queued match has waited this long (the workers are behind).
ARENA_QUEUE_RUNS_PER_SLOT = env_count(
    "ARENA_QUEUE_RUNS_PER_SLOT", 2, "runs kept queued per worker process"
)
ARENA_QUEUE_MAX_AGE_SECONDS = env_int("ARENA_QUEUE_MAX_AGE_SECONDS", 600)
# The processes are counted from what the workers report every this many seconds (a
# worker silent for three times this is gone), unless ARENA_MATCH_WORKER_SLOTS sets them.
ARENA_WORKER_PRESENCE_SECONDS = env_int("ARENA_WORKER_PRESENCE_SECONDS", 30)
ARENA_MATCH_WORKER_SLOTS = env_count(
    "ARENA_MATCH_WORKER_SLOTS", 0, "worker processes that play matches (0: as reported)"
)
# House bots alone on a ladder play until each has this many games, then rest.
ARENA_HOUSE_ONLY_GAMES = env_int("ARENA_HOUSE_ONLY_GAMES", 30)
# Challenges (unrated matches on request): games per request, and per player per hour.
ARENA_CHALLENGE_MAX_GAMES = env_int("ARENA_CHALLENGE_MAX_GAMES", 10)
ARENA_CHALLENGE_GAMES_PER_HOUR = env_int("ARENA_CHALLENGE_GAMES_PER_HOUR", 30)
# Test games of the browser editor (unrated, against house bots) an author runs per hour.
ARENA_EDITOR_TEST_GAMES_PER_HOUR = env_int("ARENA_EDITOR_TEST_GAMES_PER_HOUR", 30)
# Drafts one author may keep in the editor (each up to ARENA_UPLOAD_MAX_BYTES).
ARENA_EDITOR_MAX_DRAFTS = env_int("ARENA_EDITOR_MAX_DRAFTS", 50)

# Teams (docs/teams.md): days an invitation link works after a team owner made it.
ARENA_TEAM_INVITE_DAYS = env_int("ARENA_TEAM_INVITE_DAYS", 7)

# Tables: a person plays an unrated game against bots in the browser. Games waiting
# or being played at once per person; the person's time per decision (past it they
# forfeit, and the bots play on); a table whose worker is silent this long failed
# (the worker beats every second; a person waits that long to learn their game is
# lost); one no worker took this long failed too.
ARENA_TABLES_PER_PLAYER = env_int("ARENA_TABLES_PER_PLAYER", 1)
ARENA_TABLE_DECISION_SECONDS = env_int("ARENA_TABLE_DECISION_SECONDS", 90)
ARENA_TABLE_LEASE_SECONDS = env_int("ARENA_TABLE_LEASE_SECONDS", 10)
if ARENA_TABLE_LEASE_SECONDS < 3:
    raise ImproperlyConfigured(
        f"ARENA_TABLE_LEASE_SECONDS={ARENA_TABLE_LEASE_SECONDS}: at least 3; the worker "
        "beats every second, and a shorter lease fails tables whose worker is only slow."
    )
ARENA_TABLE_QUEUE_SECONDS = env_int("ARENA_TABLE_QUEUE_SECONDS", 900)
# Tables waiting or being played at once on the whole platform: a table holds a worker
# process of the tables queue for its whole game, so more than those workers' total
# concurrency (TABLE_CONCURRENCY of `make run` and compose) only wait in the queue.
ARENA_TABLES_OPEN_MAX = env_int("ARENA_TABLES_OPEN_MAX", 4)
# Builds one player may have in flight (uploads and editor test builds not built and
# pre-flighted yet): each holds a worker process of the builds queue while it runs.
ARENA_BUILDS_IN_FLIGHT_MAX = env_int("ARENA_BUILDS_IN_FLIGHT_MAX", 2)
# Competitions are created by staff; with this on, by any player whose e-mail address is
# verified too.
ARENA_COMPETITIONS_OPEN_TO_USERS = env_bool("ARENA_COMPETITIONS_OPEN_TO_USERS", False)

# A running match's page shows its replay as it grows: the worker publishes the new
# events at most this often (milliseconds). Feeds of games that never ended properly
# are swept after ARENA_LIVE_KEEP_HOURS.
ARENA_LIVE_PUBLISH_MS = env_int("ARENA_LIVE_PUBLISH_MS", 500)
ARENA_LIVE_KEEP_HOURS = env_int("ARENA_LIVE_KEEP_HOURS", 24)

# --------------------------------------------------------------------------- notifications

# The site's address as people reach it: links in e-mails (sent by workers, outside any request).
ARENA_SITE_URL = env_str("ARENA_SITE_URL", "http://localhost:8000")
# E-mail: Django's SMTP backend once EMAIL_HOST is set, else the console backend (`make run`
# prints each e-mail in the worker's log); the tests use Django's in-memory outbox.
EMAIL_HOST = env_str("EMAIL_HOST", "")
EMAIL_BACKEND = env_str(
    "EMAIL_BACKEND",
    "django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "django.core.mail.backends.console.EmailBackend",
)
EMAIL_PORT = env_int("EMAIL_PORT", 587)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env_secret("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Las Vegas Arena <arena@localhost>")
# How long an e-mail verification link works (the platform e-mails only verified addresses).
ARENA_EMAIL_VERIFY_HOURS = env_int("ARENA_EMAIL_VERIFY_HOURS", 48)
if ARENA_EMAIL_VERIFY_HOURS < 1:
    raise ImproperlyConfigured(f"ARENA_EMAIL_VERIFY_HOURS={ARENA_EMAIL_VERIFY_HOURS}: at least 1.")
# Per author and hour, at most: past it a notification's delivery is logged as throttled
# and never sent (the settings page's log shows it).
ARENA_NOTIFY_EMAILS_PER_HOUR = env_int("ARENA_NOTIFY_EMAILS_PER_HOUR", 10)
ARENA_NOTIFY_WEBHOOKS_PER_HOUR = env_int("ARENA_NOTIFY_WEBHOOKS_PER_HOUR", 120)
# Attempts at one delivery; the retries wait BASE seconds, doubling, at most an hour.
ARENA_NOTIFY_MAX_ATTEMPTS = env_int("ARENA_NOTIFY_MAX_ATTEMPTS", 6)
ARENA_NOTIFY_RETRY_BASE_SECONDS = env_int("ARENA_NOTIFY_RETRY_BASE_SECONDS", 30)
if ARENA_NOTIFY_RETRY_BASE_SECONDS < 1 or ARENA_NOTIFY_MAX_ATTEMPTS < 1:
    raise ImproperlyConfigured(
        "ARENA_NOTIFY_RETRY_BASE_SECONDS and ARENA_NOTIFY_MAX_ATTEMPTS: at least 1."
    )
ARENA_WEBHOOK_TIMEOUT_SECONDS = env_int("ARENA_WEBHOOK_TIMEOUT_SECONDS", 5)
# Webhooks to loopback and private addresses: refused unless this is on (DEBUG, tests): an
# author's URL must not reach the platform's own network.
ARENA_WEBHOOK_ALLOW_PRIVATE = env_bool("ARENA_WEBHOOK_ALLOW_PRIVATE", DEBUG)

# --------------------------------------------------------------------------- api

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # Scripts send "Authorization: Token <key>" (POST /api/auth/token/); the
        # browsable API and the docs pages use the login session.
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "arena.api.exception_handler",
    # Counted in Django's cache (CACHES): per client address for token requests and
    # sign-ups, per account for uploads (arena.throttling, which finds the address
    # itself; NUM_PROXIES for any throttle of DRF's own).
    "NUM_PROXIES": ARENA_TRUSTED_PROXIES,
    "DEFAULT_THROTTLE_RATES": {
        "login": env_str("ARENA_RATE_LOGIN", "10/min"),
        "signup": env_str("ARENA_RATE_SIGNUP", "10/hour"),
        "upload": env_str("ARENA_RATE_UPLOAD", "30/hour"),
        # Uploads to a team's bots, all its members together (on top of each one's own).
        "upload_team": env_str("ARENA_RATE_TEAM_UPLOAD", "30/hour"),
        # Verification e-mails asked for, per account (sign-up's own is counted as a sign-up).
        "email_verify": env_str("ARENA_RATE_EMAIL_VERIFY", "5/hour"),
    },
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Las Vegas Arena API",
    "DESCRIPTION": "Bots, ladders, ratings and matches of the Las Vegas Arena.",
    "VERSION": "0.1.0",
    # Swagger UI (/api/docs/) from the drf-spectacular-sidecar package's static files, no
    # CDN; no online validator badge either.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
    "COMPONENT_SPLIT_REQUEST": True,
}

# --------------------------------------------------------------------------- logging

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}

# --------------------------------------------------------------------------- https

# Set these when the platform is served over HTTPS (behind a TLS proxy).
SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", False)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0)
# Health probes come from inside the network in plain HTTP (compose's healthchecks).
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]
if env_bool("BEHIND_TLS_PROXY", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# --------------------------------------------------------------------------- operations

# GET /metrics (Prometheus, arena.ops) answers a request with "Authorization: Bearer
# <ARENA_METRICS_TOKEN>", or from an address in ARENA_METRICS_ALLOWED_IPS (addresses or
# networks, e.g. 10.0.0.0/8, as arena.throttling.client_address finds the client); with
# neither set it answers nobody (403).
ARENA_METRICS_TOKEN = env_secret("ARENA_METRICS_TOKEN", "")
ARENA_METRICS_ALLOWED_IPS = env_list("ARENA_METRICS_ALLOWED_IPS", [])
for _network in ARENA_METRICS_ALLOWED_IPS:
    try:
        ipaddress.ip_network(_network, strict=False)
    except ValueError:
        raise ImproperlyConfigured(
            f"ARENA_METRICS_ALLOWED_IPS: {_network!r} is no IP address or network; "
            "write e.g. 10.0.0.5,172.16.0.0/12"
        ) from None
# Workers and beat touch a heartbeat file here this often; `manage.py probe worker|beat`
# (compose's healthchecks) fails once it is four beats old (arena.heartbeats).
ARENA_HEARTBEAT_DIR = Path(env_str("ARENA_HEARTBEAT_DIR", str(DATA_DIR / "run" / "heartbeats")))
ARENA_HEARTBEAT_SECONDS = env_int("ARENA_HEARTBEAT_SECONDS", 10)
if ARENA_HEARTBEAT_SECONDS < 1:
    raise ImproperlyConfigured(f"ARENA_HEARTBEAT_SECONDS={ARENA_HEARTBEAT_SECONDS}: at least 1.")
# Errors (web requests, tasks, logged errors) go to Sentry, or a service that speaks its
# protocol, when SENTRY_DSN is set; off by default. Errors only: no tracing, no personal data.
SENTRY_DSN = env_secret("SENTRY_DSN", "")
SENTRY_ENVIRONMENT = env_str("SENTRY_ENVIRONMENT", "production")
if SENTRY_DSN:
    start_error_reports(dsn=SENTRY_DSN, environment=SENTRY_ENVIRONMENT)
