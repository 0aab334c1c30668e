"""Hostile bot: spin on every core it can get (itself plus a forked child)."""

import os

os.fork()
print("spinning", flush=True)
while True:
    pass
