# PgBouncer from Debian's package, on the locally built base (no registry needed):
# the connection pooler in front of PostgreSQL, in transaction mode, so that every
# web and worker process can hold a connection while the server serves a few.
ARG BASE_IMAGE=las-vegas-arena/debian:bookworm
FROM ${BASE_IMAGE}
RUN apt-get update -q \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends pgbouncer \
    && rm -rf /var/lib/apt/lists/* \
    && mkdir -p /run/pgbouncer && chown postgres:postgres /run/pgbouncer
COPY docker/pgbouncer-entrypoint.sh /usr/local/bin/pgbouncer-entrypoint.sh
USER postgres
EXPOSE 6432
ENTRYPOINT ["/bin/sh", "/usr/local/bin/pgbouncer-entrypoint.sh"]
