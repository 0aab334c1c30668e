#!/usr/bin/env bash
# Run the whole platform on this machine: migrate, load the house bots, then
# the web server (gunicorn), a Celery worker and Celery beat, until Ctrl-C or
# until one of them stops (then the others are stopped too).
#
# With no environment set this is the embedded mode: SQLite, files and the
# Celery broker under ./var (ARENA_DATA_DIR). Set DATABASE_URL,
# CELERY_BROKER_URL, ... to use servers instead (docs/platform.md).
#
#   HOST=0.0.0.0 PORT=8000 WEB_WORKERS=2 WORKER_CONCURRENCY=2 scripts/services.sh
#   ARENA_RUN_SECONDS=20 scripts/services.sh   # stop by itself (smoke tests)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

PYTHON="${PYTHON:-python3}"
HOST="${HOST:-127.0.0.1}"
PORT="${PORT:-8000}"
WEB_WORKERS="${WEB_WORKERS:-2}"
WORKER_CONCURRENCY="${WORKER_CONCURRENCY:-2}"
LOG_LEVEL="${CELERY_LOG_LEVEL:-info}"

# platform/ is a plain directory on the path: the Django project imports as arena.*
export PYTHONPATH="$PWD:$PWD/platform${PYTHONPATH:+:$PYTHONPATH}"
export DJANGO_SETTINGS_MODULE=arena.settings

"$PYTHON" manage.py migrate --noinput
"$PYTHON" manage.py collectstatic --noinput -v0
"$PYTHON" manage.py load_house_bots

pids=()
stop_all() {
    trap - EXIT INT TERM
    for pid in "${pids[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
    done
    wait || true
}
trap stop_all EXIT INT TERM

"$PYTHON" -m gunicorn arena.wsgi --bind "$HOST:$PORT" --workers "$WEB_WORKERS" \
    --access-logfile - &
pids+=($!)
"$PYTHON" -m celery -A arena worker --concurrency "$WORKER_CONCURRENCY" -l "$LOG_LEVEL" &
pids+=($!)
"$PYTHON" -m celery -A arena beat -l "$LOG_LEVEL" &
pids+=($!)

echo "arena: web on http://$HOST:$PORT/ (admin at /admin/, API at /api/), worker and beat running"
if [[ -n "${ARENA_RUN_SECONDS:-}" ]]; then
    sleep "$ARENA_RUN_SECONDS" &
    pids+=($!)
fi
# Whichever process ends first (a crash, or the timer) ends the others.
wait -n
