#!/bin/sh
# PgBouncer's configuration from the environment: the database POSTGRES_DB on
# POSTGRES_HOST as POSTGRES_USER (password POSTGRES_PASSWORD), clients allowed with
# the same user and password (SCRAM), transaction pooling with PGBOUNCER_POOL_SIZE
# server connections and up to PGBOUNCER_MAX_CLIENTS clients.
set -eu
: "${POSTGRES_HOST:=postgres}"
: "${POSTGRES_USER:=arena}"
: "${POSTGRES_DB:=arena}"
if [ -z "${POSTGRES_PASSWORD:-}" ]; then
    echo "pgbouncer-entrypoint: set POSTGRES_PASSWORD" >&2
    exit 1
fi
conf=/run/pgbouncer
printf '"%s" "%s"\n' "$POSTGRES_USER" "$POSTGRES_PASSWORD" >"$conf/users.txt"
chmod 600 "$conf/users.txt"
cat >"$conf/pgbouncer.ini" <<INI
[databases]
$POSTGRES_DB = host=$POSTGRES_HOST port=5432 dbname=$POSTGRES_DB
[pgbouncer]
listen_addr = *
listen_port = 6432
unix_socket_dir =
auth_type = scram-sha-256
auth_file = $conf/users.txt
pool_mode = transaction
default_pool_size = ${PGBOUNCER_POOL_SIZE:-20}
max_client_conn = ${PGBOUNCER_MAX_CLIENTS:-1000}
server_reset_query =
ignore_startup_parameters = extra_float_digits,options
INI
exec pgbouncer "$conf/pgbouncer.ini"
