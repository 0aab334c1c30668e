"""Hostile bot: write files until refused, in /tmp, /dev/shm, /bot and /."""

import contextlib
import json
import os

report = {}
for path in ("/tmp/big", "/dev/shm/big", "/bot/big", "/big"):
    written = 0
    error = None
    try:
        with open(path, "wb", buffering=0) as handle:
            chunk = b"\0" * (256 * 1024)
            while written < 256 * 1024 * 1024:
                written += handle.write(chunk)
    except OSError as exc:
        error = exc.errno
    report[path] = {"written": written, "errno": error}
    if os.path.exists(path):
        with contextlib.suppress(OSError):
            os.unlink(path)
print(json.dumps(report), flush=True)
