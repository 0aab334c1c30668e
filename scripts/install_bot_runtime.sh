#!/usr/bin/env bash
# Install what the bot sandbox (bots_sdk.sandbox) needs on a Debian host.
# Idempotent; run as root. apt-get runs only when something is missing.
#
#   - bubblewrap (bwrap >= 0.8.0, for --disable-userns)
#   - the bot runtime: Debian's /usr/bin/python3 with python3-numpy
#   - the unprivileged bot user (default "vegasbot"; VEGAS_BOT_USER overrides)
set -euo pipefail

BOT_USER="${VEGAS_BOT_USER:-vegasbot}"

if [ "$(id -u)" -ne 0 ]; then
    echo "install_bot_runtime.sh: must run as root" >&2
    exit 1
fi

missing=()
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
[ -x /usr/bin/python3 ] || missing+=(python3)
if ! /usr/bin/python3 -I -c 'import numpy' >/dev/null 2>&1; then
    missing+=(python3-numpy)
fi

if [ "${#missing[@]}" -gt 0 ]; then
    echo "install_bot_runtime.sh: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if ! getent passwd "$BOT_USER" >/dev/null; then
    echo "install_bot_runtime.sh: creating system user $BOT_USER"
    useradd --system --user-group --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin "$BOT_USER"
fi

echo "install_bot_runtime.sh: $(bwrap --version), $(/usr/bin/python3 --version)," \
    "numpy $(/usr/bin/python3 -I -c 'import numpy; print(numpy.__version__)')," \
    "user $BOT_USER uid $(id -u "$BOT_USER")"
