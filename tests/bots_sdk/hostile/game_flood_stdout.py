"""Hostile raw bot (no SDK: it writes to the protocol's stdout itself): at its
2nd request, flood stdout with lines of text forever."""

import json
import os
import sys

requests = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        os.write(1, b'{"type": "ready", "protocol": 1, "name": "flood"}\n')
    elif message["type"] == "request":
        requests += 1
        if requests == 2:
            print("hostile: flooding stdout", file=sys.stderr, flush=True)
            flood = b"flood " * 170 + b"\n"
            while True:
                os.write(1, flood)
        action = message["observation"]["legal_actions"][0]
        reply = {"type": "action", "id": message["id"], "action": action}
        os.write(1, json.dumps(reply).encode() + b"\n")
    elif message["type"] == "shutdown":
        break
