#!/usr/bin/env bash
# Install the Debian packages and the user the project needs, only what is
# missing: idempotent, and apt-get runs only when a package is missing.
#
#   scripts/install_system.sh        # for `make test`: everything below
#   scripts/install_system.sh run    # for `make run`: the venv's and the sandbox's parts
#
# - python3-venv, for the project's .venv (Debian's python3 lacks ensurepip without it)
# - the bot sandbox: bubblewrap, the bot runtimes and the unprivileged bot user
#   (VEGAS_BOT_USER, default vegasbot). The runtimes are bots_sdk/runtimes.py's:
#   Python 3.11 with numpy, Node.js, gcc, g++, OpenJDK 17, rustc, Go; each is
#   checked by a file of its toolchain, as that module names them.
# - test only: Chromium (Debian's, driven by Playwright), PostgreSQL and Redis
#   (the test suite starts throwaway servers from their binaries)
#
# It also lets the bot user through the directories down to this repository
# (chmod o+x: traverse, not list), which the sandbox needs.
#
# Installing needs root. As another user, with something missing, it prints
# the command to run as root and fails; with nothing missing it just says so.
set -euo pipefail

PURPOSE="${1:-test}"
BOT_USER="${VEGAS_BOT_USER:-vegasbot}"
BASE_PYTHON="${BASE_PYTHON:-python3}"
me="install_system.sh"

case "$PURPOSE" in
    run | test) ;;
    *)
        echo "usage: $0 [run|test]" >&2
        exit 2
        ;;
esac

packages=()
# The venv needs ensurepip, which Debian ships in python3-venv.
if ! "$BASE_PYTHON" -c 'import ensurepip, venv' >/dev/null 2>&1; then
    packages+=(python3-venv)
fi
command -v bwrap >/dev/null 2>&1 || packages+=(bubblewrap)
[ -x /usr/bin/python3 ] || packages+=(python3)
/usr/bin/python3 -I -c 'import numpy' >/dev/null 2>&1 || packages+=(python3-numpy)
# The other bot runtimes (bots_sdk/runtimes.py: toolchain file, Debian packages).
[ -x /usr/bin/node ] || packages+=(nodejs)
[ -x /usr/bin/gcc ] && [ -f /usr/include/stdio.h ] || packages+=(gcc libc6-dev)
[ -x /usr/bin/g++ ] || packages+=(g++)
[ -x /usr/lib/jvm/java-17-openjdk-amd64/bin/javac ] || packages+=(openjdk-17-jdk-headless)
[ -x /usr/bin/rustc ] && [ -x /usr/bin/cc ] || packages+=(rustc)
[ -x /usr/lib/go-1.19/bin/go ] || packages+=(golang-go)
# The embedded broker (scripts/broker.sh), and a Redis server for the tests.
command -v redis-server >/dev/null 2>&1 || packages+=(redis-server)
if [ "$PURPOSE" = test ]; then
    ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || packages+=(postgresql)
    # The connection pooler Compose puts in front of PostgreSQL, tested with a small server.
    [ -x /usr/sbin/pgbouncer ] || packages+=(pgbouncer)
    # Browser tests drive Debian's Chromium through Playwright (never `playwright install`).
    [ -x /usr/bin/chromium ] || packages+=(chromium)
fi
need_user=0
getent passwd "$BOT_USER" >/dev/null || need_user=1
# The sandbox binds the SDK (and, under var/, the bots' files) from this
# repository as the bot user: every directory down to it must let others
# through (o+x, not o+r). A fresh Debian's /root is 0700.
closed=()
dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
while :; do
    [ "$(($(stat -c '0%a' "$dir") & 01))" -eq 1 ] || closed+=("$dir")
    [ "$dir" = / ] && break
    dir="$(dirname "$dir")"
done

if [ "${#packages[@]}" -eq 0 ] && [ "$need_user" -eq 0 ] && [ "${#closed[@]}" -eq 0 ]; then
    echo "$me: nothing missing for '$PURPOSE'"
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    missing=("${packages[@]}")
    [ "$need_user" -eq 0 ] || missing+=("user $BOT_USER")
    [ "${#closed[@]}" -eq 0 ] || missing+=("o+x on ${closed[*]}")
    echo "$me: missing for '$PURPOSE': $(IFS=,; echo "${missing[*]}" | sed 's/,/, /g')" >&2
    echo "$me: installing them needs root; run once:" >&2
    echo "    sudo $(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/install_system.sh $PURPOSE" >&2
    exit 1
fi

if [ "${#packages[@]}" -gt 0 ]; then
    echo "$me: installing ${packages[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q --no-install-recommends "${packages[@]}"
fi

if ! getent passwd "$BOT_USER" >/dev/null; then
    echo "$me: creating system user $BOT_USER"
    useradd --system --user-group --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin "$BOT_USER"
fi

if [ "${#closed[@]}" -gt 0 ]; then
    echo "$me: chmod o+x ${closed[*]} (traverse only: the bot user reaches the SDK and bots here)"
    chmod o+x "${closed[@]}"
fi

echo "$me: $(bwrap --version), $(/usr/bin/python3 --version)," \
    "numpy $(/usr/bin/python3 -I -c 'import numpy; print(numpy.__version__)')," \
    "node $(/usr/bin/node --version), $(/usr/bin/gcc -dumpfullversion 2>/dev/null | sed 's/^/gcc /')," \
    "$(/usr/bin/rustc --version | cut -d' ' -f1-2), $(/usr/lib/go-1.19/bin/go version | cut -d' ' -f3)," \
    "user $BOT_USER uid $(id -u "$BOT_USER")"
