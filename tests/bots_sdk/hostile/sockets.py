"""Hostile bot: open a socket of every address family a bot might use to reach
out (AF_VSOCK reaches the host whatever the network namespace), and socket
pairs; print {label: "ok" | "errno N"}."""

import json
import socket

ATTEMPTS = {
    "AF_VSOCK": (socket.AF_VSOCK, socket.SOCK_STREAM),
    "AF_INET": (socket.AF_INET, socket.SOCK_STREAM),
    "AF_INET_udp": (socket.AF_INET, socket.SOCK_DGRAM),
    "AF_INET6": (socket.AF_INET6, socket.SOCK_STREAM),
    "AF_NETLINK": (socket.AF_NETLINK, socket.SOCK_RAW),
    "AF_PACKET": (socket.AF_PACKET, socket.SOCK_RAW),
    "AF_UNIX": (socket.AF_UNIX, socket.SOCK_STREAM),
}

results = {}
for label, (family, kind) in ATTEMPTS.items():
    try:
        socket.socket(family, kind).close()
        results[label] = "ok"
    except OSError as error:
        results[label] = f"errno {error.errno}"
for family in (socket.AF_UNIX, socket.AF_INET):
    label = f"socketpair_{family.name}"
    try:
        for end in socket.socketpair(family):
            end.close()
        results[label] = "ok"
    except OSError as error:
        results[label] = f"errno {error.errno}"
print(json.dumps(results), flush=True)
