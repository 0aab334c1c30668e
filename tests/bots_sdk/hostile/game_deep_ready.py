"""Hostile raw bot: answer hello with 15,000 '[' instead of a ready line."""

import json
import os
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print("hostile: ready as 15000 [", file=sys.stderr, flush=True)
        os.write(1, b"[" * 15_000 + b"\n")
    elif message["type"] == "shutdown":
        break
