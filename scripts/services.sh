#!/usr/bin/env bash
# Run the whole platform on this machine: migrate, load the house bots, then
# the web server (gunicorn), the Celery workers (matches, ratings, tables,
# builds: a queue each) and Celery beat under supervisord, which restarts
# whichever of them dies, until Ctrl-C (or SIGTERM).
#
# With no environment set this is the embedded mode: SQLite and files under
# ./var (ARENA_DATA_DIR), and a Redis server of its own as the Celery broker
# (scripts/broker.sh, a Unix socket there), started first under supervisord
# too. Set DATABASE_URL, CELERY_BROKER_URL (redis:// or amqp://), ... to use
# servers instead (docs/deploy.md); supervisord passes them on to every program.
# Each process logs to $ARENA_DATA_DIR/log/<name>.log; supervisord's own log
# (starts, exits, restarts) to supervisord.log there and to this script's output.
#
#   HOST=0.0.0.0 PORT=8000 WEB_WORKERS=2 WORKER_CONCURRENCY=2 scripts/services.sh
#   TABLE_CONCURRENCY=4 BUILD_CONCURRENCY=1 scripts/services.sh
#   ARENA_RUN_SECONDS=20 scripts/services.sh   # stop by itself (smoke tests)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

PYTHON="${PYTHON:-python3}"
# supervisord starts the programs from this directory, but a relative path
# such as .venv/bin/python is made absolute (never resolved: that would leave the venv).
[[ "$PYTHON" == */* && "$PYTHON" != /* ]] && PYTHON="$PWD/$PYTHON"
HOST="${HOST:-127.0.0.1}"
PORT="${PORT:-8000}"
WEB_WORKERS="${WEB_WORKERS:-2}"
WORKER_CONCURRENCY="${WORKER_CONCURRENCY:-2}"
TABLE_CONCURRENCY="${TABLE_CONCURRENCY:-4}"
BUILD_CONCURRENCY="${BUILD_CONCURRENCY:-1}"
# The queues, named as settings.py names them from the same variables.
QUEUE="${CELERY_TASK_DEFAULT_QUEUE:-celery}"
RATINGS_QUEUE="${ARENA_RATINGS_QUEUE:-$QUEUE.ratings}"
TABLES_QUEUE="${ARENA_TABLES_QUEUE:-$QUEUE.tables}"
BUILDS_QUEUE="${ARENA_BUILDS_QUEUE:-$QUEUE.builds}"
SWEEPS_QUEUE="${ARENA_SWEEPS_QUEUE:-$QUEUE.sweeps}"
LOG_LEVEL="${CELERY_LOG_LEVEL:-info}"
DATA_DIR="$(realpath -m "${ARENA_DATA_DIR:-var}")"
LOG_DIR="$DATA_DIR/log"
RUN_DIR="$DATA_DIR/run"

# platform/ is a plain directory on the path: the Django project imports as arena.*
export PYTHONPATH="$PWD:$PWD/platform${PYTHONPATH:+:$PYTHONPATH}"
export DJANGO_SETTINGS_MODULE=arena.settings
export ARENA_DATA_DIR="$DATA_DIR"

mkdir -p "$LOG_DIR" "$RUN_DIR"
# Every program restarts whenever it exits (a crash, a kill), with no limit
# on retries; stopping kills each one's whole process group (gunicorn's and
# Celery's children included). Only the broker starts with supervisord: the
# others once the database is migrated and the house bots loaded (below).
program() {
    cat <<CONF

[program:$1]
command=$2
directory=$PWD
autostart=${3:-false}
autorestart=true
startsecs=5
startretries=1000000
stopasgroup=true
killasgroup=true
stopwaitsecs=20
redirect_stderr=true
stdout_logfile=$LOG_DIR/$1.log
stdout_logfile_maxbytes=10MB
stdout_logfile_backups=3
CONF
}
{
    cat <<CONF
[supervisord]
nodaemon=true
logfile=$LOG_DIR/supervisord.log
pidfile=$RUN_DIR/supervisord.pid
childlogdir=$LOG_DIR

[unix_http_server]
file=$RUN_DIR/supervisor.sock

[supervisorctl]
serverurl=unix://$RUN_DIR/supervisor.sock

[rpcinterface:supervisor]
supervisor.rpcinterface_factory=supervisor.rpcinterface:make_main_rpcinterface
CONF
    if [[ -z "${CELERY_BROKER_URL:-}" ]]; then
        program broker "bash scripts/broker.sh" true
    fi
    program web "$PYTHON -m gunicorn arena.wsgi --bind $HOST:$PORT --workers $WEB_WORKERS --access-logfile -"
    # Matches, and the ratings and sweeps when their worker is busy or down; never tables
    # or builds, which hold a process for minutes: they have workers of their own.
    program worker "$PYTHON -m celery -A arena worker -Q $QUEUE,$RATINGS_QUEUE,$SWEEPS_QUEUE --concurrency $WORKER_CONCURRENCY -l $LOG_LEVEL"
    # Ratings and beat's sweeps on their own queues and process: never behind matches.
    program ratings "$PYTHON -m celery -A arena worker -Q $RATINGS_QUEUE,$SWEEPS_QUEUE --concurrency 1 -n ratings@%%h -l $LOG_LEVEL"
    # Tables (a person against bots) and builds (uploads with their pre-flights, editor
    # test games): each at most its concurrency at once, whoever asks.
    program tables "$PYTHON -m celery -A arena worker -Q $TABLES_QUEUE --concurrency $TABLE_CONCURRENCY -n tables@%%h -l $LOG_LEVEL"
    program builds "$PYTHON -m celery -A arena worker -Q $BUILDS_QUEUE --concurrency $BUILD_CONCURRENCY -n builds@%%h -l $LOG_LEVEL"
    program beat "$PYTHON -m celery -A arena beat -l $LOG_LEVEL"
} >"$RUN_DIR/supervisord.conf"

if [ "$(id -u)" -ne 0 ]; then
    echo "arena: not root: the worker cannot sandbox bots, uploaded bots will not validate" >&2
fi

"$PYTHON" -m supervisor.supervisord -c "$RUN_DIR/supervisord.conf" &
supervisor=$!
stop() {
    trap - EXIT INT TERM
    kill -TERM "$supervisor" 2>/dev/null || true
    wait "$supervisor" || true
}
trap stop EXIT INT TERM

if [[ -z "${CELERY_BROKER_URL:-}" ]]; then
    # The set-up below queues work (the house bots' pre-flights): the broker answers first.
    echo "arena: starting the embedded broker (Redis on $RUN_DIR/redis.sock)"
    if ! "$PYTHON" - "$RUN_DIR/redis.sock" <<'PY'; then
import sys, time
import redis

client = redis.Redis(unix_socket_path=sys.argv[1], socket_timeout=5)
for _ in range(120):
    try:
        client.ping()
        break
    except redis.exceptions.ConnectionError:
        time.sleep(0.5)
else:
    sys.exit(1)
PY
        echo "arena: the embedded broker did not answer within a minute: see $LOG_DIR/broker.log" >&2
        exit 1
    fi
fi
"$PYTHON" manage.py migrate --noinput
# This host can use the platform's storage, and it is the one the other hosts
# share (the worker checks again when it starts; docs/operations.md, *Storage*).
"$PYTHON" manage.py check_storage --role web
"$PYTHON" manage.py collectstatic --noinput -v0
"$PYTHON" manage.py load_house_bots
ctl() { "$PYTHON" -m supervisor.supervisorctl -c "$RUN_DIR/supervisord.conf" "$@"; }
for _ in $(seq 120); do  # supervisord answers on its socket (at once, in practice)
    ctl pid >/dev/null 2>&1 && break
    kill -0 "$supervisor" 2>/dev/null || exit 1
    sleep 0.5
done
ctl start all >/dev/null  # together, not one startsecs after another

echo "arena: web on http://$HOST:$PORT/ (admin at /admin/, API at /api/), workers" \
    "(worker, ratings, tables, builds) and beat"
echo "arena: logs in $LOG_DIR/*.log (tail -F $LOG_DIR/*.log);" \
    "status: $PYTHON -m supervisor.supervisorctl -c $RUN_DIR/supervisord.conf status"
if [[ -n "${ARENA_RUN_SECONDS:-}" ]]; then
    sleep "$ARENA_RUN_SECONDS" &
    timer=$!
    status=0
    wait -n "$supervisor" "$timer" || status=$?
    kill "$timer" 2>/dev/null || true
    # supervisord ended before the timer (it failed): say so by the exit status.
    kill -0 "$supervisor" 2>/dev/null || exit "$status"
else
    wait "$supervisor"
fi
