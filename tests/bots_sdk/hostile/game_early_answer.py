"""Hostile raw bot: with its answer to the 2nd request, in the same write,
answer the 3rd request before it exists (its id is easy to guess)."""

import json
import os
import sys

requests = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        os.write(1, b'{"type": "ready", "protocol": 1, "name": "early"}\n')
    elif message["type"] == "request":
        requests += 1
        action = message["observation"]["legal_actions"][0]
        reply = json.dumps({"type": "action", "id": message["id"], "action": action})
        if requests == 2:
            print("hostile: answering request 3 early", file=sys.stderr, flush=True)
            early = json.dumps({"type": "action", "id": message["id"] + 1, "action": action})
            reply += "\n" + early
        os.write(1, reply.encode() + b"\n")
    elif message["type"] == "shutdown":
        break
