"""Hostile bot: signal its parent, pid 1, argv[1] (a host pid) and everyone (-1)."""

import json
import os
import signal
import sys

results = {}
for name, pid in (
    ("parent", os.getppid()),
    ("init", 1),
    ("host_pid", int(sys.argv[1])),
    ("everyone", -1),
):
    try:
        os.kill(pid, signal.SIGKILL)
        results[name] = "sent"
    except OSError as exc:
        results[name] = f"errno {exc.errno}"
print(json.dumps({"ppid": os.getppid(), "results": results}), flush=True)
