"""Hostile raw bot: from its 2nd request on, read requests and answer nothing
(it stays alive and keeps reading)."""

import json
import os
import sys

requests = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        os.write(1, b'{"type": "ready", "protocol": 1, "name": "silent"}\n')
    elif message["type"] == "request":
        requests += 1
        if requests >= 2:
            print(f"hostile: ignoring request {message['id']}", file=sys.stderr, flush=True)
            continue
        action = message["observation"]["legal_actions"][0]
        reply = {"type": "action", "id": message["id"], "action": action}
        os.write(1, json.dumps(reply).encode() + b"\n")
    elif message["type"] == "shutdown":
        break
