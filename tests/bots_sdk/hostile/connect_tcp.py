"""Hostile bot: connect to 127.0.0.1:argv[1] (a port the worker listens on)."""

import json
import socket
import sys

result = {}
try:
    with socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2) as conn:
        conn.sendall(b"hello from the bot\n")
    result = {"connected": True}
except OSError as exc:
    result = {"connected": False, "error": repr(exc)}
print(json.dumps(result), flush=True)
