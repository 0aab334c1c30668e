#!/bin/sh
# A self-signed certificate for SERVER_NAME when /certs has none (trying the stack
# only: browsers warn), then nginx in the foreground.
set -eu
if [ ! -s /certs/fullchain.pem ] || [ ! -s /certs/privkey.pem ]; then
    mkdir -p /certs
    echo "proxy: no certificate in /certs: a self-signed one for ${SERVER_NAME:-localhost}" >&2
    openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj "/CN=${SERVER_NAME:-localhost}" \
        -keyout /certs/privkey.pem -out /certs/fullchain.pem 2>/dev/null
fi
exec nginx -g 'daemon off;'
