# nginx from Debian's package, on the locally built base: the example reverse proxy in
# front of the web (TLS on 443, port 80 redirected). Certificates in /certs
# (fullchain.pem, privkey.pem): mount your own; without them a self-signed pair is
# made at the first start, for trying the stack only.
ARG BASE_IMAGE=las-vegas-arena/debian:bookworm
FROM ${BASE_IMAGE}
RUN apt-get update -q \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
        nginx-light openssl \
    && rm -rf /var/lib/apt/lists/* \
    && rm -f /etc/nginx/sites-enabled/default \
    && ln -sf /dev/stdout /var/log/nginx/access.log \
    && ln -sf /dev/stderr /var/log/nginx/error.log
COPY docker/proxy.conf /etc/nginx/conf.d/arena.conf
COPY docker/proxy-entrypoint.sh /usr/local/bin/proxy-entrypoint.sh
EXPOSE 80 443
ENTRYPOINT ["/bin/sh", "/usr/local/bin/proxy-entrypoint.sh"]
