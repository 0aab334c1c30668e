"""Hostile raw bot: at its 2nd request, a valid action with an extra field of a
5,000-digit integer (more than Python converts by default)."""

import json
import os
import sys

requests = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        os.write(1, b'{"type": "ready", "protocol": 1, "name": "long int"}\n')
    elif message["type"] == "request":
        requests += 1
        action = message["observation"]["legal_actions"][0]
        reply = json.dumps({"type": "action", "id": message["id"], "action": action}).encode()
        if requests == 2:
            print("hostile: answering with a 5000-digit number", file=sys.stderr, flush=True)
            reply = reply[:-1] + b', "n": ' + b"9" * 5000 + b"}"
        os.write(1, reply + b"\n")
    elif message["type"] == "shutdown":
        break
