"""Hostile bot: fork without end; report once forks start failing."""

import json
import os
import sys
import time

failures = 0
forks = 0
reported = False
while True:
    try:
        pid = os.fork()
    except OSError as exc:
        failures += 1
        if not reported and failures >= 20:
            print(
                json.dumps({"forks": forks, "failures": failures, "errno": exc.errno}), flush=True
            )
            reported = True
        time.sleep(0.001)
        continue
    if pid == 0:
        forks = 0
        reported = True  # only the first process reports
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - for the process's life
    else:
        forks += 1
