"""Hostile raw bot: answer hello with a ready line holding a 5,000-digit integer."""

import json
import os
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print("hostile: ready with a 5000-digit number", file=sys.stderr, flush=True)
        os.write(1, b'{"type": "ready", "protocol": 1, "n": ' + b"9" * 5000 + b"}\n")
    elif message["type"] == "shutdown":
        break
