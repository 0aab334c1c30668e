# Redis from Debian's package, on the locally built base (no registry needed).
# Data in /data; docker-compose.yml turns on the append-only file there.
ARG BASE_IMAGE=las-vegas-arena/debian:bookworm
FROM ${BASE_IMAGE}
RUN apt-get update -q \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends redis-server \
    && rm -rf /var/lib/apt/lists/* \
    && mkdir -p /data && chown redis:redis /data
USER redis
WORKDIR /data
VOLUME /data
EXPOSE 6379
# No configuration file: Redis's defaults, on every address (only the stack's
# network reaches it: no port is published), data in /data.
CMD ["redis-server", "--protected-mode", "no", "--dir", "/data"]
