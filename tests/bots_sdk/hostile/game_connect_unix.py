"""Hostile SDK bot: at its 1st decision, connect to the abstract unix socket
@$HOSTILE_SOCKET (the worker listens on it), report on stderr, play on."""

import os
import socket

from bots_sdk import Bot, run


class UnixConnector(Bot):
    decisions = 0

    def act(self, observation):
        self.decisions += 1
        if self.decisions == 1:
            name = os.environ["HOSTILE_SOCKET"]
            try:
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
                    conn.settimeout(0.5)
                    conn.connect("\0" + name)
                    conn.sendall(b"hello from the bot\n")
                result = "connected"
            except OSError as exc:
                result = f"{type(exc).__name__} errno {exc.errno}"
            print(f"hostile: unix @{name}: {result}", flush=True)
        return observation["legal_actions"][0]


if __name__ == "__main__":
    run(UnixConnector)
