"""A tiny protocol bot without the SDK: answers every request with its first legal action."""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        reply = {"type": "ready", "protocol": 1, "name": "tiny python"}
    elif message["type"] == "request":
        reply = {
            "type": "action",
            "id": message["id"],
            "action": message["observation"]["legal_actions"][0],
        }
    elif message["type"] == "shutdown":
        break
    else:
        continue
    print(json.dumps(reply), flush=True)
