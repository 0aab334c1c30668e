"""Hostile raw bot: at its 2nd request, answer, close stdin and keep running."""

import json
import os
import sys
import time

requests = 0
while line := sys.stdin.readline():
    message = json.loads(line)
    if message["type"] == "hello":
        os.write(1, b'{"type": "ready", "protocol": 1, "name": "close-stdin"}\n')
    elif message["type"] == "request":
        requests += 1
        action = message["observation"]["legal_actions"][0]
        reply = {"type": "action", "id": message["id"], "action": action}
        os.write(1, json.dumps(reply).encode() + b"\n")
        if requests == 2:
            print("hostile: closing stdin", file=sys.stderr, flush=True)
            os.close(0)
            time.sleep(3600)
    elif message["type"] == "shutdown":
        break
