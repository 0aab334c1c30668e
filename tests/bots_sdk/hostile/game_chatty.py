"""Hostile raw bot: every reply is a valid action padded with 12 kB of an unknown
field (allowed, but it counts as output): the game's output limit runs out."""

import json
import os
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print("hostile: padding every reply with 12 kB", file=sys.stderr, flush=True)
        os.write(1, b'{"type": "ready", "protocol": 1, "name": "chatty"}\n')
    elif message["type"] == "request":
        action = message["observation"]["legal_actions"][0]
        reply = {"type": "action", "id": message["id"], "action": action, "pad": "y" * 12000}
        os.write(1, json.dumps(reply).encode() + b"\n")
    elif message["type"] == "shutdown":
        break
