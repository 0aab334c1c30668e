#!/usr/bin/env bash
# The embedded mode's Celery broker: a Redis server of the data directory's own,
# reachable only through a Unix socket, $ARENA_DATA_DIR/run/redis.sock (the
# default CELERY_BROKER_URL in platform/arena/settings.py), with its queue kept on
# disk (an append-only file under $ARENA_DATA_DIR/broker) across restarts. It runs
# in the foreground: scripts/services.sh runs it under supervisord.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

DATA_DIR="$(realpath -m "${ARENA_DATA_DIR:-var}")"
SOCKET="$DATA_DIR/run/redis.sock"

if ! command -v redis-server >/dev/null 2>&1; then
    echo "arena: redis-server not found: install it (apt-get install redis-server," \
        "or run 'make run', which does), or set CELERY_BROKER_URL to a broker" >&2
    exit 127
fi
# The kernel's limit for a socket's path is 107 bytes.
if [ "${#SOCKET}" -gt 107 ]; then
    echo "arena: the broker's socket $SOCKET is longer than a Unix socket's path may be" \
        "(107 bytes): set ARENA_DATA_DIR to a shorter path" >&2
    exit 2
fi
mkdir -p "$DATA_DIR/run" "$DATA_DIR/broker"
# No TCP port (port 0): only this user's processes reach it (mode 700), never a bot.
exec redis-server --port 0 --unixsocket "$SOCKET" --unixsocketperm 700 \
    --dir "$DATA_DIR/broker" --appendonly yes --save "" --logfile "" --daemonize no
