"""Hostile SDK bot: at its 1st decision, connect to 127.0.0.1:$HOSTILE_PORT (a port
the worker listens on), report on stderr, play on."""

import os
import socket

from bots_sdk import Bot, run


class TcpConnector(Bot):
    decisions = 0

    def act(self, observation):
        self.decisions += 1
        if self.decisions == 1:
            port = int(os.environ["HOSTILE_PORT"])
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5) as conn:
                    conn.sendall(b"hello from the bot\n")
                result = "connected"
            except OSError as exc:
                result = f"{type(exc).__name__} errno {exc.errno}"
            print(f"hostile: tcp 127.0.0.1:{port}: {result}", flush=True)
        return observation["legal_actions"][0]


if __name__ == "__main__":
    run(TcpConnector)
