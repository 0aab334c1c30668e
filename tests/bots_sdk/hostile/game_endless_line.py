"""Hostile raw bot: at its 2nd request, write one endless line (no newline) to stdout."""

import json
import os
import sys

requests = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        os.write(1, b'{"type": "ready", "protocol": 1, "name": "endless"}\n')
    elif message["type"] == "request":
        requests += 1
        if requests == 2:
            print("hostile: one endless line", file=sys.stderr, flush=True)
            while True:
                os.write(1, b"x" * 4096)
        action = message["observation"]["legal_actions"][0]
        reply = {"type": "action", "id": message["id"], "action": action}
        os.write(1, json.dumps(reply).encode() + b"\n")
    elif message["type"] == "shutdown":
        break
