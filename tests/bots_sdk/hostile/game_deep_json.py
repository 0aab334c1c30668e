"""Hostile raw bot: at its 2nd request, answer with 15,000 '[' (a JSON parser's
recursion limit, within the line limit)."""

import json
import os
import sys

requests = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        os.write(1, b'{"type": "ready", "protocol": 1, "name": "deep"}\n')
    elif message["type"] == "request":
        requests += 1
        if requests == 2:
            print("hostile: answering 15000 [", file=sys.stderr, flush=True)
            os.write(1, b"[" * 15_000 + b"\n")
            continue
        action = message["observation"]["legal_actions"][0]
        reply = {"type": "action", "id": message["id"], "action": action}
        os.write(1, json.dumps(reply).encode() + b"\n")
    elif message["type"] == "shutdown":
        break
