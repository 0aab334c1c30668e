"""Hostile bot: leave a double-forked setsid daemon behind, then wait.

argv[1] is a token that stays in the daemon's command line, so the test can
find the daemon on the host.
"""

import os
import sys
import time

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        for fd in (0, 1, 2):
            os.close(fd)
        while True:
            time.sleep(1)
    os._exit(0)
os.wait()
print("daemon started", flush=True)
sys.stdin.readline()
