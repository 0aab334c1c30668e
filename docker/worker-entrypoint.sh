#!/bin/sh
# The worker container's entrypoint: make /proc one that bubblewrap may mount
# again, then run the command without CAP_SYS_ADMIN.
#
# bubblewrap gives each bot a fresh /proc (its own pid namespace). The kernel
# allows that mount in a user namespace only when a /proc of the container is
# fully visible, and Docker masks parts of the container's /proc (/proc/kcore,
# a read-only /proc/sys, ...). `--security-opt systempaths=unconfined` removes
# the masks, but Debian's docker-compose 1.29 cannot pass it. So: with
# CAP_SYS_ADMIN (docker-compose.yml adds it), a fresh /proc over the masked
# one, then CAP_SYS_ADMIN and CAP_SETPCAP leave the bounding set for good:
# the worker and everything it starts never have them.
set -eu

masked=$(awk '$5 ~ "^/proc/" { n++ } END { print n + 0 }' /proc/self/mountinfo)
if [ "$masked" -gt 0 ]; then
    if ! mount -t proc -o nosuid,nodev,noexec proc /proc; then
        echo "worker-entrypoint: /proc is masked and cannot be mounted again:" \
            "bot sandboxes will fail (give the container CAP_SYS_ADMIN, or" \
            "--security-opt systempaths=unconfined)" >&2
    fi
fi

bounding=$(awk '$1 == "CapBnd:" { print $2 }' /proc/self/status)
if [ $(((0x$bounding >> 21) & 1)) -eq 1 ]; then  # CAP_SYS_ADMIN
    exec setpriv --bounding-set=-sys_admin,-setpcap --inh-caps=-all -- "$@"
fi
exec "$@"
