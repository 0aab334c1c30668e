"""Hostile raw bot: with its answer to the 1st request, in the same write, start
a flood of early answers to the next request, forever."""

import json
import os
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        os.write(1, b'{"type": "ready", "protocol": 1, "name": "early flood"}\n')
    elif message["type"] == "request":
        action = message["observation"]["legal_actions"][0]
        reply = json.dumps({"type": "action", "id": message["id"], "action": action})
        early = json.dumps({"type": "action", "id": message["id"] + 1, "action": action})
        print("hostile: flooding early answers", file=sys.stderr, flush=True)
        os.write(1, (reply + "\n" + early + "\n").encode())
        while True:  # blocks once the pipe is full: the referee must not read it all
            os.write(1, (early + "\n").encode() * 100)
    elif message["type"] == "shutdown":
        break
