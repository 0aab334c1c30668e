"""Hostile raw bot: at its 2nd request, close stdout and keep running."""

import json
import os
import sys
import time

requests = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        os.write(1, b'{"type": "ready", "protocol": 1, "name": "close-stdout"}\n')
    elif message["type"] == "request":
        requests += 1
        if requests == 2:
            print("hostile: closing stdout", file=sys.stderr, flush=True)
            os.close(1)
            time.sleep(3600)
        action = message["observation"]["legal_actions"][0]
        reply = {"type": "action", "id": message["id"], "action": action}
        os.write(1, json.dumps(reply).encode() + b"\n")
    elif message["type"] == "shutdown":
        break
