#!/usr/bin/env bash
# Prove the README's two commands on a fresh Debian 12: a container of a base
# image built here with debootstrap (nothing but Debian's packages), python3,
# make and git added, this repository cloned, then `make test` and/or
# `ARENA_RUN_SECONDS=60 make run`, counting the house-bot matches it finished.
#
#   scripts/fresh_container_check.sh [test|run|all]    # default: all; needs root and dockerd
#
# Needs a running Docker engine and debootstrap (apt-get install docker.io
# debootstrap; start dockerd). The base image las-vegas-arena/debian:bookworm
# is built once by scripts/docker_base_image.sh (debootstrap bookworm; the
# compose stack's images start from it too). Commits only: the clone is of
# HEAD. Output goes to this script's stdout; the container is removed at the end.
set -euo pipefail

WHAT="${1:-all}"
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
IMAGE="${IMAGE:-las-vegas-arena/debian:bookworm}"

BASE_IMAGE="$IMAGE" bash "$REPO/scripts/docker_base_image.sh" >/dev/null

# A bundle of HEAD: a clone works from a worktree too (its .git is elsewhere).
work="$(mktemp -d /tmp/fresh-check.XXXXXX)"
trap 'rm -rf "$work"' EXIT
git -C "$REPO" bundle create -q "$work/repo.bundle" HEAD

# pip inside trusts what the host's pip trusts (PIP_CERT; Debian's bundle by default).
CA="${PIP_CERT:-/etc/ssl/certs/ca-certificates.crt}"

# What a fresh Debian 12 has (the security and updates suites too), plus python3,
# make and git; then, as root, the README's commands in a fresh clone.
read -r -d '' INSIDE <<'SCRIPT' || true
set -euo pipefail
cat >/etc/apt/sources.list <<SOURCES
deb http://deb.debian.org/debian bookworm main
deb http://deb.debian.org/debian bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
SOURCES
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends python3 make git >/dev/null
echo "fresh: $(python3 --version), $(make --version | head -1), $(git --version)"
git clone -q /src/repo.bundle /root/arena
cd /root/arena
echo "clone: $(git log --oneline -1)"
if [ "$WHAT" = test ] || [ "$WHAT" = all ]; then
    start=$SECONDS
    status=0
    make test || status=$?
    echo "make test: exit $status in $((SECONDS - start)) s"
fi
if [ "$WHAT" = run ] || [ "$WHAT" = all ]; then
    start=$SECONDS
    ARENA_RUN_SECONDS=60 make run >/tmp/run.log 2>&1 || true
    tail -n 20 /tmp/run.log
    echo "make run: $((SECONDS - start)) s (60 s of services)"
    .venv/bin/python - <<'PY'
import sqlite3
db = sqlite3.connect("var/arena.sqlite3")
print("matches by status:", dict(db.execute(
    "SELECT status, count(*) FROM matches_match GROUP BY status").fetchall()))
print("bot versions by status:", dict(db.execute(
    "SELECT status, count(*) FROM bots_botversion GROUP BY status").fetchall()))
PY
fi
SCRIPT

# The sandbox needs its own namespaces and cgroups: these options let its
# self-test pass inside (--privileged is not needed). The host's cgroups are
# shared, so the pids must be too (--pid host): a worker sweeps the bot
# cgroups of workers whose pid is gone, and in a pid namespace of its own it
# would take the host's live workers for dead ones and kill their bots.
# SYS_PTRACE: root reads the bots' /proc/<pid>/fd (the referee tells a bot
# that closed its stdout from one that is slow), as root on a machine does.
docker run --rm -i --pid host \
    --cap-add SYS_ADMIN --cap-add SYS_PTRACE --security-opt seccomp=unconfined --security-opt apparmor=unconfined \
    --security-opt systempaths=unconfined --cgroupns host -v /sys/fs/cgroup:/sys/fs/cgroup \
    -v "$work:/src:ro" -v "$CA:/etc/ssl/certs/host-ca.crt:ro" \
    -e PIP_CERT=/etc/ssl/certs/host-ca.crt -e WHAT="$WHAT" \
    "$IMAGE" bash -c "$INSIDE"
