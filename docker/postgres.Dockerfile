# PostgreSQL 15 from Debian's packages, on the locally built base (no registry needed).
# Configured like the official postgres image: POSTGRES_DB, POSTGRES_USER and
# POSTGRES_PASSWORD make the cluster on the first start, in /var/lib/postgresql/data.
ARG BASE_IMAGE=las-vegas-arena/debian:bookworm
FROM ${BASE_IMAGE}
# No default cluster at install: the entrypoint makes one in the volume.
RUN mkdir -p /etc/postgresql-common \
    && echo "create_main_cluster = false" >/etc/postgresql-common/createcluster.conf \
    && apt-get update -q \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
        postgresql-15 \
    && rm -rf /var/lib/apt/lists/* \
    && mkdir -p /var/lib/postgresql/data /var/run/postgresql \
    && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql \
    && chmod 0700 /var/lib/postgresql/data
COPY docker/postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint.sh
ENV PATH=/usr/lib/postgresql/15/bin:$PATH \
    PGDATA=/var/lib/postgresql/data \
    LANG=C.UTF-8
USER postgres
VOLUME /var/lib/postgresql/data
EXPOSE 5432
STOPSIGNAL SIGINT
ENTRYPOINT ["/usr/local/bin/postgres-entrypoint.sh"]
CMD ["postgres"]
