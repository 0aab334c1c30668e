#!/usr/bin/env bash
# Build the Debian 12 base image locally, from Debian's mirror with debootstrap:
# no image registry needed. The Dockerfiles (platform/Dockerfile, docker/*.Dockerfile)
# start FROM this tag, and scripts/fresh_container_check.sh runs in it.
#
#   scripts/docker_base_image.sh            # builds it once; a no-op when the tag exists
#   scripts/docker_base_image.sh --force    # builds it again (e.g. for Debian's updates)
#
# Needs root (debootstrap), a running Docker engine and debootstrap
# (apt-get install docker.io debootstrap). Prints the tag on its last line.
#
# BASE_IMAGE  the tag (default las-vegas-arena/debian:bookworm)
# MIRROR      Debian's mirror (default http://deb.debian.org/debian)
#
# What it holds: debootstrap's minbase of bookworm (apt, bash, coreutils, ...,
# about 120 MB), apt sources for bookworm, bookworm-updates and
# bookworm-security as a Debian install has, and no package lists (an image's
# first RUN does apt-get update), like Docker's official debian:bookworm.
set -euo pipefail

BASE_IMAGE="${BASE_IMAGE:-las-vegas-arena/debian:bookworm}"
MIRROR="${MIRROR:-http://deb.debian.org/debian}"
SECURITY_MIRROR="${SECURITY_MIRROR:-http://deb.debian.org/debian-security}"

if ! docker info >/dev/null 2>&1; then
    echo "docker_base_image.sh: no Docker engine answers (start dockerd)" >&2
    exit 1
fi
if [ "${1:-}" != --force ] && docker image inspect "$BASE_IMAGE" >/dev/null 2>&1; then
    echo "$BASE_IMAGE"
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "docker_base_image.sh: debootstrap needs root" >&2
    exit 1
fi
command -v debootstrap >/dev/null || {
    echo "docker_base_image.sh: debootstrap missing (apt-get install debootstrap)" >&2
    exit 1
}

rootfs="$(mktemp -d /tmp/rootfs.XXXXXX)"
trap 'rm -rf "$rootfs"' EXIT
echo "docker_base_image.sh: debootstrap bookworm from $MIRROR" >&2
debootstrap --variant=minbase bookworm "$rootfs" "$MIRROR" >&2

cat >"$rootfs/etc/apt/sources.list" <<SOURCES
deb $MIRROR bookworm main
deb $MIRROR bookworm-updates main
deb $SECURITY_MIRROR bookworm-security main
SOURCES
# As in Docker's official image: no .deb kept after an install.
cat >"$rootfs/etc/apt/apt.conf.d/docker-clean" <<'CLEAN'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
CLEAN
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb
# The host's name and resolver are the engine's to set, per container.
: >"$rootfs/etc/hostname"
rm -f "$rootfs/etc/resolv.conf"

tar --numeric-owner -C "$rootfs" -c . |
    docker import --change 'CMD ["bash"]' --message "debootstrap --variant=minbase bookworm $MIRROR" \
        - "$BASE_IMAGE" >&2
echo "$BASE_IMAGE"
