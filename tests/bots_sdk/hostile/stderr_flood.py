"""Hostile bot: write 8 MiB to stderr (never blocking), then report on stdout."""

import json
import os

line = b"flood " * 170 + b"\n"  # 1021 bytes
written = errors = 0
for _ in range(8 * 1024):
    try:
        written += os.write(2, line)
    except OSError:
        errors += 1
print(json.dumps({"written": written, "errors": errors}), flush=True)
