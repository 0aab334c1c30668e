"""Hostile raw bot: with its ready line, in the same write, answer the 1st
request before it exists."""

import json
import os
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print("hostile: answering request 1 with ready", file=sys.stderr, flush=True)
        os.write(
            1,
            b'{"type": "ready", "protocol": 1, "name": "early ready"}\n'
            b'{"type": "action", "id": 1, "action": "place 1"}\n',
        )
    elif message["type"] == "shutdown":
        break
