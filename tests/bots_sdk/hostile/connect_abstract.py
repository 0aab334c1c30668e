"""Hostile bot: connect to the abstract unix socket named argv[1]."""

import json
import socket
import sys

try:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(2)
        conn.connect("\0" + sys.argv[1])
        conn.sendall(b"hello from the bot\n")
    result = {"connected": True}
except OSError as exc:
    result = {"connected": False, "error": repr(exc)}
print(json.dumps(result), flush=True)
