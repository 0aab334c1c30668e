"""Hostile SDK bot: at its 1st decision, open sockets of the families that reach
out of a network namespace or around it (AF_VSOCK talks to the host whatever
the namespace); report "family result" for each on stderr, then play on."""

import socket

from bots_sdk import Bot, run

ATTEMPTS = {
    "AF_VSOCK": (socket.AF_VSOCK, socket.SOCK_STREAM),
    "AF_INET": (socket.AF_INET, socket.SOCK_STREAM),
    "AF_INET6": (socket.AF_INET6, socket.SOCK_DGRAM),
    "AF_NETLINK": (socket.AF_NETLINK, socket.SOCK_RAW),
    "AF_PACKET": (socket.AF_PACKET, socket.SOCK_RAW),
    "AF_UNIX": (socket.AF_UNIX, socket.SOCK_STREAM),
}


class SocketOpener(Bot):
    decisions = 0

    def act(self, observation):
        self.decisions += 1
        if self.decisions == 1:
            results = []
            for label, (family, kind) in ATTEMPTS.items():
                try:
                    with socket.socket(family, kind) as opened:
                        results.append(f"{label} ok fd {opened.fileno()}")
                except OSError as error:
                    results.append(f"{label} errno {error.errno}")
            print("hostile: sockets: " + ", ".join(results), flush=True)
        return observation["legal_actions"][0]


if __name__ == "__main__":
    run(SocketOpener)
