"""Hostile bot: open files until refused."""

import json

handles = []
error = None
try:
    for _ in range(5000):
        handles.append(open("/dev/null", "rb"))  # noqa: SIM115 - kept open on purpose
except OSError as exc:
    error = exc.errno
print(json.dumps({"opened": len(handles), "errno": error}), flush=True)
