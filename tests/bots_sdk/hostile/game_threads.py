"""Hostile SDK bot: at its 2nd decision, burn CPU in 8 threads (hashing releases
the GIL, so they really run in parallel) and wait for them forever."""

import hashlib
import threading

from bots_sdk import Bot, run

DATA = b"\0" * (1 << 20)


def burn():
    while True:
        hashlib.sha256(DATA).digest()


class ThreadBurner(Bot):
    decisions = 0

    def act(self, observation):
        self.decisions += 1
        if self.decisions == 2:
            threads = [threading.Thread(target=burn, daemon=True) for _ in range(8)]
            for thread in threads:
                thread.start()
            print(f"hostile: burning CPU in {len(threads)} threads", flush=True)
            for thread in threads:
                thread.join()
        return observation["legal_actions"][0]


if __name__ == "__main__":
    run(ThreadBurner)
